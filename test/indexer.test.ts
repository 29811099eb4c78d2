// The index and its read routes against the devnet: launches, trades and announcements appear exactly
// as they happened on chain; pagination walks without duplicates or gaps; a reorg leaves only the
// surviving chain in the index.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Abi,
  type Address,
  getAddress,
  type Hex,
  hexToString,
  keccak256,
  numberToHex,
  parseAbi,
  stringToHex,
  toEventSelector,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  UsdPriceFeedAbi,
  AnnouncementRegistryAbi,
  FeeEscrowAbi,
  LaunchFactoryAbi,
  LaunchHookAbi,
} from '../contracts/artifacts/index.ts';
import { startIndexer } from '../src/indexer/indexer.ts';
import { Deployments } from '../src/launchpad/deployments.ts';
import { ChainClients } from '../src/chain/clients.ts';
import { UNISWAP } from '../src/chain/uniswap.ts';
import { launchPoolKey } from '../src/launchpad/pool.ts';
import { decimal, USD_SOURCE } from '../src/indexer/marketData.ts';
import { ERC20, TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  startDevnetGateway,
  startTestIndexer,
  waitIndexed,
} from './support/devnetGateway.ts';
import { expectDocumented } from './support/documented.ts';
import { call, expectProblem, freshPostgres } from './support/gateway.ts';
import { openDatabase } from '../src/store/db.ts';
import { listFeePositions } from '../src/operations/walletQueries.ts';
import { Cursors } from '../src/cursor.ts';
import { loadSettings } from '../src/settings.ts';
import { SORTABLE_ZERO } from '../src/store/amounts.ts';

let env: DevnetGateway;
let base: TestChain;
let indexer: ReturnType<typeof startIndexer>;
/**
 * How often the test's indexer refreshes market data: often enough for the tests' waits, and a period a
 * ranked walk fits in on a loaded machine (each refresh makes older ranked cursors cursor_stale).
 */
const REFRESH_MS = 250;

beforeAll(async () => {
  env = await startDevnetGateway();
  base = new TestChain(env.devnet.chains[0] as DevnetGateway['devnet']['chains'][number]);
  indexer = startTestIndexer(env.gw, env.devnet, [8453, 4663], REFRESH_MS);
}, 60_000);
afterAll(async () => {
  await indexer?.stop();
  await env?.close();
});

/** A 1×1 GIF, as a launch image. */
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/** A keyed GET; every 200 answer of a documented read must match its published schema. */
const get = async (path: string) => {
  const r = await call(env.gw, path, { key: env.key });
  if (r.status === 200) expectDocumented(path, r.json);
  return r;
};

/** Waits until the index has reached the chain's head (the indexer polls every 20 ms). */
const indexed = () => waitIndexed(env.gw, env.key, base.client, get);

/** Waits until market data has been refreshed at or past the chain's head (every REFRESH_MS here). */
async function refreshed(token: Address) {
  await indexed();
  const head = await base.client.getBlockNumber({ cacheTime: 0 });
  // Up to 30 s: a loaded CI machine can be slow, and this only waits, it asserts no time.
  for (let i = 0; i < 1500; i++) {
    const m = (await get(`/v1/tokens/8453/${token}?include=market`)).json.data.market_data;
    if (m.as_of_block !== null && BigInt(m.as_of_block) >= head) return m;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('market data was not refreshed');
}

/** The token's market row on chain 8453, if it has one. */
const marketRow = (token: Address) =>
  env.gw.database.db
    .selectFrom('token_market')
    .select('search_words')
    .where('chain_id', '=', 8453)
    .where('address', '=', token)
    .executeTakeFirst();

/** Every market row of chain 8453 has its token's search words (its row, not a copy of another's). */
async function expectMarketWords() {
  const db = env.gw.database.db;
  const rows = await db
    .selectFrom('token_market as m')
    .innerJoin('tokens as t', (j) =>
      j.onRef('t.chain_id', '=', 'm.chain_id').onRef('t.address', '=', 'm.address'),
    )
    .select(['t.search_words as token', 'm.search_words as market'])
    .where('m.chain_id', '=', 8453)
    .execute();
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.filter((r) => r.token !== r.market)).toEqual([]);
}

/**
 * Chain 8453's list in `sort` order walked two tokens a page is the whole list (read at once, limit 100)
 * with no duplicate and no gap, and has every token of the chain; a refresh meanwhile (cursor_stale, or
 * the order moved) starts it again.
 */
