// GET /v1/config over real HTTP against the devnet: every section and query rule, as_of_block
// consistency, the RPC failure mapping and provider quorum.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Abi, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LaunchFactoryAbi } from '../contracts/artifacts/index.ts';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { TestChain } from './support/chain.ts';
import { call, expectProblem, startGateway, type TestGateway, tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';
import { type RpcBody, type RpcProxy, startRpcProxy } from './support/rpcProxy.ts';

const FACTORY = LaunchFactoryAbi as Abi;
let devnet: Devnet;
let dataDir: string;
let base: TestChain;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  dataDir = tempDir();
  // No empty blocks: the tests count blocks and round trips, and a block mined on the devnet's own
  // clock between two requests would move as_of_block by two.
  devnet = await startDevnet({ dataDir, basePort: await freePortRange(4), blockTimeS: 0 });
  base = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
}, 60_000);
afterAll(() => devnet?.stop());
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

/** A gateway on the devnet, each chain behind its own counting proxy. */
async function gateway(env: Record<string, string> = {}) {
  const proxies: Record<number, RpcProxy> = {};
  const rpcEnv: Record<string, string> = {};
  for (const c of devnet.chains) {
    const p = await startRpcProxy(c.rpc_url);
    open.push(p);
    proxies[c.chain_id] = p;
    rpcEnv[`RPC_URL_${c.chain_id}`] = p.url;
  }
  // Health's background probe asks each chain once at start (awaited here) and not again in the test, so
  // the proxies count only what the requests under test cost.
  const gw = await startGateway({
    MANIFESTS_DIR: join(dataDir, 'deployments'),
    HEALTH_PROBE_MS: '3600000',
    ...rpcEnv,
    ...env,
  });
  open.push(gw);
  await call(gw, '/v1/health');
  for (const p of Object.values(proxies)) p.bodies.length = 0;
  return { gw, key: await gw.createKey(), proxies };
}

const get = async (gw: TestGateway, key: string, query: string) => call(gw, `/v1/config?${query}`, { key });

