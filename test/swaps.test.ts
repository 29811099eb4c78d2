// Swaps end to end on the devnet: quote and prepare over HTTP, approvals and Permit2 signatures made by
// devnet accounts, the swap sent and its output and fees checked on chain; and every refusal.
import { type Abi, type Address, createWalletClient, type Hex, http, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeeEscrowAbi, LaunchFactoryAbi } from '../contracts/artifacts/index.ts';
import type { Devnet } from '../src/devnet/devnet.ts';
import { TestChain } from './support/chain.ts';
import { call, expectProblem, startGateway, type TestGateway, tempDir } from './support/gateway.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let env: DevnetGateway;
let devnet: Devnet;
let gw: TestGateway;
let key: string;
let base: TestChain;

let dataDir: string;

beforeAll(async () => {
  env = await startDevnetGateway();
  ({ devnet, gw, key, dataDir } = env);
  base = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
}, 60_000);
afterAll(() => env?.close());

const post = (path: string, body: unknown) => {
  gw.clock.advance(2_000); // out of the per-wallet per-minute ceilings' way over a long test
  return call(gw, path, { key, method: 'POST', body });
};
const quote = (body: Record<string, unknown>) =>
  post('/v1/swaps/quote', { chain_id: 8453, slippage_bps: 100, ...body });
const owed = (who: Address, currency: Address) =>
  base.read<bigint>(base.current.fee_escrow, FeeEscrowAbi as Abi, 'owed', [who, currency]);

/** Signs a quote step's typed data as the (unlocked) wallet, through eth_signTypedData_v4. */
async function sign(
  wallet: Address,
  step: { typed_data: { domain: object; types: object; primaryType: string; message: object } },
) {
  const client = createWalletClient({ transport: http(base.chain.rpc_url) });
  const t = step.typed_data;
  return client.signTypedData({
    account: wallet,
    domain: t.domain,
    types: t.types,
    primaryType: t.primaryType,
    message: t.message,
  } as never);
}

/** Sends the quote's prerequisite transactions, signs its permit, prepares, sends the swap. */
async function swap(
  wallet: Address,
  q: {
    json: {
      data: {
        quote_id: string;
        steps: { id: string; kind: string; transaction?: { to: Address; data: Hex; value: string } }[];
      };
    };
  },
) {
  let signature: Hex | undefined;
  for (const step of q.json.data.steps) {
    if (step.kind === 'transaction' && step.transaction)
      await base.send(wallet, step.transaction.to, step.transaction.data, BigInt(step.transaction.value));
    else signature = await sign(wallet, step as never);
  }
  if (signature) {
    // permit_signature and its deprecated alias permit2_signature must agree when both are sent.
    const other = `${signature.slice(0, -2)}${signature.endsWith('1c') ? '1b' : '1c'}`;
    const both = await post('/v1/swaps/prepare', {
      quote_id: q.json.data.quote_id,
      wallet,
      permit_signature: signature,
      permit2_signature: other,
    });
    expectProblem(both, 400, 'incompatible_parameters');
  }
  const p = await post('/v1/swaps/prepare', {
    quote_id: q.json.data.quote_id,
    wallet,
    ...(signature ? { permit_signature: signature, permit2_signature: signature } : {}),
  });
  expect(p.status, p.body).toBe(200);
  expect(p.json.data.review.refreshed_expected_out_raw).toBe(p.json.data.refreshed_expected_out_raw);
  const tx = p.json.data.steps[0].transaction;
  return { prepared: p.json.data, receipt: await base.send(wallet, tx.to, tx.data, BigInt(tx.value)) };
}

async function launchedToken(quoteToken: Address = zeroAddress) {
  const launch = await base.launch(base.account(1), { quote: quoteToken });
  await base.advance(21);
  return launch.token;
}

