// GET /v1/transactions/{chain_id}/{tx_hash} against the devnet: every status, and the launchpad events
// of a launch and of a swap decoded from the receipt.
import { encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchFactoryAbi } from '../contracts/artifacts/index.ts';
import { launchPoolKey } from '../src/launchpad/pool.ts';
import { TestChain } from './support/chain.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';
import { expectDocumented } from './support/documented.ts';
import { call, expectProblem } from './support/gateway.ts';

let env: DevnetGateway;
let base: TestChain;

beforeAll(async () => {
  env = await startDevnetGateway();
  base = new TestChain(env.devnet.chains[0] as DevnetGateway['devnet']['chains'][number]);
}, 60_000);
afterAll(() => env?.close());

const status = async (hash: string, chain = 8453) => {
  const path = `/v1/transactions/${chain}/${hash}`;
  const r = await call(env.gw, path, { key: env.key });
  if (r.status === 200) expectDocumented(path, r.json); // the published record
  return r;
};

describe('GET /v1/transactions/{chain_id}/{tx_hash}', () => {
  it('decodes the launchpad events of a launch and of a swap', async () => {
    const creator = base.account(1);
    const { token, receipt, poolId } = await base.launch(creator);
    // The devnet mines an empty block every 2 s while idle: the head is read on both sides of the call.
    const headBefore = await base.client.getBlockNumber({ cacheTime: 0 });
    const r = await status(receipt.transactionHash);
    const headAfter = await base.client.getBlockNumber({ cacheTime: 0 });
    expect(r.status, r.body).toBe(200);
    expect(r.json.data).toMatchObject({
      chain_id: 8453,
      status: 'confirmed',
      block_number: receipt.blockNumber.toString(),
      block_hash: receipt.blockHash,
      from: creator,
      to: base.current.factory,
    });
    // Confirmations: the head at the answer's block minus the transaction's block, plus one.
    expect(r.json.data.confirmations).toBeGreaterThanOrEqual(Number(headBefore - receipt.blockNumber) + 1);
    expect(r.json.data.confirmations).toBeLessThanOrEqual(Number(headAfter - receipt.blockNumber) + 1);
    const names = r.json.data.events.map((e: { name: string }) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'PoolRegistered',
        'Seeded',
        'TokenRegistered',
        'Launched',
        'NativeLaunchFeePaid',
      ]),
    );
    const launched = r.json.data.events.find((e: { name: string }) => e.name === 'Launched');
    expect(launched).toMatchObject({
      address: base.current.factory,
      args: { token, poolId, originalCreator: creator, launchSupply: '1000000000000000000000000000' },
    });

    await base.advance(21);
    const swap = await base.swap(
      base.account(2),
      launchPoolKey(token, zeroAddress, 200, base.current.hook),
      zeroAddress,
      10n ** 16n,
      { referrer: base.account(3) },
    );
    const s = await status(swap.transactionHash);
    const swapEvents = s.json.data.events.map((e: { name: string }) => e.name);
    expect(swapEvents).toEqual(expect.arrayContaining(['Trade', 'FeeComponentCredited', 'Credited']));
    expect(s.json.data.events.find((e: { name: string }) => e.name === 'Trade').args).toMatchObject({
      totalFeeAmount: (10n ** 14n).toString(),
    });
  });

  it('reports pending, reverted and not_found', async () => {
    const sender = base.account(4);
    // The devnet mines an empty block every 2 s, so a transaction is held back by a nonce gap: the one
    // after the next nonce waits in the pool (pending) until the gap is filled.
    const nonce = await base.client.getTransactionCount({ address: sender, blockTag: 'pending' });
    const send = (n: number) =>
      base.client.request({
        method: 'eth_sendTransaction',
        params: [{ from: sender, to: sender, value: '0x1', nonce: `0x${n.toString(16)}` }],
      } as never) as Promise<Hex>;
    const held = await send(nonce + 1);
    expect((await status(held)).json.data).toMatchObject({ status: 'pending', from: sender });
    await base.client.waitForTransactionReceipt({ hash: await send(nonce), pollingInterval: 5 });
    await base.client.waitForTransactionReceipt({ hash: held, pollingInterval: 5 });
    expect((await status(held)).json.data.status).toBe('confirmed');
    // A launch with a stale config version, forced on chain with an explicit gas limit.
    const { params } = await base.launchParams(sender);
    const hash = (await base.client.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from: sender,
          to: base.current.factory,
          gas: '0x1e8480',
          value: `0x${(10n ** 15n).toString(16)}`,
          data: encodeFunctionData({
            abi: LaunchFactoryAbi,
            functionName: 'createLaunch',
            args: [{ ...params, expectedConfigVersion: 1n }],
          }),
        },
      ],
    } as never)) as Hex;
    // anvil answers the send before its block is sealed now and then: ask once the receipt exists.
    await base.client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    expect((await status(hash)).json.data).toMatchObject({ status: 'reverted', events: [] });
    expect((await status(`0x${'ab'.repeat(32)}`)).json.data).toEqual({
      chain_id: 8453,
      transaction_hash: `0x${'ab'.repeat(32)}`,
      status: 'not_found',
    });
    expectProblem(await status('0x1234'), 400, 'invalid_parameter');
    expectProblem(await status(`0x${'ab'.repeat(32)}`, 1), 422, 'unsupported_chain');
  });
});