describe('GET /v1/config against the devnet', () => {
  it('serves every section, read live at one block, by default', async () => {
    const { gw, key, proxies } = await gateway();
    const r = await get(gw, key, 'chain_id=8453');
    expect(r.status).toBe(200);
    const d = r.json.data;
    expect(d.chain).toEqual({
      chain_id: 8453,
      name: 'Base',
      native_currency: { symbol: 'ETH', decimals: 18 },
      capabilities: { launch_token_mode: 'b20', b20_asset_status: 'active' },
    });
    expect(d.supported_chain_ids).toEqual([8453, 4663, 143, 5042]);
    expect(d.as_of_block).toMatch(/^[1-9][0-9]*$/);
    // active_only (default): the current suite only, every quote usable.
    expect(d.suites.map((s: { id: string }) => s.id)).toEqual(['base-devnet-launchpad-v4-minimal']);
    const suite = d.suites[0];
    const c = base.current;
    // The production clients' names beside the spec's (REFERENCE §7).
    expect(suite.contracts.permit2).toBe(suite.contracts.permit);
    expect(suite).toMatchObject({
      version: 'launchpad-v4-minimal',
      chain_id: 8453,
      route: 'standard',
      supported_routes: ['rwa', 'standard'],
      active_for_creation: true,
      creation_available: true,
      token_mode: 'b20',
      launch_product: 'non-tax',
      launch_supply_raw: '1000000000000000000000000000',
      launch_creation_enabled: true,
      launch_buy_adapter_address: c.launch_buy_adapter,
      creation_fee: { amount_raw: '1000000000000000', currency: zeroAddress, symbol: 'ETH', decimals: 18 },
      contracts: {
        factory: c.factory,
        hook: c.hook,
        fee_escrow: c.fee_escrow,
        announcement_registry: c.announcement_registry,
        pool_manager: base.chain.uniswap.pool_manager,
        state_view: base.chain.uniswap.state_view,
        quoter: base.chain.uniswap.quoter,
        universal_router: base.chain.uniswap.universal_router,
        permit: base.chain.uniswap.permit2,
      },
      capabilities: {
        launch_creation_fee: true,
        announcements: true,
        editable_metadata: true,
        vesting: false,
        creator_rights: true,
        atomic_launch_buy: true,
        generic_fee_components: true,
        quote_revisions: true,
        launch_creation_switch: true,
      },
    });
    const version = await base.read<bigint>(c.factory, FACTORY, 'configVersion');
    expect(suite.config_version).toBe(version.toString());
    expect(d.quotes.map((q: { symbol: string; route: string }) => `${q.symbol}:${q.route}`)).toEqual([
      'ETH:standard',
      'WETH:standard',
      'USDC:standard',
      'DSTK:rwa',
    ]);
    const usdc = d.quotes.find((q: { symbol: string }) => q.symbol === 'USDC');
    expect(usdc).toMatchObject({
      address: base.quote('USDC'),
      decimals: 6,
      asset_type: 'stablecoin',
      issuer: null,
      suite_id: 'base-devnet-launchpad-v4-minimal',
      registered: true,
      selectable: true,
      quote_revision: '1',
    });
    // One round trip: the head block, every read at `latest`, and the head again; both heads are the
    // block reported as as_of_block, so every read ran at it.
    const p = proxies[8453] as RpcProxy;
    expect(p.bodies.length).toBe(1);
    const batch = p.bodies[0] as { method: string; params: unknown[] }[];
    // The two head reads, 7 suite reads, 2 per quote and the B20 activation read.
    expect(batch.length).toBe(2 + 7 + 2 * 4 + 1);
    expect([batch[0]?.method, batch.at(-1)?.method]).toEqual([
      'eth_getBlockByNumber',
      'eth_getBlockByNumber',
    ]);
    for (const c of batch.slice(1, -1)) expect([c.method, c.params.at(-1)]).toEqual(['eth_call', 'latest']);
    const head = await base.client.getBlock({ blockNumber: BigInt(d.as_of_block) });
    expect(head.number).toBe(BigInt(d.as_of_block));
  });

  it('include selects sections; a chain-only request reads nothing live', async () => {
    const { gw, key, proxies } = await gateway();
    const chains = await get(gw, key, 'chain_id=8453&include=chains');
    expect(Object.keys(chains.json.data).sort()).toEqual(['chain', 'supported_chain_ids']);
    expect((proxies[8453] as RpcProxy).bodies.length).toBe(0);
    // The chain-only answer is serialized once per chain and reused: each answer has its own meta.
    const again = await get(gw, key, 'chain_id=8453&include=chains');
    expect(again.json.data).toEqual(chains.json.data);
    expect(chains.json.data.chain).toMatchObject({ chain_id: 8453, name: 'Base' });
    expect(again.json.meta.request_id).not.toBe(chains.json.meta.request_id);
    expect(again.json.meta.request_id).toBe(again.headers.get('x-request-id'));
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await get(gw, key, 'chain_id=5042&include=chains')).json.data.chain.chain_id).toBe(5042);
    const suites = await get(gw, key, 'chain_id=8453&include=suites');
    expect(Object.keys(suites.json.data).sort()).toEqual([
      'as_of_block',
      'chain',
      'suites',
      'supported_chain_ids',
    ]);
    const quotes = await get(gw, key, 'chain_id=4663&include=quotes,chains');
    expect(Object.keys(quotes.json.data).sort()).toEqual([
      'as_of_block',
      'chain',
      'quotes',
      'supported_chain_ids',
    ]);
    expect(quotes.json.data.quotes.map((q: { symbol: string }) => q.symbol)).toEqual([
      'ETH',
      'WETH',
      'USDG',
      'DSTK',
    ]);
    // Units: 1 for chains only, 5 for crypto-paired, 20 for stock-paired or market=all. Only the
    // minute window binds this key, so X-RateLimit-Remaining counts its units.
    const metered = await gw.createKey({
      plan: 'builder',
      overrides: { burstPerSecond: 1e9, daily: 1e9, monthly: 1e9 },
    });
    const remaining = async (query: string) =>
      Number((await get(gw, metered, query)).headers.get('x-ratelimit-remaining'));
    const a = await remaining('chain_id=143&include=chains');
    const b = await remaining('chain_id=143&include=chains');
    const c = await remaining('chain_id=143&market=standard');
    const d = await remaining('chain_id=143');
    expect([a - b, b - c, c - d]).toEqual([1, 5, 20]);
  });

  it('market filters suites and quotes; launch_product selects the tax suites (none here)', async () => {
    const { gw, key } = await gateway();
    const standard = (await get(gw, key, 'chain_id=8453&market=standard')).json.data;
    expect(standard.suites[0].route).toBe('standard');
    expect(standard.quotes.map((q: { symbol: string }) => q.symbol)).toEqual(['ETH', 'WETH', 'USDC']);
    const rwa = (await get(gw, key, 'chain_id=8453&market=rwa')).json.data;
    expect(rwa.suites[0].route).toBe('rwa');
    expect(rwa.quotes.map((q: { symbol: string }) => q.symbol)).toEqual(['DSTK']);
    // Monad and Arc take the standard market only.
    expect((await get(gw, key, 'chain_id=5042&market=rwa')).json.data).toMatchObject({
      suites: [],
      quotes: [],
    });
    const arc = (await get(gw, key, 'chain_id=5042')).json.data;
    expect(arc.quotes.map((q: { symbol: string; decimals: number }) => `${q.symbol}:${q.decimals}`)).toEqual([
      'USDC:6',
    ]);
    expect(arc.suites[0].creation_fee).toEqual({
      amount_raw: '2000000000000000000',
      currency: zeroAddress,
      symbol: 'USDC',
      decimals: 18,
    });
    // Monad's devnet suite charges its launch fee in an ERC-20 (USDC), read live from the factory.
    const monad = (await get(gw, key, 'chain_id=143')).json.data;
    expect(monad.suites[0].capabilities.launch_creation_fee).toBe(true);
    const usdc = devnet.chains[2]?.quotes.find((q) => q.symbol === 'USDC')?.address;
    expect(monad.suites[0].creation_fee).toEqual({
      amount_raw: '5000000',
      currency: usdc,
      symbol: 'USDC',
      decimals: 6,
    });
    // The tax product: the reference inclusive tax suite, its static facts and its live policy.
    const tax = (await get(gw, key, 'chain_id=8453&launch_product=tax')).json.data;
    const taxSuite = base.chain.suites.find((s) => s.launch_product === 'tax');
    expect(tax.suites).toHaveLength(1);
    expect(tax.suites[0]).toMatchObject({
      id: taxSuite?.id,
      launch_product: 'tax',
      token_mode: 'erc20',
      tax_format: 'inclusive',
      dividend_claims: { kind: 'permissionless' },
      dividend_accounting: 'allocation-time',
      zero_eligible_dividend_policy: 'protocol-recipient',
      creation_available: true,
      contracts: { dividend_distributor: taxSuite?.contracts.dividend_distributor },
      tax_policy: {
        format: 'inclusive',
        percentage_scale: '100000000',
        rate_scale: '1000000000000000000000000',
        tax_fee_bounds: {
          minimum_buy_tax_rate: '1000000',
          maximum_buy_tax_rate: '10000000',
          minimum_sell_tax_rate: '1000000',
          maximum_sell_tax_rate: '10000000',
        },
        protocol_fee_configuration: {
          protocol_tax_share: '10000000',
          minimum_protocol_fee_rate: '500000',
          maximum_protocol_fee_rate: '1000000',
          protocol_fee_recipient: base.chain.accounts[9],
        },
        anti_snipe_configuration: { start_total_fee_rate: '99000000', window_seconds: 20 },
        minimum_dividend_holding_requirement_raw: (10_000n * 10n ** 18n).toString(),
      },
    });
    expect(tax.quotes.every((q: { suite_id: string }) => q.suite_id === taxSuite?.id)).toBe(true);
    expect(tax.quotes.map((q: { address: string }) => q.address)).toContain(zeroAddress);
    expect(tax.as_of_block).toMatch(/^\d+$/);
  });

  it('active_only=false adds historical suites and quotes that cannot create launches', async () => {
    const { gw, key } = await gateway();
    const all = (await get(gw, key, 'chain_id=8453&active_only=false')).json.data;
    const historical = all.suites.find((s: { id: string }) => s.id === 'base-devnet-timestamp-v2');
    expect(historical).toMatchObject({
      version: 'timestamp-v2',
      active_for_creation: false,
      creation_available: false,
      launch_creation_enabled: false,
      contracts: { vesting_vault: base.chain.suites[1]?.contracts.vesting_vault },
      capabilities: { vesting: true, atomic_launch_buy: false, launch_creation_fee: true },
    });
    const historicalQuotes = all.quotes.filter((q: { suite_id: string }) => q.suite_id === historical.id);
    expect(
      historicalQuotes.map((q: { symbol: string; creation_fee: { amount_raw: string; symbol: string } }) => [
        q.symbol,
        q.creation_fee.amount_raw,
        q.creation_fee.symbol,
      ]),
    ).toEqual([
      ['ETH', '1000000000000000', 'ETH'],
      ['USDC', '1000000', 'USDC'],
    ]);
  });

  it('follows the chain: an unregistered quote and a closed factory drop out of active_only', async () => {
    const { gw, key } = await gateway({});
    const chain = new TestChain(devnet.chains[1] as Devnet['chains'][number]); // 4663
    const factory = chain.current.factory;
    const owner = chain.account(0);
    const weth = chain.chain.uniswap.weth;
    const before = (await get(gw, key, 'chain_id=4663')).json.data;
    await chain.call(owner, factory, FACTORY, 'unregisterQuote', [weth]);
    const after = (await get(gw, key, 'chain_id=4663')).json.data;
    expect(BigInt(after.suites[0].config_version)).toBe(BigInt(before.suites[0].config_version) + 1n);
    expect(after.quotes.map((q: { symbol: string }) => q.symbol)).toEqual(['ETH', 'USDG', 'DSTK']);
    const all = (await get(gw, key, 'chain_id=4663&active_only=false')).json.data;
    expect(all.quotes.find((q: { symbol: string }) => q.symbol === 'WETH')).toMatchObject({
      registered: false,
      quote_revision: '2',
    });

    await chain.call(owner, factory, FACTORY, 'setLaunchCreationEnabled', [false]);
    const closed = (await get(gw, key, 'chain_id=4663')).json.data;
    expect(closed.suites[0]).toMatchObject({ launch_creation_enabled: false, creation_available: false });
    expect(closed.quotes).toEqual([]);
    await chain.call(owner, factory, FACTORY, 'setLaunchCreationEnabled', [true]);
  });

  it('reads every value at as_of_block, even when the chain moves during the request', async () => {
    // Two providers: the gateway pins a block by quorum first, then reads. A governance change lands in
    // a new block between the pin and the reads; the answer still holds the pinned block's values.
    const chain = devnet.chains[0] as Devnet['chains'][number];
    const [a, b] = await Promise.all([startRpcProxy(chain.rpc_url), startRpcProxy(chain.rpc_url)]);
    open.push(a, b);
    const quorum = await startGateway({
      MANIFESTS_DIR: join(dataDir, 'deployments'),
      RPC_URL_8453: `${a.url},${b.url}`,
    });
    open.push(quorum);
    const key = await quorum.createKey();
    const owner = base.account(0);
    const fee = await base.read<bigint>(base.current.factory, FACTORY, 'nativeLaunchFee');
    const moveChain = async (body: RpcBody) => {
      if (!Array.isArray(body) || body.length < 3) return;
      a.before = undefined;
      b.before = undefined;
      await base.call(owner, base.current.factory, FACTORY, 'setNativeLaunchFee', [fee + 1n]);
    };
    a.before = moveChain;
    b.before = moveChain;
    const first = (await get(quorum, key, 'chain_id=8453&include=suites')).json.data;
    const version = BigInt(first.suites[0].config_version);
    expect(first.suites[0].creation_fee.amount_raw).toBe(fee.toString());
    // The chain did move on: the next answer is at the next block, with the new values.
    const second = (await get(quorum, key, 'chain_id=8453&include=suites')).json.data;
    expect(BigInt(second.as_of_block)).toBe(BigInt(first.as_of_block) + 1n);
    expect(second.suites[0].creation_fee.amount_raw).toBe((fee + 1n).toString());
    expect(BigInt(second.suites[0].config_version)).toBe(version + 1n);
    // With one provider, the values are those of the chain at the reported block.
    const { gw: single, key: key1 } = await gateway();
    const third = (await get(single, key1, 'chain_id=8453&include=suites')).json.data;
    const at = BigInt(third.as_of_block);
    const feeAt = await base.client.readContract({
      address: base.current.factory,
      abi: FACTORY,
      functionName: 'nativeLaunchFee',
      blockNumber: at,
    });
    expect(third.suites[0].creation_fee.amount_raw).toBe(String(feeAt));
    await base.call(owner, base.current.factory, FACTORY, 'setNativeLaunchFee', [fee]);
  });

  it('retries once at a new block when the pinned block is reorganised away, then gives up', async () => {
    const { gw, key, proxies } = await gateway();
    const p = proxies[8453] as RpcProxy;
    let reorgs = 1;
    // The head read after the batch (first attempt), or the check of the pinned block, sees another hash.
    p.transform = (body, answer) => {
      if (!Array.isArray(body) || reorgs === 0) return answer;
      reorgs--;
      const items = answer as { result: { hash: string } | null }[];
      const last = items.at(-1) as { result: { hash: string } };
      last.result = { ...last.result, hash: `0x${'ab'.repeat(32)}` };
      return items;
    };
    const ok = await get(gw, key, 'chain_id=8453&include=suites');
    expect(ok.status).toBe(200);
    expect(p.bodies.length).toBe(3); // reads (the head moved), pin, reads at the pinned block
    reorgs = 2;
    expectProblem(await get(gw, key, 'chain_id=8453&include=suites'), 503, 'temporarily_unavailable');
  });
});

