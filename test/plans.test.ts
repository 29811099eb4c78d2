// The plan engine against the devnet: steps simulated in order in one eth_simulateV1 call at the pinned
// block, reverts decoded into problems, signature-dependent steps not run; then the plan is signed and
// sent by a devnet account and the chain checked.
import { type Abi, type Address, encodeErrorResult, encodeFunctionData, parseAbi, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchFactoryAbi } from '../contracts/artifacts/index.ts';
import { ChainClients } from '../src/chain/clients.ts';
import { withSnapshot } from '../src/chain/snapshot.ts';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { ApiError } from '../src/errors.ts';
import { PlanBuilder } from '../src/plans/plan.ts';
import { decodeRevert } from '../src/plans/revert.ts';
import { assertConfigVersion } from '../src/plans/stale.ts';
import { encodeRouteSteps, ERC20, TestChain } from './support/chain.ts';
import { tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';

const FACTORY = LaunchFactoryAbi as Abi;
let devnet: Devnet;
let base: TestChain;
let clients: ChainClients;

beforeAll(async () => {
  devnet = await startDevnet({ dataDir: tempDir(), basePort: await freePortRange(4) });
  base = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
  clients = new ChainClients({ 8453: [base.chain.rpc_url] }, 5000);
}, 60_000);
afterAll(() => devnet?.stop());

const routeData = (tokenIn: Address, token: Address, hook: Address) =>
  encodeRouteSteps([
    {
      kind: 2,
      tokenIn,
      tokenOut: token,
      pool: zeroAddress,
      fee: 0,
      tickSpacing: 200,
      hooks: hook,
      hookData: '0x',
    },
  ]);

/** A creator's launch with a first buy paid in USDC: approve USDC to the factory, then launch and buy. */
async function launchAndBuySteps(creator: Address, approve: boolean) {
  const usdc = base.quote('USDC');
  const amountIn = 50n * 10n ** 6n;
  const { params, predicted } = await base.launchParams(creator, { quote: usdc });
  const buy = {
    fundingToken: usdc,
    amountIn,
    minAmountOut: 1n,
    routeData: routeData(usdc, predicted, base.current.hook),
  };
  const steps = [];
  if (approve) {
    steps.push({
      id: 'approve-launch-buy',
      label: 'Approve USDC',
      depends_on: [],
      to: usdc,
      data: encodeFunctionData({
        abi: ERC20,
        functionName: 'approve',
        args: [base.current.factory, amountIn],
      }),
    });
  }
  steps.push({
    id: 'create-launch',
    label: 'Create launch',
    depends_on: approve ? ['approve-launch-buy'] : [],
    to: base.current.factory,
    data: encodeFunctionData({ abi: FACTORY, functionName: 'createLaunchAndBuy', args: [params, buy] }),
    value: 10n ** 15n,
  });
  return { steps, predicted };
}

async function build(actor: Address, configure: (b: PlanBuilder) => void) {
  return withSnapshot(clients, 8453, async (snapshot) => {
    const builder = new PlanBuilder(snapshot, actor, { nowMs: Date.now(), lifetimeMs: 900_000 });
    configure(builder);
    return builder.build();
  });
}

describe('reads at inclusion time', () => {
  // A contract that answers block.timestamp (TIMESTAMP PUSH0 MSTORE PUSH1 32 PUSH0 RETURN).
  const CLOCK = '0x00000000000000000000000000000000000c10c0' as Address;
  const reads = [
    { address: CLOCK, abi: parseAbi(['function time() view returns (uint256)']), functionName: 'time' },
  ];
  const measure = () =>
    withSnapshot(clients, 8453, async (snapshot) => {
      const endpoint = clients.endpoints(8453)[0] as ReturnType<ChainClients['endpoints']>[number];
      const before = endpoint.roundTrips;
      const from = BigInt(Math.floor(Date.now() / 1000));
      const { results } = await snapshot.readWithBalances(reads, [], { atInclusionTime: true });
      return {
        trips: endpoint.roundTrips - before,
        seen: (results[0] as { value: bigint }).value,
        block: snapshot.timestamp,
        from,
        to: BigInt(Math.floor(Date.now() / 1000)),
      };
    });

  // First in the file: it needs the devnet's clock on the wall clock (anvil keeps any later offset).
  it('pin the block in the same round trip, and read again only when the block is later than the clock', async () => {
    await base.client.request({ method: 'anvil_setCode', params: [CLOCK, '0x425f5260205ff3'] } as never);
    // The devnet's clock on the wall clock: the calls see the wall clock, in one round trip.
    const head = await base.client.getBlock();
    const wait = Number(head.timestamp) * 1000 + 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const behind = await measure();
    expect(behind.block).toBeLessThanOrEqual(behind.from);
    expect(behind.seen).toBeGreaterThanOrEqual(behind.from);
    expect(behind.seen).toBeLessThanOrEqual(behind.to);
    expect(behind.trips).toBe(1);
    // The chain's clock jumps ahead of the wall clock: the calls see the pinned block's time, read
    // again once; then the chain's last block time is the estimate, and one round trip does again.
    await base.advance(1000);
    const ahead = await measure();
    expect(ahead.block).toBeGreaterThan(ahead.to);
    expect(ahead.seen).toBe(ahead.block);
    expect(ahead.trips).toBe(2);
    const again = await measure();
    expect(again.seen).toBe(again.block);
    expect(again.trips).toBe(1);
  });
});

describe('snapshot reads', () => {
  it('repeated reads decode alike, and a caller changing an answer does not change the next one', async () => {
    const usdc = base.quote('USDC');
    const reads = [
      { address: base.current.factory, abi: FACTORY, functionName: 'quoteConfig', args: [usdc] },
      { address: base.current.factory, abi: FACTORY, functionName: 'launchSupply' },
    ];
    const first = await withSnapshot(clients, 8453, (s) => s.readAll(reads));
    const [config, supply] = first as [[boolean, number, number], bigint];
    expect(config[0]).toBe(true);
    expect(config[1]).toBe(6);
    expect(typeof supply).toBe('bigint');
    config[1] = 99;
    const second = await withSnapshot(clients, 8453, (s) => s.readAll(reads));
    expect(second).toEqual([[true, 6, config[2]], supply]);
    expect(second[0]).not.toBe(config);
  });
});

describe('plan engine', () => {
  it('simulates approve-then-spend in order: step 2 succeeds only because of step 1', async () => {
    const creator = base.account(1);
    const { steps, predicted } = await launchAndBuySteps(creator, true);
    const plan = await build(creator, (b) => steps.forEach((s) => b.transaction(s)));
    const head = await base.client.getBlockNumber({ cacheTime: 0 });
    expect(plan).toMatchObject({
      chain_id: 8453,
      actor: creator,
      observed_block: head.toString(),
      issues: [],
    });
    expect(Date.parse(plan.expires_at) - Date.parse(plan.prepared_at)).toBeGreaterThan(899_000);
    for (const step of plan.steps) {
      const sim = step.simulation as {
        status: string;
        block_number: string;
        gas_used: string;
        gas_limit: string;
      };
      expect(sim.status).toBe('succeeded');
      expect(sim.block_number).toBe(head.toString());
      expect(BigInt(sim.gas_limit)).toBe((BigInt(sim.gas_used) * 120n + 99n) / 100n);
    }
    // Without the approval the same launch reverts in simulation, mapped to approval_not_confirmed.
    const alone = await launchAndBuySteps(creator, false);
    const err = await build(creator, (b) => alone.steps.forEach((s) => b.transaction(s))).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'approval_not_confirmed' });
    expect((err as ApiError).message).toMatch(/create-launch would revert: ERC20InsufficientAllowance/);

    // Sign and send the plan as the creator's wallet would, then check the chain.
    for (const step of plan.steps) {
      const tx = step.transaction as { from: Address; to: Address; data: `0x${string}`; value: string };
      await base.send(tx.from, tx.to, tx.data, BigInt(tx.value));
    }
    expect(await base.balance(predicted, creator)).toBeGreaterThan(0n);
  });

  it('marks steps that wait for a signature, and their dependants, not_run', async () => {
    const actor = base.account(2);
    const plan = await build(actor, (b) =>
      b
        .typedData({
          id: 'permit2-signature',
          label: 'Sign permit',
          depends_on: [],
          typed_data: {
            domain: { name: 'Permit2', chainId: 8453, verifyingContract: base.chain.uniswap.permit2 },
            types: { Thing: [{ name: 'amount', type: 'uint256' }] },
            primaryType: 'Thing',
            message: { amount: 5n },
          },
        })
        .transaction({
          id: 'swap',
          label: 'Swap',
          depends_on: ['permit2-signature'],
          to: base.quote('USDC'),
          data: '0xdeadbeef',
        })
        .issue('permit_required', 'Sign the permit first', {
          remediation_step_id: 'permit2-signature',
          required_raw: 5n,
        }),
    );
    expect(plan.steps.map((s) => [s.id, (s.simulation as { status: string }).status])).toEqual([
      ['permit2-signature', 'not_run'],
      ['swap', 'not_run'],
    ]);
    expect((plan.steps[0] as { typed_data: { message: { amount: string } } }).typed_data.message.amount).toBe(
      '5',
    );
    expect(plan.issues).toEqual([
      {
        code: 'permit_required',
        severity: 'action_required',
        detail: 'Sign the permit first',
        remediation_step_id: 'permit2-signature',
        required_raw: '5',
      },
    ]);
  });

  it('decodes reverts: custom errors with arguments, through the router and the PoolManager', async () => {
    const creator = base.account(3);
    const { params } = await base.launchParams(creator);
    const stale = await build(creator, (b) =>
      b.transaction({
        id: 'create-launch',
        label: 'Create launch',
        depends_on: [],
        to: base.current.factory,
        data: encodeFunctionData({
          abi: FACTORY,
          functionName: 'createLaunch',
          args: [{ ...params, expectedConfigVersion: 1n }],
        }),
        value: 10n ** 15n,
      }),
    ).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'stale_plan', extras: { revert: 'StaleConfig' } });
    expect((stale as Error).message).toMatch(/StaleConfig\(1, \d+\)/);

    // A buy demanding more than the pool gives: V4TooLittleReceived inside the router's ExecutionFailed.
    const { key } = await base.launch(creator);
    await base.advance(21);
    const swap = base.swapCall(key, zeroAddress, 10n ** 16n, { minOut: 10n ** 30n });
    const trader = base.account(4);
    const tooLittle = await build(trader, (b) =>
      b.transaction({
        id: 'swap',
        label: 'Swap',
        depends_on: [],
        to: base.chain.uniswap.universal_router,
        data: swap.data,
        value: swap.value,
      }),
    ).catch((e: unknown) => e);
    expect(tooLittle).toMatchObject({ code: 'stale_quote', extras: { revert: 'V4TooLittleReceived' } });

    const reason = encodeErrorResult({
      abi: parseAbi(['error Error(string)']),
      errorName: 'Error',
      args: ['hi'],
    });
    expect(decodeRevert(reason)).toMatchObject({ name: 'Error', text: 'Error("hi")' });
    expect(decodeRevert('0x12345678')).toMatchObject({ name: 'unknown' });
  });

  it('a plan whose suite configuration changed is stale', async () => {
    const version = await base.read<bigint>(base.current.factory, FACTORY, 'configVersion');
    await withSnapshot(clients, 8453, (s) => assertConfigVersion(s, base.current.factory, version));
    await base.call(base.account(0), base.current.factory, FACTORY, 'setNativeLaunchFee', [10n ** 15n]);
    const err = await withSnapshot(clients, 8453, (s) =>
      assertConfigVersion(s, base.current.factory, version),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'stale_plan' });
  });
});