async function expectRankedWalk(sort: string) {
  const addresses = (r: { json: { data: { token: { address: Address } }[] } }) =>
    r.json.data.map((t) => t.token.address);
  const url = `/v1/tokens?chain_id=8453&sort=${sort}`;
  let whole: Address[] = [];
  let steps: Address[] = [];
  const refreshedAt = async () =>
    (
      await env.gw.database.db
        .selectFrom('market_state')
        .select('refreshed_at')
        .where('chain_id', '=', 8453)
        .executeTakeFirst()
    )?.refreshed_at;
  for (let attempt = 0; attempt < 20; attempt++) {
    // (Started right after a refresh, so that a loaded machine has the whole period between two
    // refreshes for the walk: the test's indexer refreshes every REFRESH_MS.)
    const before = await refreshedAt();
    for (let i = 0; i < REFRESH_MS && (await refreshedAt()) === before; i++)
      await new Promise((r) => setTimeout(r, 5));
    whole = addresses(await get(`${url}&limit=100`));
    steps = [];
    let cursor: string | null = null;
    do {
      const r = await get(`${url}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (r.status === 409) break;
      steps.push(...addresses(r));
      cursor = r.json.pagination.next_cursor;
    } while (cursor);
    if (!cursor && steps.join() === whole.join()) break;
  }
  expect(steps, sort).toEqual(whole);
  // Every token of the chain is ranked (they all have market data by now), priced or not.
  const launched = addresses(await get('/v1/tokens?chain_id=8453&sort=newest&limit=100'));
  expect(new Set(whole), sort).toEqual(new Set(launched));
}

/**
 * The token's holders as listed (one page of 100) against the chain at their as_of_block: each balance
 * is balanceOf there, they add up to the supply, and total_holders counts them.
 */
async function expectHoldersOnChain(token: Address) {
  const r = await get(`/v1/tokens/8453/${token}/holders?limit=100`);
  expect(r.status, r.body).toBe(200);
  expect(r.json.pagination.next_cursor).toBeNull();
  const rows = r.json.data as { address: Address; balance_raw: string }[];
  const at = BigInt(r.json.meta.as_of_block);
  expect(r.json.meta.indexed_through_block).toBe(r.json.meta.as_of_block);
  const onChain = await Promise.all(
    rows.map((h) =>
      base.client.readContract({
        address: token,
        abi: ERC20,
        functionName: 'balanceOf',
        args: [h.address],
        blockNumber: at,
      }),
    ),
  );
  expect(rows.map((h) => h.balance_raw)).toEqual(onChain.map(String));
  expect(rows.map((h) => BigInt(h.balance_raw)).reduce((a, b) => a + b, 0n)).toBe(
    BigInt(r.json.summary.total_supply_raw),
  );
  expect(r.json.summary.total_holders).toBe(rows.length);
  return rows;
}

describe('indexed reads', () => {
  const tokens: Address[] = [];
  let traded: Address;
  /** The historical suite's vested launch, made when the devnet started: the oldest token. */
  const vested = () => env.devnet.chains[0]?.vesting_launch?.token as Address;

  it('lists launches newest first, with their launch facts; detail with the pool; unknown → not_found', async () => {
    const first = await base.launch(base.account(1), { name: 'Alpha Dog', symbol: 'ADOG' });
    const second = await base.launch(base.account(1), {
      name: 'Beta Cat',
      symbol: 'BCAT',
      quote: base.quote('USDC'),
    });
    const third = await base.launch(base.account(2), { name: 'Gamma Fox', symbol: 'GFOX' });
    tokens.push(first.token, second.token, third.token);
    traded = first.token;
    await indexed();
    const r = await get('/v1/tokens?chain_id=8453');
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.map((t: { token: { address: string } }) => t.token.address)).toEqual([
      third.token,
      second.token,
      first.token,
      vested(), // historical suites are indexed too
    ]);
    expect(r.json.data[3].launch.suite_id).toBe('base-devnet-timestamp-v2');
    // Every list record carries market_data, the newest sort too (the alert bots' poll).
    for (const t of r.json.data) expect(['fresh', 'stale', 'pending']).toContain(t.market_data.data_status);
    expect(r.json.pagination).toEqual({ next_cursor: null });
    expect(r.json.data[1]).toMatchObject({
      chain_id: 8453,
      market: 'standard',
      token: { address: second.token, name: 'Beta Cat', symbol: 'BCAT', decimals: 18 },
      launch: {
        creator_address: base.account(1),
        pool_id: second.poolId,
        quote: { address: base.quote('USDC'), symbol: 'USDC', decimals: 6 },
        onchain: { transaction_hash: second.receipt.transactionHash },
        contracts: { hook_address: base.current.hook },
      },
    });
    const detail = await get(`/v1/tokens/8453/${first.token}?include=pool`);
    expect(detail.json.data.pool).toEqual({
      hook_address: base.current.hook,
      tick_spacing: 200,
      pool_id: first.poolId,
    });
    expectProblem(await get(`/v1/tokens/8453/${base.quote('USDC')}`), 404, 'not_found');
    const mine = await get(`/v1/creators/${base.account(1)}/tokens`);
    expect(mine.json.data.map((t: { token: { symbol: string } }) => t.token.symbol)).toEqual([
      'BCAT',
      'ADOG',
    ]);
    const search = async (q: string) =>
      (await get(`/v1/tokens/search?q=${encodeURIComponent(q)}`)).json.data.map(
        (t: { token: { symbol: string } }) => t.token.symbol,
      );
    expect(await search('fox')).toEqual(['GFOX']);
    expect(await search('alp')).toEqual(['ADOG']); // a prefix of a word
    expect(await search('Dog ALPHA')).toEqual(['ADOG']); // every word, any order and case
    expect(await search('beta dog')).toEqual([]);
    expect(await search('bcat')).toEqual(['BCAT']); // the symbol
    expect(await search(second.token)).toEqual(['BCAT']); // an address
    expect(await search('!!')).toEqual([]);
    expect((await get('/v1/tokens?chain_id=8453&market=rwa')).json.data).toEqual([]);
  });

  it('pages with signed cursors bound to their filters', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await get(
        `/v1/tokens?chain_id=8453&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status, r.body).toBe(200);
      seen.push(...r.json.data.map((t: { token: { address: string } }) => t.token.address));
      cursor = r.json.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...tokens].reverse().concat(vested()));
    const page = await get('/v1/tokens?chain_id=8453&limit=1');
    const next = encodeURIComponent(page.json.pagination.next_cursor);
    expectProblem(
      await get(`/v1/tokens?chain_id=8453&limit=1&sort=oldest&cursor=${next}`),
      409,
      'cursor_filter_mismatch',
    );
    expectProblem(await get(`/v1/tokens?chain_id=8453&cursor=c1.x.y`), 400, 'invalid_parameter');
  });

  it('records trades as the chain saw them, and announcements', async () => {
    await base.advance(21);
    const trader = base.account(2);
    const key = launchPoolKey(traded, zeroAddress, 200, base.current.hook);
    const buy = await base.swap(trader, key, zeroAddress, 10n ** 17n, {
      referrer: base.account(3),
      comment: 'first',
    });
    const [swap] = base.events(buy, UNISWAP.PoolManager().abi, 'Swap') as {
      amount0: bigint;
      amount1: bigint;
    }[];
    const registry = base.current.announcement_registry;
    const id = keccak256(stringToHex('hello'));
    await base.call(base.account(1), registry, AnnouncementRegistryAbi as Abi, 'postAnnouncement', [
      traded,
      id,
      'Hello',
      'https://example.org',
    ]);
    await indexed();
    const trades = await get(`/v1/tokens/8453/${traded}/trades`);
    expect(trades.json.data).toHaveLength(1);
    expect(trades.json.data[0]).toMatchObject({
      transaction_hash: buy.transactionHash,
      trader,
      side: 'buy',
      // A buy's input is what the pool took plus the hook fee: exactly what the trader paid.
      amount_in_raw: (10n ** 17n).toString(),
      amount_out_raw: (swap?.amount1 as bigint).toString(),
      fee_raw: (10n ** 15n).toString(),
      fee_currency: zeroAddress,
      referrer: base.account(3),
      comment: 'first',
    });
    // The fee split as the hook credited it, component by component; the parts add up to the fee.
    const credited = base.events(buy, LaunchHookAbi as Abi, 'FeeComponentCredited') as {
      componentId: Hex;
      recipient: Address;
      amount: bigint;
    }[];
    expect(credited.length).toBeGreaterThanOrEqual(3);
    expect(trades.json.data[0].fee_components).toEqual(
      credited.map((c) => ({
        component: hexToString(c.componentId).replace(/\0+$/, ''),
        recipient: c.recipient,
        amount_raw: c.amount.toString(),
      })),
    );
    expect(trades.json.data[0].fee_components.map((c: { component: string }) => c.component)).toEqual(
      expect.arrayContaining(['CREATOR', 'PLATFORM', 'REFERRER']),
    );
    expect(credited.reduce((sum, c) => sum + c.amount, 0n)).toBe(10n ** 15n);
    const announcements = await get(`/v1/tokens/8453/${traded}/announcements`);
    expect(announcements.json.data).toEqual([
      expect.objectContaining({
        announcement_id: id,
        creator: base.account(1),
        description: 'Hello',
        uri: 'https://example.org',
      }),
    ]);
  });

  it('adds refreshed market data to a token with include=market', async () => {
    const m = await refreshed(traded);
    const at = BigInt(m.as_of_block);
    const poolId = (await get(`/v1/tokens/8453/${traded}`)).json.data.launch.pool_id;
    const [sqrt] = (await base.client.readContract({
      address: base.chain.uniswap.state_view,
      abi: UNISWAP.StateView().abi,
      functionName: 'getSlot0',
      args: [poolId],
      blockNumber: at,
    })) as [bigint];
    // ETH is currency0 of every ETH pool: the token's price in ETH is 2^192 / sqrtPrice².
    // (In raw units per whole token, with 18 more digits: prices can be below one raw quote unit.)
    const perToken = ((1n << 192n) * 10n ** 36n) / (sqrt * sqrt);
    expect(m.price.quote).toBe(decimal(perToken, 36, 36));
    // ETH has a USD price: the devnet's ETH/USD feed (3,000 USD, 8 decimals), read at the refresh's block.
    const feedRound = await base.client.readContract({
      address: base.chain.native_usd_feed as Address,
      abi: UsdPriceFeedAbi as Abi,
      functionName: 'latestRoundData',
    });
    expect(m).toMatchObject({
      data_status: 'fresh',
      quote_price: {
        usd: 3000,
        updated_at: new Date(Number((feedRound as bigint[])[3]) * 1000).toISOString(),
      },
    });
    expect(m.price.usd).toBeCloseTo(Number(m.price.quote) * 3000, 12);
    expect(m.market_cap.quote).toBe(decimal((perToken * 10n ** 27n) / 10n ** 36n, 18, 2));
    // (the quote figure is shown to 2 places, the USD one computed from the exact amount)
    expect(Math.abs(m.market_cap.usd / (Number(m.market_cap.quote) * 3000) - 1)).toBeLessThan(0.01);
    expect(m.activity['24h']).toEqual({
      trades: 1,
      volume_quote_raw: (10n ** 17n).toString(),
      volume_usd: 300, // 0.1 ETH
    });
    expect(Date.parse(m.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    const usdc = (await get(`/v1/tokens/8453/${tokens[1]}?include=market,pool`)).json.data.market_data;
    expect(usdc.price.usd).toBe(Number(usdc.price.quote)); // a JSON number
    expect(usdc.price.usd).toBeLessThan(0.001); // the USDC start price of a launch
    expect(usdc.activity['1h']).toEqual({ trades: 0, volume_quote_raw: '0', volume_usd: 0 });
  });

  it('follows the native USD reference: every ETH-quoted token moves with it; unreadable, USD is null', async () => {
    const feed = base.chain.native_usd_feed as Address;
    const ethTokens = [traded, tokens[2] as Address]; // traded, and never traded
    const setAnswer = (usd: bigint) =>
      base.call(base.account(0), feed, UsdPriceFeedAbi as Abi, 'setAnswer', [usd * 10n ** 8n]);
    // The untraded token's row as the refresh last wrote it.
    await refreshed(tokens[2] as Address);
    const stored = () =>
      env.gw.database.db
        .selectFrom('token_market')
        .select(['updated_at', 'as_of_block'])
        .where('chain_id', '=', 8453)
        .where('address', '=', tokens[2] as Address)
        .executeTakeFirstOrThrow();
    const untouched = await stored();
    await setAnswer(4000n);
    try {
      // The untraded ETH token moves too, and its row is not rewritten: USD is applied when read.
      for (const token of ethTokens) {
        const m = await refreshed(token);
        expect(m.quote_price.usd, token).toBe(4000);
        expect(m.price.usd).toBeCloseTo(Number(m.price.quote) * 4000, 12);
        expect(Date.parse(m.updated_at)).toBeGreaterThan(Number(untouched.updated_at));
      }
      expect(await stored()).toEqual(untouched);
      const code = await base.client.getCode({ address: feed });
      await base.client.request({ method: 'anvil_setCode', params: [feed, '0x'] } as never);
      try {
        await base.advance(1);
        const m = await refreshed(traded);
        expect(m).toMatchObject({
          quote_price: { usd: null },
          price: { usd: null },
          market_cap: { usd: null },
        });
        expect(m.price.quote).not.toBeNull(); // the quote figures stay
        // ETH-quoted tokens now rank after the USDC ones, the pages of the list merging both.
        for (const sort of ['market_cap', 'liquidity']) await expectRankedWalk(sort);
        const list = await get('/v1/tokens?chain_id=8453&limit=5');
        expect(list.json.meta.warnings).toEqual([
          'Chain 8453: the native USD price feed could not be read at the last refresh; usd is null for native- and WETH-quoted tokens.',
        ]);
      } finally {
        await base.client.request({ method: 'anvil_setCode', params: [feed, code] } as never);
      }
    } finally {
      await setAnswer(3000n);
    }
    expect((await refreshed(traded)).quote_price.usd).toBe(3000);
    expect((await get('/v1/tokens?chain_id=8453&limit=5')).json.meta.warnings).toEqual([]);
  });

  it('ranks tokens by refreshed market data; a cursor from before a refresh is cursor_stale', async () => {
    const usdc = base.quote('USDC');
    const hook = base.current.hook;
    // Made by and traded by wallets the other tests do not look at.
    const busy = await base.launch(base.account(0), { name: 'Busy Bee', symbol: 'BUSY', quote: usdc });
    const calm = await base.launch(base.account(0), { name: 'Calm Cow', symbol: 'CALM', quote: usdc });
    await base.advance(21);
    const paid = new Map<Address, bigint>(); // what the Swap events moved into each pool, in USDC
    const swap = async (trader: Address, token: Address, amount: bigint) => {
      await base.approveForRouter(trader, usdc);
      const receipt = await base.swap(trader, launchPoolKey(token, usdc, 200, hook), usdc, amount);
      const [s] = base.events(receipt, UNISWAP.PoolManager().abi, 'Swap') as {
        amount0: bigint;
        amount1: bigint;
      }[];
      const quoteDelta = BigInt(token) < BigInt(usdc) ? (s?.amount1 as bigint) : (s?.amount0 as bigint);
      paid.set(token, (paid.get(token) ?? 0n) - quoteDelta);
    };
    // Three traders buy the busy token; one buys more of the calm one.
    for (const i of [0, 3, 4]) await swap(base.account(i), busy.token, 50n * 10n ** 6n);
    await swap(base.account(4), calm.token, 500n * 10n ** 6n);
    const m = await refreshed(busy.token);
    expect(m.liquidity.quote_raw).toBe((paid.get(busy.token) as bigint).toString());
    expect(m.activity['24h']).toEqual({ trades: 3, volume_quote_raw: '150000000', volume_usd: 150 });
    await refreshed(calm.token);

    const order = async (sort: string) => {
      const r = await get(`/v1/tokens?chain_id=8453&sort=${sort}&limit=100`);
      expect(r.status, r.body).toBe(200);
      return r.json.data as { token: { address: Address }; market_data: { updated_at: string } }[];
    };
    const addresses = (rows: { token: { address: Address } }[]) => rows.map((t) => t.token.address);
    // Ranked by USD across quote currencies (USDC at 1, ETH at its feed's price), highest first.
    type Row = { market_data: { activity: Record<string, { volume_usd: number }>; [k: string]: unknown } };
    const usdOf: Record<string, (r: Row) => number> = {
      volume_24h: (r) => r.market_data.activity['24h']?.volume_usd as number,
      market_cap: (r) => (r.market_data.market_cap as { usd: number }).usd,
      liquidity: (r) => (r.market_data.liquidity as { usd: number }).usd,
    };
    for (const sort of ['volume_24h', 'market_cap', 'liquidity']) {
      const rows = await order(sort);
      // (tokens of quotes without a USD price, the stock ones, have null and come last)
      const values = (rows as unknown as Row[]).map((r) => (usdOf[sort] as (r: Row) => number)(r) ?? -1);
      expect(values, sort).toEqual([...values].sort((x, y) => y - x));
      expect(rows).toHaveLength(tokens.length + 3);
      expect(Date.parse(rows[0]?.market_data.updated_at as string)).toBeGreaterThan(0);
    }
    // 500 USDC, then the ETH token's 0.1 ETH ($300), then 150 USDC: one USD scale across quotes.
    const byVolume = addresses(await order('volume_24h'));
    expect(byVolume.slice(0, 3)).toEqual([calm.token, traded, busy.token]);
    // Trending counts trades and traders: three traders beat one bigger buyer.
    expect(addresses(await order('trending')).slice(0, 2)).toEqual([busy.token, calm.token]);

    // A ranked walk with no duplicate and no gap (restarted if a refresh moved the order meanwhile).
    await expectRankedWalk('trending');

    // USD walks too, across quotes (USDC at 1, ETH at its price): each page merges the ranges of every
    // quote's tokens after the cursor, those of the usd_sources the refresh found on the chain.
    const state = await env.gw.database.db
      .selectFrom('market_state')
      .select('usd_sources')
      .where('chain_id', '=', 8453)
      .executeTakeFirstOrThrow();
    expect(state.usd_sources).toBe((1 << USD_SOURCE.stablecoin) | (1 << USD_SOURCE.native));
    for (const sort of ['volume_24h', 'market_cap', 'liquidity']) await expectRankedWalk(sort);

    // A cursor issued before a refresh is refused: the order may have moved under it.
    const first = await get('/v1/tokens?chain_id=8453&sort=trending&limit=1');
    const before = first.json.data[0].market_data.updated_at as string;
    for (let i = 0; i < 200; i++) {
      const now = (await get(`/v1/tokens/8453/${busy.token}?include=market`)).json.data.market_data
        .updated_at;
      // (Later, not merely other: a shared page of the detail may be older than the list's.)
      if (Date.parse(now) > Date.parse(before)) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    const cursor = encodeURIComponent(first.json.pagination.next_cursor);
    expectProblem(
      await get(`/v1/tokens?chain_id=8453&sort=trending&limit=1&cursor=${cursor}`),
      409,
      'cursor_stale',
    );
    expectProblem(
      await get(`/v1/tokens?chain_id=8453&sort=newest&limit=1&cursor=${cursor}`),
      409,
      'cursor_filter_mismatch',
    );
    tokens.push(busy.token, calm.token);
  });

  it('follows metadata and creator-rights changes; search finds the new name only', async () => {
    const token = tokens[2] as Address; // Gamma Fox, launched by account 2
    const factory = base.current.factory;
    const [creator, heir] = [base.account(2), base.account(3)];
    const f = LaunchFactoryAbi as Abi;
    // (Its market row is there before the update, which the ranked search below finds in it.)
    for (let i = 0; i < 1500 && (await marketRow(token)) === undefined; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await marketRow(token)).toBeDefined();
    await base.call(creator, factory, f, 'updateTokenName', [token, 'Delta Wolf']);
    await base.call(creator, factory, f, 'updateTokenSymbol', [token, 'DWLF']);
    await base.call(creator, factory, f, 'updateTokenContractURI', [token, 'https://example.org/wolf.json']);
    await base.call(creator, factory, f, 'updateTokenExtraMetadata', [
      token,
      'website',
      'https://wolf.example',
    ]);
    await base.call(creator, factory, f, 'proposeCreatorRightsTransfer', [token, heir]);
    await base.call(heir, factory, f, 'acceptCreatorRightsTransfer', [token]);
    const launchRecipient = (await get(`/v1/tokens/8453/${token}`)).json.data.creator_fee_recipient_address;
    await base.call(heir, factory, f, 'setCreatorFeeRecipient', [token, base.account(5)]);
    await indexed();
    const detail = (await get(`/v1/tokens/8453/${token}`)).json.data;
    expect(detail.token).toMatchObject({
      name: 'Delta Wolf',
      symbol: 'DWLF',
      metadata_uri: 'https://example.org/wolf.json',
      extra_metadata: { website: 'https://wolf.example' },
    });
    expect(detail.launch.creator_address).toBe(creator);
    expect(detail.current_creator_address).toBe(heir);
    expect(detail.creator_fee_recipient_address).toBe(base.account(5));
    // At launch it was the one creatorRights named then (the creator, as launched by the test chain).
    expect(launchRecipient).toBe(creator);
    expect(detail.token).toMatchObject({ website: null, image_url: null }); // a document not pinned here

    // The new creator sets a profile through the gateway: the record shows the pinned document's fields.
    const prepared = await call(env.gw, `/v1/tokens/8453/${token}/metadata/document/prepare`, {
      key: env.key,
      method: 'POST',
      headers: { 'idempotency-key': randomUUID() },
      body: {
        actor: heir,
        document: { description: 'Howls', website: 'https://wolf.example', image_base64: GIF },
      },
    });
    expect(prepared.status, prepared.body).toBe(200);
    const step = prepared.json.data.steps[0].transaction;
    await base.send(heir, step.to, step.data, 0n);
    await indexed();
    const profiled = (await get(`/v1/tokens?limit=100`)).json.data.find(
      (t: { token: { address: string } }) => t.token.address === token,
    );
    expect(profiled.token).toMatchObject({
      metadata_uri: prepared.json.data.metadata_uri,
      description: 'Howls',
      website: 'https://wolf.example',
      image_url: prepared.json.data.image_url,
      x: null,
    });
    expect((await fetch(profiled.token.image_url)).status).toBe(200);
    const search = async (q: string) =>
      (await get(`/v1/tokens/search?q=${q}`)).json.data.map(
        (t: { token: { address: string } }) => t.token.address,
      );
    expect(await search('wolf')).toEqual([token]);
    expect(await search('dwlf')).toEqual([token]);
    expect(await search('fox')).toEqual([]);
    // A ranked search tests the words the token's market row keeps: the new ones, from the update on,
    // whether or not a refresh has recomputed the row since.
    expect(await search('wolf&sort=trending')).toEqual([token]);
    expect(await search('fox&sort=trending')).toEqual([]);
    await expectMarketWords();
  });

  it('pages holders from the index, largest first, each page resuming after the last', async () => {
    const token = tokens.at(-2) as Address; // Busy Bee: the pool, the hook and three buyers hold it
    await indexed();
    const whole = await get(`/v1/tokens/8453/${token}/holders?limit=50`);
    expect(whole.json.pagination.next_cursor).toBeNull();
    const all = whole.json.data as { address: string; balance_raw: string }[];
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(whole.json.summary.total_holders).toBe(all.length);
    const pages = [await get(`/v1/tokens/8453/${token}/holders?limit=2`)];
    while (pages.at(-1)?.json.pagination.next_cursor) {
      const cursor = encodeURIComponent(pages.at(-1)?.json.pagination.next_cursor);
      pages.push(await get(`/v1/tokens/8453/${token}/holders?limit=2&cursor=${cursor}`));
    }
    for (const page of pages) expect(page.status, page.body).toBe(200);
    expect(pages.flatMap((p) => p.json.data)).toEqual(all);
    // Balances are the index's: a trade shows once it is indexed, at a later as_of_block.
    await base.swap(
      base.account(4),
      launchPoolKey(token, base.quote('USDC'), 200, base.current.hook),
      base.quote('USDC'),
      10n ** 6n,
    );
    await indexed();
    const fresh = await get(`/v1/tokens/8453/${token}/holders?limit=50`);
    expect(BigInt(fresh.json.meta.as_of_block)).toBeGreaterThan(BigInt(whole.json.meta.as_of_block));
    expect(fresh.json.data).not.toEqual(all);
    await expectHoldersOnChain(token);
    // A cursor of another token is refused.
    const first = pages[0]?.json.pagination.next_cursor as string;
    const other = `/v1/tokens/8453/${tokens[0]}/holders?limit=2&cursor=${encodeURIComponent(first)}`;
    expectProblem(await get(other), 409, 'cursor_filter_mismatch');
  });

  it('orders launches of several chains by launch time, not by block number', async () => {
    const robinhood = new TestChain(env.devnet.chains[1] as DevnetGateway['devnet']['chains'][number]);
    // Base is many blocks ahead of Robinhood here; the Robinhood launch is still the newer one.
    const head = await base.client.getBlockNumber({ cacheTime: 0 });
    expect(await robinhood.client.getBlockNumber({ cacheTime: 0 })).toBeLessThan(head);
    await robinhood.setNextTimestamp((await base.timestamp()) + 100n);
    const late = await robinhood.launch(robinhood.account(6), { name: 'Late Lark', symbol: 'LARK' });
    for (let i = 0; i < 500; i++) {
      if ((await get('/v1/tokens?chain_id=4663')).json.data.length > 0) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const all = (await get('/v1/tokens?limit=2')).json;
    expect(
      all.data.map((t: { chain_id: number; token: { address: string } }) => [t.chain_id, t.token.address]),
    ).toEqual([
      [4663, late.token],
      [8453, tokens.at(-1)],
    ]);
    expect(all.meta.indexed_through_block).toMatchObject({
      '8453': expect.any(String),
      '4663': expect.any(String),
    });
    // The next page resumes after the Base token, across chains.
    const next = await get(`/v1/tokens?limit=2&cursor=${encodeURIComponent(all.pagination.next_cursor)}`);
    expect(next.json.data[0].token.address).toBe(tokens.at(-2));
  });

  it('summarises a wallet and lists its activity newest first, page by page', async () => {
    await indexed();
    const trader = base.account(2);
    const summary = await get(`/v1/wallets/${trader}?chain_id=8453`);
    expect(summary.status, summary.body).toBe(200);
    expect(summary.json.data).toEqual({
      address: trader,
      chains: [{ chain_id: 8453, tokens_launched: 1, trades: 1, announcements: 0, fee_positions: 0 }],
    });
    const kinds: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await get(
        `/v1/wallets/${trader}/activity?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status, r.body).toBe(200);
      kinds.push(
        ...r.json.data.map((i: { kind: string; token_address: string }) => `${i.kind}:${i.token_address}`),
      );
      cursor = r.json.pagination.next_cursor;
    } while (cursor);
    expect(kinds).toEqual([`trade:${traded}`, `launch:${tokens[2]}`]);
    const creator = await get(`/v1/wallets/${base.account(1)}/activity`);
    expect(creator.json.data.map((i: { kind: string }) => i.kind)).toEqual([
      'announcement',
      'launch',
      'launch',
    ]);
  });

  it('lists holders with the balances of their Transfer logs, labelled, adding up to the supply', async () => {
    await indexed();
    const r = await get(`/v1/tokens/8453/${traded}/holders?limit=50`);
    expect(r.status, r.body).toBe(200);
    const rows = r.json.data as {
      address: Address;
      balance_raw: string;
      supply_percent: string;
      label: string | null;
      is_creator: boolean;
    }[];
    await expectHoldersOnChain(traded);
    expect(rows.map((h) => BigInt(h.balance_raw)).reduce((a, b) => a + b, 0n)).toBe(10n ** 27n);
    expect(rows[0]).toMatchObject({
      address: base.chain.uniswap.pool_manager,
      label: 'pool',
      is_creator: false,
    });
    expect(rows.find((h) => h.address === base.account(2))).toMatchObject({ label: null });
    expect(rows.find((h) => h.address === base.current.hook)?.label).toBe('hook');
    expect(r.json.summary.total_holders).toBe(rows.length);
    expect(r.json.meta.indexed_through_block).toMatch(/^\d+$/);
    expectProblem(await get(`/v1/tokens/8453/${base.quote('USDC')}/holders`), 404, 'not_found');
  });

  it('reads from the chain the balances it could not derive (rows of an index made before balances were)', async () => {
    await indexed();
    const listed = await expectHoldersOnChain(traded);
    const db = env.gw.database.db;
    const rows = db.updateTable('token_holders').where('chain_id', '=', 8453).where('token', '=', traded);
    await rows.set({ balance: SORTABLE_ZERO, balance_block: null }).execute();
    await db.updateTable('tokens').set({ holder_count: 0 }).where('address', '=', traded).execute();
    // The next range reads them at its last block.
    await base.client.request({ method: 'anvil_mine', params: ['0x1'] } as never);
    await indexed();
    for (let i = 0; i < 100; i++) {
      if ((await get(`/v1/tokens/8453/${traded}/holders`)).json.summary.total_holders > 0) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(await expectHoldersOnChain(traded)).toEqual(listed);
  });

  it("lists a wallet's fee positions: claimable read live, claimed from the index", async () => {
    const creator = base.account(1);
    const escrow = base.current.fee_escrow;
    await indexed();
    const before = await get(`/v1/wallets/${creator}/fee-claims?chain_id=8453`);
    expect(before.status, before.body).toBe(200);
    const owed = await base.read<bigint>(escrow, FeeEscrowAbi as Abi, 'owed', [creator, zeroAddress]);
    expect(owed).toBeGreaterThan(0n);
    expect(before.json.data).toEqual([
      {
        chain_id: 8453,
        suite_id: base.chain.suites[0]?.id,
        fee_escrow: escrow,
        recipient: creator,
        currency: zeroAddress,
        symbol: 'ETH',
        decimals: 18,
        claimable_raw: owed.toString(),
        claimed_raw: '0',
      },
    ]);
    await base.call(base.account(4), escrow, FeeEscrowAbi as Abi, 'claimFor', [creator, zeroAddress]);
    await base.client.request({ method: 'anvil_mine', params: ['0x1'] } as never);
    await indexed();
    // (Read again: what the page's one position owes now, read beside the index's read.)
    const after = await get(`/v1/wallets/${creator}/fee-claims?chain_id=8453`);
    expect(after.json.data[0]).toMatchObject({ claimable_raw: '0', claimed_raw: owed.toString() });
    expect((await get(`/v1/wallets/${base.account(7)}/fee-claims?chain_id=8453`)).json.data).toEqual([]);

    // Pages like the other reads: a buy of the creator's USDC token gives it a second position.
    const usdc = base.quote('USDC');
    const trader = base.account(3);
    await base.approveForRouter(trader, usdc);
    await base.swap(
      trader,
      launchPoolKey(tokens[1] as Address, usdc, 200, base.current.hook),
      usdc,
      10n ** 6n,
    );
    await indexed();
    // The page read before listed one position: the new one is read with it, both at one block.
    const both = await get(`/v1/wallets/${creator}/fee-claims?chain_id=8453`);
    const at = BigInt(both.json.meta.as_of_block);
    const listed = both.json.data as { fee_escrow: Address; currency: Address; claimable_raw: string }[];
    expect(listed.map((p) => p.currency).sort()).toEqual([zeroAddress, usdc].sort());
    for (const p of listed) {
      const args = [creator, p.currency];
      const owedThen = await base.client.readContract({
        address: p.fee_escrow,
        abi: FeeEscrowAbi as Abi,
        functionName: 'owed',
        args,
        blockNumber: at,
      } as never);
      expect(p.claimable_raw).toBe(String(owedThen));
    }
    expect(listed.find((p) => p.currency === usdc)?.claimable_raw).not.toBe('0');
    const path = `/v1/wallets/${creator}/fee-claims?chain_id=8453&limit=1`;
    const first = await get(path);
    expect(first.json.data).toHaveLength(1);
    const next = first.json.pagination.next_cursor as string;
    expect(next).toEqual(expect.any(String));
    const second = await get(`${path}&cursor=${encodeURIComponent(next)}`);
    expect(second.json.data).toHaveLength(1);
    expect(second.json.pagination.next_cursor).toBeNull();
    expect([first.json.data[0].currency, second.json.data[0].currency].sort()).toEqual(
      [zeroAddress, usdc].sort(),
    );
    expectProblem(
      await get(`/v1/wallets/${trader}/fee-claims?chain_id=8453&cursor=${encodeURIComponent(next)}`),
      409,
      'cursor_filter_mismatch',
    );
  });

  it('walks a list of 120 new tokens page by page with no duplicate and no gap', async () => {
    const launcher = base.account(7);
    const launched: Address[] = [];
    for (let i = 0; i < 120; i++)
      launched.push((await base.launch(launcher, { name: `Walker ${i}`, symbol: `W${i}` })).token);
    await indexed();
    /** Every page of a list, `limit` rows at a time. */
    const walk = async (path: string, limit: number) => {
      const rows: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await get(`${path}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(r.status, r.body).toBe(200);
        rows.push(...r.json.data.map((t: { token: { address: string } }) => t.token.address));
        cursor = r.json.pagination.next_cursor;
      } while (cursor);
      return rows;
    };
    // The list in pages of 100, then 7 at a time: the same rows in the same order, each once.
    const expected = await walk('/v1/tokens?chain_id=8453', 100);
    expect(expected.slice(0, 120)).toEqual([...launched].reverse());
    expect(new Set(expected).size).toBe(expected.length);
    expect(await walk('/v1/tokens?chain_id=8453&sort=newest', 7)).toEqual(expected);
    expect(await walk('/v1/tokens?chain_id=8453&sort=oldest', 7)).toEqual([...expected].reverse());
    // A creator's 120 tokens, 50 at a time.
    expect(await walk(`/v1/creators/${launcher}/tokens?chain_id=8453`, 50)).toEqual([...launched].reverse());
  }, 120_000);

  it('keeps only the surviving chain after a reorg', async () => {
    const trader = base.account(4);
    const key = launchPoolKey(traded, zeroAddress, 200, base.current.hook);
    // A token traded below the fork and not above it: every refresh recomputes it (a trade in its 24 h),
    // so its market row stands on a block above the fork when the reorg comes.
    const quiet = tokens[2] as Address;
    const quietKey = launchPoolKey(quiet, zeroAddress, 200, base.current.hook);
    await base.swap(trader, quietKey, zeroAddress, 10n ** 16n);
    const snapshot = (await base.client.request({ method: 'evm_snapshot', params: [] } as never)) as string;
    // Its referrer is credited nowhere else: a fee position first seen above the fork.
    const referrer = base.account(8);
    const orphan = await base.swap(trader, key, zeroAddress, 5n * 10n ** 16n, { referrer });
    await base.call(base.account(1), base.current.factory, LaunchFactoryAbi as Abi, 'updateTokenName', [
      traded,
      'Orphan Name',
    ]);
    const before = await refreshed(traded);
    const volumeBefore = BigInt(before.activity['24h'].volume_quote_raw);
    const liquidityBefore = before.liquidity.quote_raw as string;
    expect(
      (await get(`/v1/tokens/8453/${traded}/trades`)).json.data.map(
        (t: { transaction_hash: string }) => t.transaction_hash,
      ),
    ).toContain(orphan.transactionHash);
    expect((await get(`/v1/tokens/8453/${traded}`)).json.data.token.name).toBe('Orphan Name');
    const orphanBalance = (await expectHoldersOnChain(traded)).find((h) => h.address === trader);
    const referrerFees = async () =>
      (await get(`/v1/wallets/${referrer}/fee-claims?chain_id=8453`)).json.data;
    expect(await referrerFees()).toMatchObject([{ recipient: referrer, currency: zeroAddress }]);
    // Back to before that trade; another trade and more blocks take its place.
    await base.client.request({ method: 'evm_revert', params: [snapshot] } as never);
    const survivor = await base.swap(trader, key, zeroAddress, 2n * 10n ** 16n);
    // It is not rebuilt but extended from the fork: its trade on the new branch, below the block its
    // row was computed at, must count.
    await base.swap(trader, quietKey, zeroAddress, 3n * 10n ** 16n);
    await base.client.request({ method: 'anvil_mine', params: ['0x3'] } as never);
    await indexed();
    const hashes = (await get(`/v1/tokens/8453/${traded}/trades`)).json.data.map(
      (t: { transaction_hash: string }) => t.transaction_hash,
    );
    expect(hashes).toContain(survivor.transactionHash);
    expect(hashes).not.toContain(orphan.transactionHash);
    expect(hashes).toHaveLength(2);
    // Balances the orphan changed are the chain's again (read with the next range, at its last block).
    const holders = await expectHoldersOnChain(traded);
    expect(holders.find((h) => h.address === trader)?.balance_raw).not.toBe(orphanBalance?.balance_raw);
    // The referrer's position went with the orphan's credit.
    expect(await referrerFees()).toEqual([]);
    // The rename went with its block: the launch name is back, in the record and in search.
    expect((await get(`/v1/tokens/8453/${traded}`)).json.data.token.name).toBe('Alpha Dog');
    const found = async (q: string) => (await get(`/v1/tokens/search?q=${q}`)).json.data.length;
    expect(await found('orphan')).toBe(0);
    expect(await found('alpha')).toBe(1);
    expect(await found('orphan&sort=market_cap')).toBe(0);
    expect(await found('alpha&sort=market_cap')).toBe(1);
    await expectMarketWords();
    // Market data is recomputed without the orphaned trade (5e16 in) and with the survivor (2e16 in).
    const after = await refreshed(traded);
    expect(after.activity['24h'].volume_quote_raw).toBe(
      (volumeBefore - 5n * 10n ** 16n + 2n * 10n ** 16n).toString(),
    );
    // The reserve too: what the surviving trades moved into the pool, nothing of the orphan.
    const reserveOf = (trades: { side: string; quote_amount_raw: string; fee_raw: string }[]) =>
      trades.reduce(
        (sum, t) =>
          sum +
          (t.side === 'buy'
            ? BigInt(t.quote_amount_raw) - BigInt(t.fee_raw)
            : -(BigInt(t.quote_amount_raw) + BigInt(t.fee_raw))),
        0n,
      );
    const reserve = reserveOf((await get(`/v1/tokens/8453/${traded}/trades?limit=100`)).json.data);
    expect(after.liquidity.quote_raw).toBe(reserve.toString());
    expect(BigInt(liquidityBefore)).toBeGreaterThan(reserve); // the orphan's 5e16 had been counted
    const quietTrades = (await get(`/v1/tokens/8453/${quiet}/trades?limit=100`)).json.data;
    expect(quietTrades).toHaveLength(2);
    expect((await refreshed(quiet)).liquidity.quote_raw).toBe(reserveOf(quietTrades).toString());
    // The indexer's per-token totals are the surviving trades', trade by trade: reserve, last block and
    // the price after the last trade.
    const db = env.gw.database.db;
    const trades = await db
      .selectFrom('trades')
      .selectAll()
      .where('chain_id', '=', 8453)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    const expected = new Map<string, { reserve: bigint; last_block: number; sqrt: string | null }>();
    for (const t of trades) {
      const e = expected.get(t.token) ?? { reserve: 0n, last_block: 0, sqrt: null };
      expected.set(t.token, {
        reserve: e.reserve + reserveOf([t]),
        last_block: Number(t.block_number),
        sqrt: t.sqrt_price_x96,
      });
    }
    const totals = await db.selectFrom('token_totals').selectAll().where('chain_id', '=', 8453).execute();
    expect(
      Object.fromEntries(
        totals.map((r) => [
          r.address,
          { reserve: BigInt(r.reserve_quote_raw), last_block: Number(r.last_block), sqrt: r.sqrt_price_x96 },
        ]),
      ),
    ).toEqual(Object.fromEntries(expected));
    expect(expected.get(traded)?.reserve).toBe(reserve);
  });
});

describe('several indexers on one PostgreSQL database', () => {
  it('lets one write each chain while the others stand by', async () => {
    const url = await freshPostgres(inject('postgresUrl'));
    const database = await openDatabase(loadSettings({ DATABASE_URL: url, LAUNCHPAD_DATA_DIR: env.dataDir }));
    const errors: unknown[] = [];
    const chains = new ChainClients({ 8453: [base.chain.rpc_url] }, 5000);
    const deployments = Deployments.load(env.gw.settings.manifestsDir);
    const start = () =>
      startIndexer({
        database,
        chains,
        deployments,
        chainIds: [8453],
        pollMs: 20,
        marketRefreshMs: 100,
        onError: (err) => errors.push(err),
      });
    const [a, b] = [start(), start()];
    /** Waits until the index reached `head`. */
    const indexedTo = async (head: bigint) => {
      for (let i = 0; i < 500; i++) {
        const row = await database.db.selectFrom('index_state').select('indexed_through').executeTakeFirst();
        if (row && BigInt(row.indexed_through) >= head) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      const launched = await base.launch(base.account(2), { name: 'Twice Indexed', symbol: 'TWICE' });
      const key = launchPoolKey(launched.token, zeroAddress, 200, base.current.hook);
      // Past the anti-snipe window: a buy in its first seconds can revert, depending on the second it lands in.
      await base.advance(21);
      // (Account 3 trades five times: its weight passes the per-trader cap of 3.)
      for (const i of [3, 4, 3, 3, 3, 3]) await base.swap(base.account(i), key, zeroAddress, 10n ** 15n);
      await base.client.request({ method: 'anvil_mine', params: ['0x2'] } as never);
      const head = await base.client.getBlockNumber({ cacheTime: 0 });
      await indexedTo(head);
      const rows = await database.db
        .selectFrom('tokens')
        .select('address')
        .where('address', '=', launched.token)
        .execute();
      expect(rows).toHaveLength(1);
      // Two writers would have collided on the primary keys.
      expect(errors).toEqual([]);
      // The market figures the database summed are those of the chain's trades, trade by trade.
      let state: { as_of_block: unknown; chain_time: unknown } | undefined;
      for (let i = 0; i < 500; i++) {
        state = await database.db.selectFrom('market_state').selectAll().executeTakeFirst();
        if (state && BigInt(state.as_of_block as string) >= head) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const now = Number(state?.chain_time);
      const trades = await database.db
        .selectFrom('trades')
        .selectAll()
        .where('block_number', '<=', Number(state?.as_of_block))
        .execute();
      const market = await database.db.selectFrom('token_market').selectAll().execute();
      expect(trades.length).toBeGreaterThanOrEqual(3);
      let capped = false;
      for (const m of market) {
        const own = trades.filter((t) => t.token === m.address);
        const activity = JSON.parse(m.activity as string);
        for (const [name, seconds] of Object.entries({ '1h': 3600, '6h': 21_600, '24h': 86_400 })) {
          const recent = own.filter((t) => Number(t.timestamp) > now - seconds);
          expect(activity[name]).toEqual({
            trades: recent.length,
            volume_quote_raw: recent.reduce((sum, t) => sum + BigInt(t.quote_amount_raw), 0n).toString(),
          });
        }
        const weights = new Map<string, number>();
        for (const t of own) {
          const age = now - Number(t.timestamp);
          if (age >= 0 && age <= 86_400)
            weights.set(t.trader, (weights.get(t.trader) ?? 0) + 2 ** (-age / 21_600));
        }
        const score = [...weights.values()].reduce((sum, w) => sum + Math.min(w, 3), 0);
        expect(Number(m.trending_score)).toBeCloseTo(score, 5);
        capped ||= [...weights.values()].some((w) => w > 3);
      }
      expect(market.some((m) => Number(m.trending_score) > 0)).toBe(true);
      expect(capped).toBe(true);

      // A position claimed twice: its claims are summed by the database, and match the chain's events.
      const creator = base.account(2);
      const escrow = base.current.fee_escrow;
      await base.call(base.account(5), escrow, FeeEscrowAbi as Abi, 'claimFor', [creator, zeroAddress]);
      await base.swap(base.account(4), key, zeroAddress, 10n ** 15n);
      await base.call(base.account(5), escrow, FeeEscrowAbi as Abi, 'claimFor', [creator, zeroAddress]);
      await base.client.request({ method: 'anvil_mine', params: ['0x2'] } as never);
      await indexedTo(await base.client.getBlockNumber({ cacheTime: 0 }));
      const claims = await base.client.getContractEvents({
        address: escrow,
        abi: FeeEscrowAbi as Abi,
        eventName: 'Claimed',
        args: { recipient: creator, currency: zeroAddress },
        fromBlock: 0n,
      });
      expect(claims.length).toBeGreaterThanOrEqual(2);
      const claimed = claims.reduce((sum, e) => sum + (e.args as { amount: bigint }).amount, 0n);
      const page = await listFeePositions(
        { database, chains, deployments, cursors: new Cursors(Buffer.alloc(32, 7)) },
        { recipient: creator, chainId: 8453, limit: 25 },
      );
      expect(page.items).toContainEqual(
        expect.objectContaining({
          fee_escrow: escrow,
          currency: zeroAddress,
          claimed_raw: claimed.toString(),
        }),
      );
    } finally {
      await a.stop();
      await b.stop();
      await database.close();
    }
  });
});

/**
 * A proxy in front of the devnet node: each answer's text passes through `rewrite`, with the request
 * (a JSON-RPC batch or call) it answers.
 */
async function nodeProxy(
  rewrite: (asked: unknown, answer: string) => string | Promise<string>,
  before?: (asked: unknown) => Promise<void>,
) {
  const upstream = base.chain.rpc_url;
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      Promise.resolve(before?.(JSON.parse(body.toString())))
        .then(() =>
          fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
        )
        .then((r) => r.text())
        .then(async (text) => {
          const answer = await rewrite(JSON.parse(body.toString()), text);
          res.setHeader('content-type', 'application/json');
          res.end(answer);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, close: () => proxy.close() };
}

/** Expects every block hash `database` keeps for reorg checks (from block `from`) to be the chain's; their count. */
async function expectKeptOnChain(database: Awaited<ReturnType<typeof openDatabase>>, from = 0) {
  const kept = await database.db
    .selectFrom('index_blocks')
    .select(['number', 'hash'])
    .where('chain_id', '=', 8453)
    .where('number', '>=', from)
    .execute();
  for (const b of kept)
    expect((await base.client.getBlock({ blockNumber: BigInt(b.number) })).hash).toBe(b.hash);
  return kept.length;
}

/**
 * An index of its own (SQLite in a temp dir) following the node at `url`, once it has indexed the head
 * of the devnet as it is now; `stop` ends it and removes its files.
 */
async function ownIndex(
  url: string,
  onError?: (err: unknown) => void,
  before?: (database: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>,
  timeoutMs = 5000,
  recheckMs?: number,
) {
  await indexed();
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-own-index-'));
  const database = await openDatabase(loadSettings({ LAUNCHPAD_DATA_DIR: dir }));
  await before?.(database);
  const indexer = startIndexer({
    database,
    chains: new ChainClients({ 8453: [url] }, timeoutMs),
    deployments: Deployments.load(env.gw.settings.manifestsDir),
    chainIds: [8453],
    pollMs: 20,
    marketRefreshMs: 60_000,
    onError,
    recheckMs,
  });
  const head = Number(await base.client.getBlockNumber({ cacheTime: 0 }));
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const row = await database.db.selectFrom('index_state').select('indexed_through').executeTakeFirst();
    if (row && Number(row.indexed_through) >= head) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  /** The trades up to that head, in chain order. */
  const trades = (db: typeof database) =>
    db.db
      .selectFrom('trades')
      .select(['tx_hash', 'log_index', 'timestamp', 'trader', 'block_hash'])
      .where('chain_id', '=', 8453)
      .where('block_number', '<=', head)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
  const stop = async () => {
    await indexer.stop();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { database, trades, stop };
}

describe('a node whose logs carry no blockTimestamp', () => {
  it('indexes the same trades, times and block hashes by fetching those blocks', async () => {
    // The proxy drops `blockTimestamp` from everything it returns (logs, and the transactions read).
    const proxy = await nodeProxy((_, text) =>
      JSON.stringify(JSON.parse(text, (k, v: unknown) => (k === 'blockTimestamp' ? undefined : v))),
    );
    const own = await ownIndex(proxy.url);
    try {
      const theirs = await own.trades(env.gw.database);
      expect(theirs.length).toBeGreaterThan(3);
      expect(await own.trades(own.database)).toEqual(theirs);
      // Every block hash kept for reorg checks is the chain's.
      expect(await expectKeptOnChain(own.database)).toBeGreaterThan(3);
    } finally {
      await own.stop();
      proxy.close();
    }
  });
});

const TRANSFER = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

describe('a chain with more launch tokens than a request can name', () => {
  it('asks for token events by topic and keeps those of its launch tokens: the same holders', async () => {
    const holders = (database: Awaited<ReturnType<typeof openDatabase>>) =>
      database.db
        .selectFrom('token_holders')
        .select(['token', 'holder', 'balance'])
        .where('chain_id', '=', 8453)
        .orderBy('token')
        .orderBy('holder')
        .execute();
    // Its own launch with two buys, and a transfer of a quote token (the same Transfer topic, not a
    // launch token's).
    const { key } = await base.launch(base.account(1));
    await base.advance(21);
    for (const i of [2, 3]) await base.swap(base.account(i), key, zeroAddress, 10n ** 15n);
    await base.call(base.account(2), base.quote('USDC'), TRANSFER, 'transfer', [base.account(4), 1000n]);
    // 2,001 tokens of another launchpad's making (their addresses emit nothing) are indexed already.
    const own = await ownIndex(base.chain.rpc_url, undefined, async (database) => {
      const real = await env.gw.database.db
        .selectFrom('tokens')
        .selectAll()
        .where('chain_id', '=', 8453)
        .executeTakeFirstOrThrow();
      const rows = Array.from({ length: 2001 }, (_, i) => ({
        ...real,
        address: getAddress(`0xfeed${(i + 1).toString(16).padStart(36, '0')}`),
        pool_id: keccak256(stringToHex(`placeholder ${i}`)),
        block_number: 1,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await database.db
          .insertInto('tokens')
          .values(rows.slice(i, i + 500))
          .execute();
    });
    try {
      const theirs = await holders(env.gw.database);
      expect(theirs.length).toBeGreaterThan(3);
      // (Transfers of the quote tokens and of anything else come with the topic, and are left out.)
      expect(await holders(own.database)).toEqual(theirs);
      expect(await own.trades(own.database)).toEqual(await own.trades(env.gw.database));
    } finally {
      await own.stop();
    }
  });
});

/** The topic of PoolManager's Swap event. */
const SWAP_TOPIC = '0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f';

describe('reads of one range that disagree', () => {
  it('indexes nothing of the range until they agree: swaps seen on another fork, a missing transaction', async () => {
    // The first transactions the proxy passes on are missing (as from a node behind the one that sent the
    // logs); then the next two answers for the range's swaps put them in blocks of another fork (as if
    // a reorg came between that read and the range's other logs).
    const otherFork = `0x${'ee'.repeat(32)}`;
    let forked = 2;
    let missing = 1;
    const proxy = await nodeProxy((asked, text) => {
      const batch = (Array.isArray(asked) ? asked : []) as { method: string; params: unknown[] }[];
      const answers = JSON.parse(text) as { id: number; result: unknown }[];
      if (!Array.isArray(answers)) return text;
      const request = (a: { id: number }) => batch[a.id];
      const swaps = answers.filter((a) => {
        const filter = request(a)?.params?.[0] as { topics?: string[][] } | undefined;
        return request(a)?.method === 'eth_getLogs' && filter?.topics?.[0]?.[0] === SWAP_TOPIC;
      });
      const txs = answers.filter((a) => request(a)?.method === 'eth_getTransactionByHash');
      if (txs.length > 0 && missing > 0) {
        missing--;
        for (const a of txs) a.result = null;
      }
      if (swaps.some((a) => (a.result as unknown[]).length > 0) && missing === 0 && forked > 0) {
        forked--;
        for (const a of swaps)
          for (const log of a.result as { blockHash: string }[]) log.blockHash = otherFork;
      }
      return JSON.stringify(answers);
    });
    // Swaps of the test's own, so that there are some whatever ran before.
    const { token } = await base.launch(base.account(2), { name: 'Disputed Reads', symbol: 'DISPUTE' });
    await base.advance(21);
    const key = launchPoolKey(token, zeroAddress, 200, base.current.hook);
    for (let i = 0; i < 3; i++) await base.swap(base.account(3), key, zeroAddress, 10n ** 15n);
    const errors: string[] = [];
    const own = await ownIndex(proxy.url, (err) => errors.push(String((err as Error).message)));
    try {
      expect(forked).toBe(0);
      expect(missing).toBe(0);
      expect(errors.some((e) => e.includes('no transaction'))).toBe(true);
      // In the end the same trades, traders and block hashes as the gateway's own index; no hash of the
      // other fork was kept.
      const theirs = await own.trades(env.gw.database);
      expect(theirs.length).toBeGreaterThanOrEqual(3);
      expect(await own.trades(own.database)).toEqual(theirs);
      const kept = await own.database.db
        .selectFrom('index_blocks')
        .select('hash')
        .where('chain_id', '=', 8453)
        .execute();
      expect(kept.map((b) => b.hash)).not.toContain(otherFork);
    } finally {
      await own.stop();
      proxy.close();
    }
  });
});

describe('a reorg while a range is read', () => {
  it("keeps nothing of the fork the node left: the range's swaps read before it, its other logs after", async () => {
    const request = (method: string, params: unknown[] = []) =>
      base.client.request({ method, params } as never) as Promise<unknown>;
    const { token } = await base.launch(base.account(2), { name: 'Torn Range', symbol: 'TORN' });
    await base.advance(21);
    const key = launchPoolKey(token, zeroAddress, 200, base.current.hook);
    const snapshot = (await request('evm_snapshot')) as string;
    const orphans: string[] = [];
    for (let i = 0; i < 3; i++)
      orphans.push((await base.swap(base.account(3), key, zeroAddress, 10n ** 15n)).transactionHash);
    await request('anvil_mine', ['0x3']); // (the range's end is then a block without logs)
    const first = Number((await base.client.getTransactionReceipt({ hash: orphans[0] as Hex })).blockNumber);
    // The proxy passes the swaps of a range holding the orphans' blocks, and their senders. The range's
    // other logs are asked for after that: before they are read, the node goes back to the snapshot and
    // mines past the range, as a reorg to another fork.
    const batch = (asked: unknown) => (Array.isArray(asked) ? asked : [asked]) as LogsRequest[];
    const covers = (asked: unknown, swaps: boolean) =>
      batch(asked).some((r) => {
        const f = r.params?.[0] as { fromBlock?: string; toBlock?: string; topics?: string[][] } | undefined;
        const isSwaps = f?.topics?.[0]?.[0] === SWAP_TOPIC;
        return (
          r.method === 'eth_getLogs' &&
          isSwaps === swaps &&
          Number(f?.fromBlock) <= first &&
          Number(f?.toBlock) >= first
        );
      });
    let stage: 'swaps' | 'senders' | 'reorg' | 'done' = 'swaps';
    let sendersCame = () => {};
    const senders = new Promise<void>((r) => (sendersCame = r));
    const proxy = await nodeProxy(
      (asked, text) => {
        if (stage === 'senders' && batch(asked).some((r) => r.method === 'eth_getTransactionByHash')) {
          stage = 'reorg';
          sendersCame();
        }
        return text;
      },
      async (asked) => {
        if (stage === 'swaps' && covers(asked, true)) stage = 'senders';
        else if ((stage === 'senders' || stage === 'reorg') && covers(asked, false)) {
          await senders;
          const to = Number(batch(asked).find((r) => r.method === 'eth_getLogs')?.params?.[0]?.toBlock);
          await request('evm_revert', [snapshot]);
          const head = Number(await base.client.getBlockNumber({ cacheTime: 0 }));
          await request('anvil_mine', [`0x${(to + 1 - head).toString(16)}`]);
          stage = 'done';
        }
      },
    );
    const own = await ownIndex(proxy.url);
    try {
      expect(stage).toBe('done');
      // Once it has indexed the new head: none of the orphans, and every kept block hash is the chain's.
      const head = Number(await base.client.getBlockNumber({ cacheTime: 0 }));
      const state = () =>
        own.database.db.selectFrom('index_state').select('indexed_through').executeTakeFirst();
      for (
        const end = Date.now() + 10_000;
        Date.now() < end && Number((await state())?.indexed_through) < head;
      )
        await new Promise((r) => setTimeout(r, 20));
      expect(Number((await state())?.indexed_through)).toBeGreaterThanOrEqual(head);
      const kept = await own.database.db
        .selectFrom('trades')
        .select('tx_hash')
        .where('chain_id', '=', 8453)
        .execute();
      for (const hash of orphans) expect(kept.map((t) => t.tx_hash)).not.toContain(hash);
      expect(await expectKeptOnChain(own.database, first - 1)).toBeGreaterThan(0);
    } finally {
      await own.stop();
      proxy.close();
    }
  });
});

describe('a node that answers a range from a fork it left', () => {
  it('finds the fork at the next recheck of the blocks kept since the last, and indexes again from below it', async () => {
    // Every log of one block comes with another fork's hash, once (as from a node behind a balancer still
    // on a fork its peers left): the range's end is the chain's, so no read of a range sees it.
    const { token } = await base.launch(base.account(2), { name: 'Stale Peer', symbol: 'STALE' });
    await base.advance(21);
    const key = launchPoolKey(token, zeroAddress, 200, base.current.hook);
    const swap = await base.swap(base.account(3), key, zeroAddress, 10n ** 15n);
    await base.client.request({ method: 'anvil_mine', params: ['0x3'] } as never);
    const forged = numberToHex(swap.blockNumber);
    const otherFork = `0x${'dd'.repeat(32)}`;
    const left = new Set(['swaps', 'rest', 'token']);
    const proxy = await nodeProxy((asked, text) => {
      const requests = (Array.isArray(asked) ? asked : [asked]) as LogsRequest[];
      const answers = JSON.parse(text) as { id: number; result: unknown }[];
      if (!Array.isArray(answers)) return text;
      for (const a of answers) {
        const r = requests.find((q) => (q as { id?: number }).id === a.id);
        const filter = r?.params?.[0] as { topics?: string[][]; address?: string[] } | undefined;
        if (r?.method !== 'eth_getLogs' || !Array.isArray(a.result)) continue;
        const logs = a.result as { blockNumber: string; blockHash: string }[];
        if (!logs.some((l) => l.blockNumber === forged)) continue;
        const kind =
          filter?.topics?.[0]?.[0] === SWAP_TOPIC
            ? 'swaps'
            : filter?.address?.some((a) => a.toLowerCase() === token.toLowerCase())
              ? 'token'
              : 'rest';
        if (!left.delete(kind)) continue;
        for (const l of logs) if (l.blockNumber === forged) l.blockHash = otherFork;
      }
      return JSON.stringify(answers);
    });
    // The recheck comes 6 s after the first (at the start): 70 blocks with logs come first, so that the
    // forged one is no longer among the 64 newest kept.
    const own = await ownIndex(proxy.url, undefined, undefined, undefined, 6_000);
    try {
      expect([...left]).toEqual([]);
      for (let i = 0; i < 70; i++) await base.swap(base.account(4), key, zeroAddress, 10n ** 14n);
      const kept = () =>
        own.database.db.selectFrom('index_blocks').select('hash').where('chain_id', '=', 8453).execute();
      for (const end = Date.now() + 15_000; Date.now() < end;) {
        if (!(await kept()).some((b) => b.hash === otherFork)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await kept()).map((b) => b.hash)).not.toContain(otherFork);
      // Then the same trades, traders and block hashes as the gateway's own index.
      const theirs = await own.trades(env.gw.database);
      for (const end = Date.now() + 10_000; Date.now() < end;) {
        if (JSON.stringify(await own.trades(own.database)) === JSON.stringify(theirs)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await own.trades(own.database)).toEqual(theirs);
      expect(theirs.map((t) => t.tx_hash)).toContain(swap.transactionHash);
    } finally {
      await own.stop();
      proxy.close();
    }
  });
});

/**
 * The same trades, traders, times and block hashes in an own index as in the gateway's (which reads the
 * node directly), and 90 of them of `token`: those are returned.
 */
async function expectSameTrades(own: Awaited<ReturnType<typeof ownIndex>>, token: string) {
  const theirs = await own.trades(env.gw.database);
  expect(await own.trades(own.database)).toEqual(theirs);
  const mine = await own.database.db
    .selectFrom('trades')
    .select(['trader', 'tx_hash'])
    .where('token', '=', token)
    .execute();
  expect(mine).toHaveLength(90);
  return mine;
}

/** A request of a batch, as the proxies below read it. */
type LogsRequest = { method: string; params?: { fromBlock?: string; toBlock?: string }[] };

/**
 * An eth_getLogs answer of more than `cap` logs for a range of several blocks. (A block alone is always
 * answered: the devnet may mine two of the tests' 30-swap transactions in one block, 600 logs, which a
 * node refusing it forever would leave no range to read; providers' caps are far above any one block.)
 */
const overCap = (request: LogsRequest | undefined, result: unknown, cap: number) =>
  request?.method === 'eth_getLogs' &&
  request.params?.[0]?.fromBlock !== request.params?.[0]?.toBlock &&
  Array.isArray(result) &&
  result.length > cap;

describe('a node that caps the logs of an answer', () => {
  it('indexes busy blocks in shorter ranges: every trade of many-swap transactions, with its trader', async () => {
    // The proxy refuses an eth_getLogs answer of more than CAP logs, as providers do (at 10,000, here
    // far fewer): the indexer halves the range until the answers fit. A transaction of 30 swaps brings
    // about 300 logs, so its blocks are read one or two at a time.
    const CAP = 400;
    let refused = 0;
    const proxy = await nodeProxy((asked, text) => {
      const batch = (Array.isArray(asked) ? asked : []) as LogsRequest[];
      const answers = JSON.parse(text) as { id: number; result?: unknown; error?: unknown }[];
      if (!Array.isArray(answers)) return text;
      for (const a of answers)
        if (overCap(batch[a.id], a.result, CAP)) {
          refused++;
          delete a.result;
          a.error = { code: -32005, message: `query returned more than ${CAP} results` };
        }
      return JSON.stringify(answers);
    });
    const { token } = await base.launchWithSwaps(90, 30);
    const errors: string[] = [];
    const own = await ownIndex(proxy.url, (err) => errors.push(String((err as Error).message)));
    try {
      expect(refused).toBeGreaterThan(0);
      expect(errors.some((e) => e.includes(`more than ${CAP} results`))).toBe(true);
      // The 90 swaps among the gateway's trades, by the three traders that sent them.
      const mine = await expectSameTrades(own, token);
      expect(new Set(mine.map((t) => t.tx_hash)).size).toBe(3);
      expect(new Set(mine.map((t) => t.trader))).toEqual(new Set([2, 3, 4].map((i) => base.account(i))));
    } finally {
      await own.stop();
      proxy.close();
    }
  });
});

describe('a node too slow for a wide range', () => {
  it(
    'indexes busy blocks in shorter ranges when a range times out: every trade, none twice',
    { timeout: 90_000 },
    async () => {
      // The proxy holds an eth_getLogs answer of more than CAP logs past the indexer's time-out, as a
      // node under load does with a busy range it cannot gather in time: asked for the same range again,
      // it would time out again forever. The indexer shortens the range on a time-out until answers come.
      const CAP = 400;
      const TIMEOUT_MS = 1000;
      let held = 0;
      const proxy = await nodeProxy(async (asked, text) => {
        const batch = (Array.isArray(asked) ? asked : []) as LogsRequest[];
        const answers = JSON.parse(text) as { id: number; result?: unknown }[];
        const busy = Array.isArray(answers) && answers.some((a) => overCap(batch[a.id], a.result, CAP));
        if (busy) {
          held++;
          await new Promise((r) => setTimeout(r, TIMEOUT_MS + 500));
        }
        return text;
      });
      const { token } = await base.launchWithSwaps(90, 30);
      const errors: string[] = [];
      const own = await ownIndex(
        proxy.url,
        (err) => errors.push(String((err as Error).message)),
        undefined,
        TIMEOUT_MS,
      );
      try {
        expect(held).toBeGreaterThan(0);
        expect(errors).toContain('no answer in time');
        await expectSameTrades(own, token);
      } finally {
        await own.stop();
        proxy.close();
      }
    },
  );
});

describe('a burst after a quiet stretch', () => {
  it(
    'reads a grown range swaps first and drops it, other logs unasked, when its swaps alone are too many',
    { timeout: 180_000 },
    async () => {
      // The proxy holds the node's head where the test says (as a node behind would): the own index
      // follows the quiet blocks one at a time, then sees 21 blocks of 1,000 swaps at once. Its range
      // is then longer than the last one it indexed, with 21,000 swaps, more than a whole range should
      // bring (5,000 logs): it is read again shorter, and its other logs are never asked for. (Only that
      // swaps-first read has over 20,000 logs: the ranges the indexer keeps have about 5,000.)
      const [swapEvent] = parseAbi([
        'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
      ]);
      const SWAP = toEventSelector(swapEvent);
      let held: number | undefined;
      const reads: { swaps: boolean; from: number; to: number; logs: number }[] = [];
      const proxy = await nodeProxy((asked, text) => {
        const batch = (Array.isArray(asked) ? asked : [asked]) as {
          method: string;
          params?: { fromBlock?: Hex; toBlock?: Hex; topics?: Hex[][] }[];
        }[];
        const parsed = JSON.parse(text) as
          { id: number; result?: unknown } | { id: number; result?: unknown }[];
        const answers = Array.isArray(parsed) ? parsed : [parsed];
        for (const a of answers) {
          const request = batch[a.id] ?? batch[0];
          const filter = request?.params?.[0];
          if (request?.method === 'eth_getLogs' && filter?.fromBlock && filter.toBlock)
            reads.push({
              swaps: filter.topics?.[0]?.includes(SWAP) ?? false,
              from: Number(filter.fromBlock),
              to: Number(filter.toBlock),
              logs: Array.isArray(a.result) ? a.result.length : -1,
            });
          if (request?.method === 'eth_blockNumber' && held !== undefined)
            a.result = `0x${held.toString(16)}`;
        }
        return JSON.stringify(parsed);
      });
      const own = await ownIndex(proxy.url);
      const through = async () =>
        Number(
          (await own.database.db.selectFrom('index_state').select('indexed_through').executeTakeFirst())
            ?.indexed_through,
        );
      const until = async (block: number) => {
        for (const end = Date.now() + 120_000; (await through()) < block;) {
          if (Date.now() > end) throw new Error(`the own index did not reach block ${block}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      try {
        held = await through();
        const { token, head } = await base.launchWithSwaps(21_000, 1000);
        // The burst's first block: the first with a swap.
        let burst = held + 1;
        const swapsAt = (b: number) =>
          base.client.getLogs({
            address: base.chain.uniswap.pool_manager,
            event: swapEvent,
            fromBlock: BigInt(b),
            toBlock: BigInt(b),
          });
        while ((await swapsAt(burst)).length === 0) burst++;
        // The quiet blocks, one a range.
        for (let b = held + 1; b < burst; b++) {
          held = b;
          await until(b);
        }
        held = undefined;
        await until(head);
        const dropped = reads.filter((r) => r.swaps && r.to > r.from && r.logs > 20_000);
        expect(dropped.length).toBeGreaterThan(0);
        for (const d of dropped)
          expect(reads.filter((r) => !r.swaps && r.from === d.from && r.to === d.to)).toEqual([]);
        // Every swap indexed once, each with its trader.
        const mine = await own.database.db
          .selectFrom('trades')
          .select(['trader', 'block_number', 'log_index'])
          .where('token', '=', token)
          .execute();
        expect(mine).toHaveLength(21_000);
        expect(new Set(mine.map((t) => `${t.block_number}:${t.log_index}`)).size).toBe(21_000);
        expect(mine.every((t) => t.trader !== zeroAddress)).toBe(true);
      } finally {
        await own.stop();
        proxy.close();
      }
    },
  );
});