describe('RPC failures', () => {
  it('a stalled RPC is upstream_timeout, garbage is upstream_error, a dead one temporarily_unavailable', async () => {
    const { gw, key, proxies } = await gateway({ RPC_TIMEOUT_MS: '300' });
    const p = proxies[8453] as RpcProxy;
    p.mode = 'stall';
    const stalled = expectProblem(await get(gw, key, 'chain_id=8453'), 504, 'upstream_timeout');
    expect(stalled.chain_id).toBe(8453);
    p.mode = 'garbage';
    expectProblem(await get(gw, key, 'chain_id=8453'), 502, 'upstream_error');
    p.mode = 'pass';
    expect((await get(gw, key, 'chain_id=8453')).status).toBe(200);
    await p.close();
    const down = expectProblem(await get(gw, key, 'chain_id=8453'), 503, 'temporarily_unavailable');
    expect(down.detail).not.toContain('127.0.0.1');
    // The other chains are unaffected.
    expect((await get(gw, key, 'chain_id=4663')).status).toBe(200);
  });

  it('a garbage answer to the read batch is upstream_error, never an older snapshot', async () => {
    const { gw, key, proxies } = await gateway();
    const p = proxies[8453] as RpcProxy;
    p.transform = (body, answer) => (Array.isArray(body) ? { not: 'a batch' } : answer);
    expectProblem(await get(gw, key, 'chain_id=8453'), 502, 'upstream_error');
  });

  it('with several providers, two must agree on the pinned block', async () => {
    const chain = devnet.chains[0] as Devnet['chains'][number];
    const [a, b, liar] = await Promise.all([
      startRpcProxy(chain.rpc_url),
      startRpcProxy(chain.rpc_url),
      startRpcProxy(chain.rpc_url),
    ]);
    open.push(a, b, liar);
    liar.transform = (_body, answer) => {
      const o = answer as { result?: { hash?: string } };
      if (o?.result?.hash) o.result.hash = `0x${'cd'.repeat(32)}`;
      return answer;
    };
    const env = { MANIFESTS_DIR: join(dataDir, 'deployments') };
    const agreeing = await startGateway({ ...env, RPC_URL_8453: `${liar.url},${a.url},${b.url}` });
    open.push(agreeing);
    expect((await get(agreeing, await agreeing.createKey(), 'chain_id=8453&include=suites')).status).toBe(
      200,
    );
    const split = await startGateway({ ...env, RPC_URL_8453: `${liar.url},${a.url}` });
    open.push(split);
    const p = expectProblem(
      await get(split, await split.createKey(), 'chain_id=8453&include=suites'),
      503,
      'temporarily_unavailable',
    );
    expect(p.detail).toMatch(/do not agree/);
  });

  it('a current suite whose factory does not answer as the manifest says is upstream_error', async () => {
    const dir = tempDir();
    cpSync(join(dataDir, 'deployments'), dir, { recursive: true });
    const file = join(dir, 'devnet-143.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.suites[0].contracts.factory = '0x000000000000000000000000000000000000dEaD';
    writeFileSync(file, JSON.stringify(manifest));
    const { gw, key } = await gateway({ MANIFESTS_DIR: dir });
    expectProblem(await get(gw, key, 'chain_id=143'), 502, 'upstream_error');
  });
});