describe('swaps', () => {
  // First: it needs the devnet's clock still on the wall clock (later tests move chain time ahead).
  it('prices at the time of inclusion: an idle chain does not freeze the anti-snipe surcharge', async () => {
    // A launch, then no block for two seconds: the pinned block is still the launch block (99%
    // surcharge), but a swap sent now lands later, when the surcharge has decayed.
    const launch = await base.launch(base.account(1));
    await new Promise((r) => setTimeout(r, 2_200));
    const trader = base.account(4);
    const q = await quote({
      wallet: trader,
      token_address: launch.token,
      side: 'buy',
      amount_in_raw: (10n ** 16n).toString(),
    });
    expect(q.status, q.body).toBe(200);
    // The surcharge warns; the longer the wait, the smaller the surcharge, so a slow run may also
    // warn of the price impact of the now larger buy. Nothing else may appear.
    const codes = (q.json.data.issues as { code: string }[]).map((i) => i.code);
    expect(codes.filter((c) => c !== 'high_price_impact')).toEqual(['anti_snipe_active']);
    // At the launch block's time the fee would be 9900 bps; two seconds on it has decayed.
    expect(q.json.data.fee.total_bps).toBeLessThan(9900);
    const before = await base.balance(launch.token, trader);
    await swap(trader, q);
    const got = (await base.balance(launch.token, trader)) - before;
    const expected = BigInt(q.json.data.expected_out_raw);
    expect(got).toBeGreaterThanOrEqual(BigInt(q.json.data.minimum_out_raw));
    // Priced at the launch block, the quote was about ten times too low; now only the second or two
    // between quote and block is left.
    expect(got).toBeLessThan(expected * 3n);
  });

  it('refuses to prepare a quote whose suite configuration changed since (stale_plan)', async () => {
    const token = await launchedToken();
    const trader = base.account(2);
    const q = await quote({ wallet: trader, token_address: token, side: 'buy', amount_in_raw: '1000000' });
    expect(q.status, q.body).toBe(200);
    // Any governance setter bumps the factory's configVersion; the same fee again changes nothing else.
    const factory = base.current.factory;
    const fee = await base.read<bigint>(factory, LaunchFactoryAbi as Abi, 'nativeLaunchFee');
    await base.call(base.account(0), factory, LaunchFactoryAbi as Abi, 'setNativeLaunchFee', [fee]);
    const p = await post('/v1/swaps/prepare', { quote_id: q.json.data.quote_id, wallet: trader });
    expect(expectProblem(p, 409, 'stale_plan').detail).toMatch(/configuration changed since the quote/);
    // A fresh quote prepares.
    const again = await quote({
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: '1000000',
    });
    expect(
      (await post('/v1/swaps/prepare', { quote_id: again.json.data.quote_id, wallet: trader })).status,
    ).toBe(200);
  });

  it("goes through the suite's dedicated swap router on Arc, and the Universal Router elsewhere", async () => {
    const arc = new TestChain(devnet.chains[3] as Devnet['chains'][number]);
    const dedicated = arc.chain.uniswap.swap_router as Address;
    expect(dedicated).toMatch(/^0x/);
    expect(dedicated).not.toBe(arc.chain.uniswap.universal_router);
    const usdc = arc.quote('USDC');
    const launch = await arc.launch(arc.account(1), { quote: usdc });
    await arc.advance(21);
    const trader = arc.account(2);
    const q = await quote({
      chain_id: 5042,
      wallet: trader,
      token_address: launch.token,
      side: 'buy',
      amount_in_raw: '1000000',
    });
    expect(q.status, q.body).toBe(200);
    expect(q.json.data.review.router).toBe(dedicated);
    // Permit2 approval, then the PermitSingle for the dedicated router.
    let signature: Hex | undefined;
    for (const step of q.json.data.steps) {
      if (step.kind === 'transaction')
        await arc.send(trader, step.transaction.to, step.transaction.data, BigInt(step.transaction.value));
      else {
        expect(step.typed_data.message.spender).toBe(dedicated);
        signature = await sign(trader, step);
      }
    }
    const p = await post('/v1/swaps/prepare', {
      quote_id: q.json.data.quote_id,
      wallet: trader,
      permit_signature: signature,
    });
    expect(p.status, p.body).toBe(200);
    const tx = p.json.data.steps[0].transaction;
    expect(tx.to).toBe(dedicated);
    const before = await arc.balance(launch.token, trader);
    await arc.send(trader, tx.to, tx.data, BigInt(tx.value));
    expect((await arc.balance(launch.token, trader)) - before).toBeGreaterThanOrEqual(
      BigInt(q.json.data.minimum_out_raw),
    );
  });

  it('quotes and swaps tokens of historical suites too, and says plainly when a token is of no suite', async () => {
    const vested = devnet.chains[0]?.vesting_launch?.token as Address;
    const trader = base.account(5);
    const q = await quote({
      wallet: trader,
      token_address: vested,
      side: 'buy',
      amount_in_raw: (10n ** 16n).toString(),
    });
    expect(q.status, q.body).toBe(200);
    expect(q.json.data.review.suite_id).toBe('base-devnet-timestamp-v2');
    const before = await base.balance(vested, trader);
    await swap(trader, q);
    expect((await base.balance(vested, trader)) - before).toBeGreaterThanOrEqual(
      BigInt(q.json.data.minimum_out_raw),
    );

    const stranger = await quote({
      wallet: trader,
      token_address: base.quote('USDC'),
      side: 'buy',
      amount_in_raw: '1000',
    });
    const problem = expectProblem(stranger, 404, 'not_found');
    expect(problem.detail).toContain('is not a token launched by a launchpad suite');
    // The spec's optional members, where they apply.
    expect(problem).toMatchObject({ resource: 'token', chain_id: 8453, token_address: base.quote('USDC') });
  });

  it('buys with the native quote; the output reaches the minimum and the referrer earns its share', async () => {
    const token = await launchedToken();
    const trader = base.account(2);
    const referrer = base.account(3);
    const amount = 10n ** 17n;
    const q = await quote({
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: amount.toString(),
      referrer,
      comment: 'gm',
    });
    expect(q.status, q.body).toBe(200);
    const d = q.json.data;
    expect(d).toMatchObject({
      side: 'buy',
      input_currency: zeroAddress,
      output_currency: token,
      issues: [],
      steps: [],
    });
    expect(d.fee).toMatchObject({
      total_bps: 100,
      amount_raw: (amount / 100n).toString(),
      currency: zeroAddress,
    });
    expect(BigInt(d.minimum_out_raw)).toBe((BigInt(d.expected_out_raw) * 9900n) / 10_000n);
    // Two minutes, in whole seconds.
    expect(Date.parse(d.expires_at) - gw.clock.now()).toBeGreaterThan(119_000);
    expect(Date.parse(d.expires_at) - gw.clock.now()).toBeLessThanOrEqual(120_000);
    const referrerBefore = await owed(referrer, zeroAddress);
    const { prepared } = await swap(trader, q);
    expect(prepared.steps[0]).toMatchObject({
      id: 'swap',
      kind: 'transaction',
      simulation: { status: 'succeeded' },
    });
    expect(prepared.steps[0].transaction).toMatchObject({
      to: base.chain.uniswap.universal_router,
      value: amount.toString(),
    });
    expect(prepared.review).toMatchObject({
      reviewed_minimum_out_raw: d.minimum_out_raw,
      execution_minimum_out_raw: d.minimum_out_raw,
      referrer,
      comment: 'gm',
    });
    const got = await base.balance(token, trader);
    // Nothing moved between quote and swap: the output is exactly what was quoted.
    expect(got).toBe(BigInt(d.expected_out_raw));
    expect((await owed(referrer, zeroAddress)) - referrerBefore).toBe(((amount / 100n) * 20n) / 100n);
  });

  it('buys with a stablecoin quote through approve + Permit2 signature, then sells through Permit2', async () => {
    const usdc = base.quote('USDC');
    const token = await launchedToken(usdc);
    const trader = base.account(4);
    const amount = 20n * 10n ** 6n;
    const q = await quote({
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: amount.toString(),
    });
    expect(q.status, q.body).toBe(200);
    expect(q.json.data.steps.map((s: { id: string; kind: string }) => `${s.id}:${s.kind}`)).toEqual([
      'approve-permit2:transaction',
      'permit2-signature:typed_data',
    ]);
    expect(q.json.data.issues.map((i: { code: string }) => i.code)).toEqual([
      'insufficient_allowance',
      'permit_required',
    ]);
    const permit = q.json.data.steps[1].typed_data;
    expect(permit.domain).toEqual({
      name: 'Permit2',
      chainId: 8453,
      verifyingContract: base.chain.uniswap.permit2,
    });
    expect(permit.message).toMatchObject({
      details: { token: usdc, amount: amount.toString(), nonce: 0 },
      spender: base.chain.uniswap.universal_router,
    });
    const creatorOwed = await owed(base.account(1), usdc);
    await swap(trader, q);
    const bought = await base.balance(token, trader);
    expect(bought).toBeGreaterThanOrEqual(BigInt(q.json.data.minimum_out_raw));
    expect((await owed(base.account(1), usdc)) - creatorOwed).toBe(amount / 100n / 2n);

    const sellAmount = bought / 2n;
    const s = await quote({
      wallet: trader,
      token_address: token,
      side: 'sell',
      amount_in_raw: sellAmount.toString(),
    });
    expect(s.status, s.body).toBe(200);
    expect(s.json.data.steps.map((x: { id: string }) => x.id)).toEqual([
      'approve-permit2',
      'permit2-signature',
    ]);
    const usdcBefore = await base.balance(usdc, trader);
    await swap(trader, s);
    expect((await base.balance(usdc, trader)) - usdcBefore).toBeGreaterThanOrEqual(
      BigInt(s.json.data.minimum_out_raw),
    );
    expect(await base.balance(token, trader)).toBe(bought - sellAmount);
  });

  it('refuses stale, tampered, foreign and mis-signed quotes, and a price moved past the floor', async () => {
    const usdc = base.quote('USDC');
    const token = await launchedToken(usdc);
    const trader = base.account(2);
    const other = base.account(3);
    const amount = (100n * 10n ** 6n).toString();
    const q = await quote({ wallet: trader, token_address: token, side: 'buy', amount_in_raw: amount });
    const id = q.json.data.quote_id as string;
    await base.send(trader, q.json.data.steps[0].transaction.to, q.json.data.steps[0].transaction.data, 0n);

    const tampered = id.replace(/\.([A-Za-z0-9_-])/, (m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expectProblem(
      await post('/v1/swaps/prepare', { quote_id: tampered, wallet: trader }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await post('/v1/swaps/prepare', { quote_id: id, wallet: other }),
      403,
      'wallet_not_authorized',
    );
    expectProblem(await post('/v1/swaps/prepare', { quote_id: id, wallet: trader }), 409, 'invalid_permit');
    const wrong = await sign(other, q.json.data.steps[1]);
    expectProblem(
      await post('/v1/swaps/prepare', { quote_id: id, wallet: trader, permit_signature: wrong }),
      409,
      'invalid_permit',
    );

    // Another account moves the price up beyond the 1% floor between quote and prepare.
    const good = await sign(trader, q.json.data.steps[1]);
    await base.approveForRouter(other, usdc);
    const key2 = (await import('../src/launchpad/pool.ts')).launchPoolKey(
      token,
      usdc,
      200,
      base.current.hook,
    );
    await base.swap(other, key2, usdc, 50_000n * 10n ** 6n);
    expectProblem(
      await post('/v1/swaps/prepare', { quote_id: id, wallet: trader, permit_signature: good }),
      409,
      'stale_quote',
    );

    const fresh = await quote({ wallet: trader, token_address: token, side: 'buy', amount_in_raw: amount });
    gw.clock.advance(121_000);
    expectProblem(
      await post('/v1/swaps/prepare', { quote_id: fresh.json.data.quote_id, wallet: trader }),
      409,
      'stale_quote',
    );
  });

  it('warns during the anti-snipe window and refuses bad quote requests', async () => {
    const launch = await base.launch(base.account(1));
    const trader = base.account(2);
    const q = await quote({
      wallet: trader,
      token_address: launch.token,
      side: 'buy',
      amount_in_raw: '1000000000000000',
      slippage_bps: 2000,
    });
    expect(q.status, q.body).toBe(200);
    expect(q.json.data.fee.total_bps).toBeGreaterThan(100);
    expect(q.json.data.issues.map((i: { code: string }) => i.code)).toEqual([
      'anti_snipe_active',
      'high_slippage',
    ]);

    const ok = { wallet: trader, token_address: launch.token, side: 'buy', amount_in_raw: '1000' };
    expectProblem(await quote({ ...ok, amount_in_raw: '0' }), 422, 'invalid_amount');
    expectProblem(await quote({ ...ok, referrer: trader }), 422, 'invalid_referrer');
    expectProblem(await quote({ ...ok, referrer: base.account(1) }), 422, 'invalid_referrer');
    expectProblem(await quote({ ...ok, comment: 'x'.repeat(33) }), 400, 'invalid_parameter');
    expectProblem(await quote({ ...ok, slippage_bps: 0 }), 400, 'invalid_parameter');
    expectProblem(await quote({ ...ok, token_address: base.quote('USDC') }), 404, 'not_found');
    expectProblem(await quote({ ...ok, side: 'hold' }), 400, 'invalid_parameter');
    const poor = '0x000000000000000000000000000000000000bEEF';
    const broke = await quote({ ...ok, wallet: poor });
    expect(broke.json.data.issues[0]).toMatchObject({ code: 'insufficient_balance', severity: 'blocking' });
  });

  it('gives no quote past the price-impact bound, and none where only a dedicated router exists', async () => {
    const token = await launchedToken();
    const trader = base.account(2);
    // 10,000 ETH into a pool priced at a few ETH moves the price far beyond 50%.
    const huge = await quote({
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: (10n ** 22n).toString(),
    });
    expectProblem(huge, 422, 'quote_unavailable');

    // A suite whose manifest names only a dedicated swap router (as production Arc does).
    const dir = tempDir();
    cpSync(join(dataDir, 'deployments'), dir, { recursive: true });
    const file = join(dir, 'devnet-8453.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.suites[0].contracts.swap_router = manifest.suites[0].contracts.universal_router;
    delete manifest.suites[0].contracts.universal_router;
    writeFileSync(file, JSON.stringify(manifest));
    const other = await startGateway({ MANIFESTS_DIR: dir, RPC_URL_8453: base.chain.rpc_url });
    try {
      const r = await call(other, '/v1/swaps/quote', {
        key: await other.createKey(),
        method: 'POST',
        body: {
          chain_id: 8453,
          wallet: trader,
          token_address: token,
          side: 'buy',
          amount_in_raw: '1000',
          slippage_bps: 100,
        },
      });
      expectProblem(r, 422, 'unsupported_operation');
    } finally {
      await other.close();
    }
  });
});
