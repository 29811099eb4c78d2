// The scheduled market-data refresh of one chain, computed from the index at its indexed_through block:
// price (the last indexed Swap's sqrtPriceX96; the pool's slot0 before any trade), market cap (price ×
// launch supply), liquidity (the quote currency the pool holds), 1h/6h/24h activity and the trending
// score. Price and reserve are the indexer's totals of each token's trades (tradeTotals.ts), which also
// tell the tokens traded since a block. Only tokens whose values can have moved are recomputed: those
// without market data, those a reorg marked, and those with trades in the last 24 h or since the last
// refresh. USD is not stored per row: rows keep quote-unit values and their usd_source, and the native
// USD price read here goes to market_state, so a moved price rewrites no row (marketData.ts: marketView).
import { type Kysely, sql } from 'kysely';
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  numberToHex,
  parseAbi,
  zeroAddress,
} from 'viem';
import { ERC20_ABI } from '../chain/erc20.ts';
import type { RpcEndpoint } from '../chain/rpc.ts';
import { UNISWAP } from '../chain/uniswap.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import {
  amountSum,
  type Database,
  insertMany,
  type TokenMarketTable,
  type Tables,
  type TokensTable,
} from '../store/db.ts';
import { rebuildMarketPartition } from '../store/marketPartitions.ts';
import { announceMarketWritten } from '../store/wakeups.ts';
import {
  type Activity,
  decimal,
  marketCap,
  marketCapSql,
  pricePerToken,
  quoteRank,
  quoteRankSql,
  quoteUnit,
  roundScore,
  TRENDING_CAP_PER_TRADER,
  trendingWeight,
  USD_SOURCE,
  type UsdSource,
  WINDOWS,
} from './marketData.ts';

/** Tokens computed per round of reads and one upsert. */
const CHUNK = 2000;
/** Recomputed rows from which PostgreSQL builds the chain's partition anew (half its tokens or more). */
const PARTITION_BUILD_ROWS = 10_000;
/** Rows given their usd_source per statement (after the upgrade that added it). */
const SOURCE_BATCH = 20_000;
/** The decimals of a quote currency the chain's manifest does not list. */
const UNLISTED_DECIMALS = 18;

/** What a chain's market refresh reads from and writes to. */
export type RefreshMarketInput = {
  chainId: ChainId;
  endpoint: RpcEndpoint;
  database: Database;
  deployments: Deployments;
  nowMs: number;
};

/** The last refresh queued on each database handle: they run one at a time (see refreshMarket). */
const lanes = new WeakMap<Database, Promise<unknown>>();

/**
 * Refreshes one chain's market data; returns how many tokens were recomputed. Refreshes on one database
 * handle run one at a time, in the order asked: four chains' full refreshes side by side took both cores
 * of the bench's machine, and a token list's p99 meanwhile went to 358 ms; one at a time it was 9–12 ms,
 * the four done in 44–50 s against 41 s. (Only their partition builds one at a time: 18 ms, 55 s.)
 */
export function refreshMarket(opts: RefreshMarketInput): Promise<number> {
  const run = (lanes.get(opts.database) ?? Promise.resolve()).catch(() => {}).then(() => refreshChain(opts));
  lanes.set(opts.database, run);
  return run;
}

/** One chain's market refresh (refreshMarket's work). */
async function refreshChain(opts: RefreshMarketInput): Promise<number> {
  const { chainId, database, deployments } = opts;
  const db = database.db;
  const state = await db
    .selectFrom('index_state')
    .select('indexed_through')
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  if (!state) return 0;
  const through = Number(state.indexed_through);
  const [block] = await opts.endpoint.batchResults<{ timestamp: Hex } | null>([
    { method: 'eth_getBlockByNumber', params: [numberToHex(through), false] },
  ]);
  if (!block) throw new Error(`block ${through} is not available for the market refresh`);
  const chainTime = Number(BigInt(block.timestamp));
  const previous = await db
    .selectFrom('market_state')
    .selectAll()
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  // (A reorg lowers the state's as_of_block to its fork: tokens traded above it are due again.)
  const previousBlock = Number(previous?.as_of_block ?? -1);

  // The native currency's USD price at this block, for the chain's native- and WETH-quoted tokens.
  const manifest = deployments.get(chainId);
  const native = await nativeUsd(opts.endpoint, manifest?.native_usd_feed as Address | undefined, through);
  const pegged = [zeroAddress, ...(manifest?.weth ? [manifest.weth] : [])];
  const sourceOf = (token: { suite_id: string; quote_address: string }): UsdSource =>
    deployments.quote(chainId, token.suite_id, token.quote_address)?.asset_type === 'stablecoin'
      ? USD_SOURCE.stablecoin
      : pegged.includes(token.quote_address as Address)
        ? USD_SOURCE.native
        : USD_SOURCE.none;
  await setUnknownSources(database, chainId, sourceOf);
  // Each quote currency's decimals and USD source, looked up once a refresh.
  const quotes = new Map<string, QuoteOf>();
  const quoteOf = ({ suite_id, quote_address }: { suite_id: string; quote_address: string }) => {
    const key = `${suite_id}/${quote_address}`;
    let quote = quotes.get(key);
    if (!quote) {
      const decimals = deployments.quote(chainId, suite_id, quote_address)?.decimals ?? UNLISTED_DECIMALS;
      quote = { suite_id, quote_address, decimals, source: sourceOf({ suite_id, quote_address }) };
      quotes.set(key, quote);
    }
    return quote;
  };

  // Computed in full: tokens without market data (or without its quote-unit ranks), those a reorg
  // marked, and those with trades in the last 24 h of the previous refresh or since it. (Found from the
  // two tables' keys and the market rows alone: at 1M tokens, a join of the wide token rows to theirs
  // took 1.2 s a chain at every refresh.)
  const recompute = await db.transaction().execute(async (trx) => {
    // (The keys of a chain's 400k tokens and market rows, hashed in memory rather than on disk.)
    if (database.kind === 'postgres') await sql`set local work_mem = '64MB'`.execute(trx);
    return trx
      .selectFrom('tokens as t')
      .select('t.address')
      .where('t.chain_id', '=', chainId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('token_market as m')
              .select('m.address')
              .whereRef('m.chain_id', '=', 't.chain_id')
              .whereRef('m.address', '=', 't.address'),
          ),
        ),
      )
      .unionAll(
        trx
          .selectFrom('token_market')
          .select('address')
          .where('chain_id', '=', chainId)
          .where((eb) => eb.or([eb('rebuild', '=', 1), eb('market_cap_quote', 'is', null)])),
      )
      .execute();
  });
  const sinceBlock = previous
    ? Math.min(
        previousBlock + 1,
        await firstBlockFrom(database, chainId, Number(previous.chain_time) - WINDOWS['24h'], through),
      )
    : 0;
  // Tokens traded since either block, by their totals' last block: those since the previous refresh
  // (or in its window, which has moved on) are due, those in this window have activity to sum.
  const windowBlock = await firstBlockFrom(database, chainId, chainTime - WINDOWS['24h'], through);
  const traded = await tradedSince(database, chainId, Math.min(sinceBlock, windowBlock));
  const due = new Set(recompute.map((r) => r.address));
  const active = new Set<string>();
  for (const [token, block] of traded) {
    if (block >= sinceBlock) due.add(token);
    if (block >= windowBlock) active.add(token);
  }
  // (Counted only when it decides something: a refresh large enough to build the partition.)
  let counted: number | undefined;
  const chainTokens = async () => (counted ??= await countTokens(database, chainId));
  // (In address order: each chunk's reads and writes walk their indexes' ranges in order.)
  const addresses = [...due].sort();
  // Most of a big chain's rows recomputed (a first refresh, a deep reorg's rebuild): PostgreSQL builds
  // the chain's partition anew rather than update each row in nine indexes.
  const build =
    database.kind === 'postgres' &&
    addresses.length >= PARTITION_BUILD_ROWS &&
    addresses.length * 2 >= (await chainTokens());
  const every = build && addresses.length >= (await chainTokens());
  /** The recomputed rows of the tokens `due`, CHUNK tokens at a time, each chunk handed to `put`. */
  const recomputed = async (due: string[], put: (rows: TokenMarketTable[]) => Promise<void>) => {
    for await (const tokens of marketInputs(database, chainId, due)) {
      const chunk = tokens.map((t) => t.address);
      const recent = await recentFigures(
        database,
        chainId,
        chunk.filter((a) => active.has(a)),
        { through, windowBlock, now: chainTime },
      );
      const live = await liveReads(
        opts,
        // (Trades indexed before prices were recorded carry none.)
        tokens.filter((t) => !t.traded_sqrt && !t.stored_sqrt),
        tokens.filter((t) => t.launch_supply === '0'),
        through,
      );
      const rows: TokenMarketTable[] = tokens.map((token) => {
        // (Stored amounts are kept as the text they are; a BigInt only where there is arithmetic.)
        const sqrt = token.traded_sqrt ?? token.stored_sqrt ?? String(live.sqrt.get(token.address) ?? 0n);
        const supply = BigInt(
          token.launch_supply === '0' ? (live.supply.get(token.address) ?? 0n) : token.launch_supply,
        );
        const reserve = token.reserve_quote_raw ?? '0';
        const figures = recent.get(token.address);
        const quote = quoteOf(token);
        return {
          chain_id: chainId,
          address: token.address,
          market: token.market,
          sqrt_price_x96: sqrt,
          reserve_quote_raw: reserve,
          activity: figures ? JSON.stringify(figures.activity) : NO_ACTIVITY,
          market_cap_quote: quoteRank(
            marketCap(pricePerToken(BigInt(sqrt), token.address, token.quote_address), supply),
            quote.decimals,
          ),
          liquidity_quote: quoteRank(BigInt(reserve), quote.decimals),
          volume_24h_quote: figures
            ? quoteRank(BigInt(figures.activity['24h'].volume_quote_raw), quote.decimals)
            : 0,
          usd_source: quote.source,
          trending_score: figures?.score ?? 0,
          as_of_block: through,
          updated_at: opts.nowMs,
          rebuild: 0,
          search_words: token.search_words,
        };
      });
      await put(rows);
    }
  };
  if (every)
    await rebuildMarketPartition(
      database,
      chainId,
      async (put, table) => {
        const at = { chainId, windowBlock, through, nowMs: opts.nowMs };
        // (The manifest's quotes; a pair it does not list has quoteOf's defaults, which the
        // database applies itself: no scan of the chain's tokens for their pairs.)
        const listed = (manifest?.quotes ?? []).map((q) =>
          quoteOf({ suite_id: q.suite_id, quote_address: q.address }),
        );
        // The tokens traded in the window (the costly sums) are computed while the database writes the
        // quiet ones, on another connection; then the others it found (never traded, or traded since).
        // (In the bench, the full refresh of 1M tokens with reads meanwhile: 32.8-40.0 s in four rounds,
        // against 44.3-61.4 s one after the other.)
        const busy = [...active].sort();
        const [, rest] = await Promise.all([
          recomputed(busy, put),
          writeQuietRows(database, table, at, { listed, pegged }),
        ]);
        const others = new Set(rest);
        // (A reorg between the two reads can leave a token of the window quiet in the second: its row
        // was written twice, and goes, to be computed once.)
        const twice = busy.filter((a) => !others.has(a));
        for (let i = 0; i < twice.length; i += CHUNK)
          await database.db
            .deleteFrom(table as 'token_market')
            .where('address', 'in', twice.slice(i, i + CHUNK))
            .execute();
        await recomputed([...rest.filter((a) => !active.has(a)), ...twice].sort(), put);
      },
      true,
    );
  else if (build) await rebuildMarketPartition(database, chainId, (put) => recomputed(addresses, put));
  else await recomputed(addresses, (rows) => upsertMarket(database, rows));
  const next = {
    usd_sources: await usdSourcesOf(database, chainId),
    refreshed_at: opts.nowMs,
    chain_time: chainTime,
    as_of_block: through,
    native_usd: native?.usd ?? null,
    native_usd_at: native?.at ?? null,
  };
  await db
    .insertInto('market_state')
    .values({ chain_id: chainId, ...next })
    .onConflict((oc) => oc.column('chain_id').doUpdateSet(next))
    .execute();
  // This process's copies of market_state and its shared pages are made again.
  announceMarketWritten(database, chainId);
  return addresses.length;
}

/** A quote currency of a chain's tokens, with its decimals and USD source (refreshMarket's quoteOf). */
type QuoteOf = { suite_id: string; quote_address: string; decimals: number; source: UsdSource };

/** A token and its trades' totals, the inputs of its market row. */
const inputsQuery = (db: Kysely<Tables>, chainId: ChainId) =>
  db
    .selectFrom('tokens as t')
    .leftJoin('token_totals as s', (j) =>
      j.onRef('s.chain_id', '=', 't.chain_id').onRef('s.address', '=', 't.address'),
    )
    .select(['t.address', 't.market', 't.suite_id', 't.quote_address', 't.pool_id', 't.launch_supply'])
    .select('t.search_words')
    .select(['s.reserve_quote_raw', 's.sqrt_price_x96 as traded_sqrt'])
    .where('t.chain_id', '=', chainId);
type MarketInput = Awaited<ReturnType<ReturnType<typeof inputsQuery>['execute']>>[number] & {
  /** The price stored for a token never traded (read live once), unless a reorg marked its row. */
  stored_sqrt: string | null;
};

/** The market inputs of the tokens `due`, CHUNK at a time. */
async function* marketInputs(
  database: Database,
  chainId: ChainId,
  due: string[],
): AsyncGenerator<MarketInput[]> {
  const db = database.db;
  for (let i = 0; i < due.length; i += CHUNK) {
    const tokens = await inputsQuery(db, chainId)
      .where('t.address', 'in', due.slice(i, i + CHUNK))
      .execute();
    const untraded = tokens.filter((t) => !t.traded_sqrt).map((t) => t.address);
    const stored = new Map(
      untraded.length === 0
        ? []
        : (
            await db
              .selectFrom('token_market')
              .select(['address', 'sqrt_price_x96'])
              .where('chain_id', '=', chainId)
              .where('address', 'in', untraded)
              .where('rebuild', '=', 0)
              .execute()
          ).map((m) => [m.address, m.sqrt_price_x96]),
    );
    if (tokens.length > 0) yield tokens.map((t) => ({ ...t, stored_sqrt: stored.get(t.address) ?? null }));
  }
}

/**
 * PostgreSQL, every token of the chain due: writes into `table` the rows of the quiet tokens (traded,
 * but not since the 24 h window began: nothing to sum, nothing to read live), which the database
 * computes from their totals with the refresh's own arithmetic (marketCapSql, quoteRankSql), and
 * returns the other tokens, found in the same snapshot, for the refresh to compute. (At 1M tokens,
 * about 90 % are quiet: mapping each in Node was most of a full refresh's time on its one thread.)
 */
async function writeQuietRows(
  database: Database,
  table: string,
  at: { chainId: ChainId; windowBlock: number; through: number; nowMs: number },
  quotes: { listed: QuoteOf[]; pegged: string[] },
): Promise<string[]> {
  const { chainId } = at;
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      // Each listed quote currency's unit (10^-decimals) and USD source, as the refresh's quoteOf gives
      // them (looked up by address in any case, as the manifest's are); for a pair not listed, quoteOf's
      // defaults: UNLISTED_DECIMALS, and native when the quote is pegged to it, else none.
      const rows = quotes.listed.map(
        (q) =>
          sql`(${q.suite_id}, ${q.quote_address.toLowerCase()}, ${quoteUnit(q.decimals)}::numeric, ${q.source}::integer)`,
      );
      const values = sql`(values ${sql.join(rows.length > 0 ? rows : [sql`(null, null, null::numeric, null::integer)`])})
        as q (suite_id, quote_address, unit, usd_source)`;
      const unit = sql`coalesce(q.unit, ${quoteUnit(UNLISTED_DECIMALS)}::numeric)`;
      const source = sql`coalesce(q.usd_source, case when t.quote_address in (${sql.join(quotes.pegged)})
        then ${USD_SOURCE.native}::integer else ${USD_SOURCE.none}::integer end)`;
      const quiet = sql`coalesce(s.last_block < ${at.windowBlock} and t.launch_supply <> '0'
        and s.sqrt_price_x96 is not null, false)`;
      // One pass over the chain's tokens and their totals: its rows feed the insert of the quiet ones
      // and the list of the others. (In memory: at the default work_mem, a chain of 400k tokens wrote
      // the join's batches to disk, and these rows would follow. Two passes took 10.8 s of the
      // database's time for the bench's 1M tokens, this one 8.2 s.) The tokens' columns it reads are those
      // the tokens_market_inputs index carries (migration 0031): the wide token rows are not read.
      await sql`set local work_mem = '256MB'`.execute(trx);
      const cap = marketCapSql(
        sql`u.sqrt_price_x96::numeric`,
        sql`u.launch_supply::numeric`,
        // (pricePerToken's order of the two addresses: equal-length hex, compared byte by byte.)
        sql`lower(u.address) collate "C" < lower(u.quote_address) collate "C"`,
      );
      const rest = await sql<{ address: string }>`with u as materialized (
          select t.address, t.market, t.search_words, t.launch_supply, t.quote_address, s.sqrt_price_x96,
            coalesce(s.reserve_quote_raw, '0') as reserve, ${unit} as unit, ${source} as usd_source,
            ${quiet} as quiet
          from tokens t
          left join token_totals s on s.chain_id = t.chain_id and s.address = t.address
          left join ${values} on q.suite_id = t.suite_id and q.quote_address = lower(t.quote_address)
          where t.chain_id = ${chainId}
        ), written as (
          insert into ${sql.table(table)} (chain_id, address, market, sqrt_price_x96, reserve_quote_raw,
            activity, market_cap_quote, liquidity_quote, volume_24h_quote, usd_source, trending_score,
            as_of_block, updated_at, rebuild, search_words)
          select ${chainId}::integer, u.address, u.market, u.sqrt_price_x96, u.reserve, ${NO_ACTIVITY}::text,
            ${quoteRankSql(cap, sql`u.unit`)}, ${quoteRankSql(sql`u.reserve::numeric`, sql`u.unit`)}, 0,
            u.usd_source, 0, ${at.through}::bigint, ${at.nowMs}::bigint, 0, u.search_words
          from u where u.quiet
        )
        select address from u where not u.quiet order by address`.execute(trx);
      return rest.rows.map((r) => r.address);
    });
}

/** Writes recomputed market rows over the stored ones. */
async function upsertMarket(database: Database, rows: TokenMarketTable[]): Promise<void> {
  // (PostgreSQL: the rows as one JSON parameter, not 14 a row; 28,000 parameters a chunk made chain
  // 5042's writes at 1M tokens 12.6-14.2 s, against 10.3-11.1 s. SQLite: one transaction a chunk.)
  await database.db.transaction().execute((trx) =>
    insertMany(database, trx, 'token_market', rows, (oc) =>
      oc.columns(['chain_id', 'address']).doUpdateSet((eb) => ({
        sqrt_price_x96: eb.ref('excluded.sqrt_price_x96'),
        reserve_quote_raw: eb.ref('excluded.reserve_quote_raw'),
        activity: eb.ref('excluded.activity'),
        market_cap_quote: eb.ref('excluded.market_cap_quote'),
        liquidity_quote: eb.ref('excluded.liquidity_quote'),
        volume_24h_quote: eb.ref('excluded.volume_24h_quote'),
        usd_source: eb.ref('excluded.usd_source'),
        trending_score: eb.ref('excluded.trending_score'),
        as_of_block: eb.ref('excluded.as_of_block'),
        rebuild: eb.ref('excluded.rebuild'),
        updated_at: eb.ref('excluded.updated_at'),
        search_words: eb.ref('excluded.search_words'),
      })),
    ),
  );
}

/** The bitmask of usd_sources the chain's market rows have (market_state.usd_sources): a probe a source. */
async function usdSourcesOf(database: Database, chainId: ChainId): Promise<number> {
  let mask = 0;
  for (const source of Object.values(USD_SOURCE)) {
    const row = await database.db
      .selectFrom('token_market')
      .select('address')
      .where('chain_id', '=', chainId)
      .where('usd_source', '=', source)
      .limit(1)
      .executeTakeFirst();
    if (row) mask |= 1 << source;
  }
  return mask;
}

/**
 * Gives the chain's market rows without a usd_source (those of an index made before it was kept) theirs,
 * by their tokens' quote currencies, SOURCE_BATCH rows a statement (its partial index finds them).
 */
async function setUnknownSources(
  database: Database,
  chainId: ChainId,
  sourceOf: (token: { suite_id: string; quote_address: string }) => UsdSource,
): Promise<void> {
  const db = database.db;
  for (;;) {
    const rows = await db
      .selectFrom('token_market as m')
      .innerJoin('tokens as t', (j) =>
        j.onRef('t.chain_id', '=', 'm.chain_id').onRef('t.address', '=', 'm.address'),
      )
      .select(['m.address', 't.suite_id', 't.quote_address'])
      .where('m.chain_id', '=', chainId)
      .where('m.usd_source', 'is', null)
      .limit(SOURCE_BATCH)
      .execute();
    // (A market row without its token, which a reorg's delete leaves for no time, is left for the next.)
    if (rows.length === 0) return;
    for (const source of Object.values(USD_SOURCE)) {
      const addresses = rows.filter((r) => sourceOf(r) === source).map((r) => r.address);
      if (addresses.length > 0)
        await db
          .updateTable('token_market')
          .set({ usd_source: source })
          .where('chain_id', '=', chainId)
          .where('address', 'in', addresses)
          .execute();
    }
    if (rows.length < SOURCE_BATCH) return;
  }
}

/** How many tokens the chain has. */
async function countTokens(database: Database, chainId: ChainId): Promise<number> {
  const row = await database.db
    .selectFrom('tokens')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The block of the last trade of each token traded at or after block `from` (a range of token_totals). */
async function tradedSince(database: Database, chainId: ChainId, from: number): Promise<Map<string, number>> {
  const rows = await database.db
    .selectFrom('token_totals')
    .select(['address', 'last_block'])
    .where('chain_id', '=', chainId)
    .where('last_block', '>=', from)
    .execute();
  return new Map(rows.map((r) => [r.address, Number(r.last_block)]));
}

/**
 * The first block at or after chain time `time` among the chain's trades (through + 1 when none is):
 * a binary search over blocks by the trades' key in block order (trades_block on SQLite), since block
 * times only grow.
 */
async function firstBlockFrom(database: Database, chainId: ChainId, time: number, through: number) {
  const firstTradeFrom = async (block: number) =>
    database.db
      .selectFrom('trades')
      .select(['block_number', 'timestamp'])
      .where('chain_id', '=', chainId)
      .where('block_number', '>=', block)
      .where('block_number', '<=', through)
      .orderBy('block_number')
      .limit(1)
      .executeTakeFirst();
  let low = 0;
  let high = through + 1; // the answer lies in [low, high]
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const trade = await firstTradeFrom(middle);
    if (!trade) high = middle;
    else if (Number(trade.timestamp) >= time) high = Math.min(middle, Number(trade.block_number));
    else low = Number(trade.block_number) + 1;
  }
  const trade = await firstTradeFrom(low);
  return trade ? Number(trade.block_number) : through + 1;
}

/** The stored activity of a token without trades in any window. */
const NO_ACTIVITY = JSON.stringify(
  Object.fromEntries(Object.keys(WINDOWS).map((name) => [name, { trades: 0, volume_quote_raw: '0' }])),
);

/**
 * Each token's last 24 h at chain time `now`, summed by the database: per token (trades and quote
 * volume per window, the trending weight of every trade), less what its busy traders weigh past the
 * per-trader cap (summed per token and trader, with only the weight kept).
 */
async function recentFigures(
  database: Database,
  chainId: ChainId,
  tokens: string[],
  at: { through: number; windowBlock: number; now: number },
): Promise<Map<string, { activity: Activity; score: number }>> {
  if (tokens.length === 0) return new Map();
  const { now } = at;
  const windows = Object.entries(WINDOWS) as [keyof typeof WINDOWS, number][];
  const weight = sql<number>`sum(case when timestamp <= ${now} then ${trendingWeight(now)} else 0 end)`;
  const rows = await database.db.transaction().execute(async (trx) => {
    // A hot token has hundreds of thousands of traders a day: their weights fit in memory, not in the
    // default work_mem (else they are sorted on disk).
    if (database.kind === 'postgres') await sql`set local work_mem = '128MB'`.execute(trx);
    const window = trx
      .selectFrom('trades')
      .where('chain_id', '=', chainId)
      .where('token', 'in', tokens)
      .where('block_number', '>=', at.windowBlock)
      .where('block_number', '<=', at.through)
      .where('timestamp', '>=', now - WINDOWS['24h']);
    const perToken = window
      .select('token')
      .select(
        windows.flatMap(([name, seconds]) => [
          sql<number | string>`sum(case when timestamp > ${now - seconds} then 1 else 0 end)`.as(`n_${name}`),
          amountSum(database.kind, sql`case when timestamp > ${now - seconds} then quote_amount_raw end`).as(
            `v_${name}`,
          ),
        ]),
      )
      .select(weight.as('weight'))
      .groupBy('token');
    // (A trade weighs at most 1, so only a trader with more than CAP trades passes the cap. Per token
    // and trader with the weight alone, not each window's sums too: 4.5 s instead of 6.7 s for the
    // heaviest chunk at 1M tokens, 1.2M such pairs.)
    const overCap = trx
      .selectFrom(
        window
          .select(['token', weight.as('w')])
          .groupBy(['token', 'trader'])
          .having(weight, '>', TRENDING_CAP_PER_TRADER)
          .as('p'),
      )
      .select(['token', sql<number>`sum(w - ${TRENDING_CAP_PER_TRADER})`.as('excess')])
      .groupBy('token');
    return trx
      .selectFrom(perToken.as('g'))
      .leftJoin(overCap.as('e'), 'e.token', 'g.token')
      .selectAll('g')
      .select('e.excess')
      .execute();
  });
  return new Map(
    (rows as unknown as Record<string, string | number | null>[]).map((row) => [
      String(row.token),
      {
        activity: Object.fromEntries(
          windows.map(([name]) => [
            name,
            { trades: Number(row[`n_${name}`]), volume_quote_raw: String(row[`v_${name}`] ?? 0) },
          ]),
        ) as Activity,
        score: roundScore(Number(row.weight) - Number(row.excess ?? 0)),
      },
    ]),
  );
}

const FEED_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80, int256, uint256, uint256, uint80)',
]);

/** The native currency's USD price from its feed at `through`, or null when there is none or it fails. */
async function nativeUsd(
  endpoint: RpcEndpoint,
  feed: Address | undefined,
  through: number,
): Promise<{ usd: number; at: number } | null> {
  if (!feed) return null;
  const at = numberToHex(through);
  const call = (functionName: 'decimals' | 'latestRoundData') => ({
    method: 'eth_call',
    params: [{ to: feed, data: encodeFunctionData({ abi: FEED_ABI, functionName }) }, at],
  });
  try {
    const [decimals, round] = await endpoint.batchResults<Hex>([call('decimals'), call('latestRoundData')]);
    const d = decodeFunctionResult({ abi: FEED_ABI, functionName: 'decimals', data: decimals as Hex });
    const [, answer, , updatedAt] = decodeFunctionResult({
      abi: FEED_ABI,
      functionName: 'latestRoundData',
      data: round as Hex,
    });
    if (answer <= 0n) return null;
    return { usd: Number(decimal(answer, d, 8)), at: Number(updatedAt) };
  } catch {
    return null; // the USD figures of these tokens become null; the refresh itself goes on
  }
}

type PoolOf = Pick<TokensTable, 'address' | 'suite_id' | 'pool_id'>;

/**
 * What the index cannot tell, read at the refresh's block in one batch: the pool price of tokens never
 * traded, and the supply of tokens indexed before launch supplies were recorded.
 */
async function liveReads(
  opts: { chainId: ChainId; endpoint: RpcEndpoint; deployments: Deployments },
  untraded: PoolOf[],
  unsupplied: PoolOf[],
  through: number,
) {
  const suites = opts.deployments.get(opts.chainId)?.suites ?? [];
  const slot0 = UNISWAP.StateView().abi as Abi;
  const at = numberToHex(through);
  const answers = await opts.endpoint.batchResults<Hex>([
    ...untraded.map((t) => ({
      method: 'eth_call',
      params: [
        {
          to: suites.find((s) => s.id === t.suite_id)?.contracts.state_view,
          data: encodeFunctionData({ abi: slot0, functionName: 'getSlot0', args: [t.pool_id as Hex] }),
        },
        at,
      ],
    })),
    ...unsupplied.map((t) => ({
      method: 'eth_call',
      params: [
        { to: t.address, data: encodeFunctionData({ abi: ERC20_ABI as Abi, functionName: 'totalSupply' }) },
        at,
      ],
    })),
  ]);
  const sqrt = new Map(
    untraded.map((t, i) => {
      const [price] = decodeFunctionResult({
        abi: slot0,
        functionName: 'getSlot0',
        data: answers[i] as Hex,
      }) as [bigint];
      return [t.address, price];
    }),
  );
  const supply = new Map(
    unsupplied.map((t, i) => [
      t.address,
      decodeFunctionResult({
        abi: ERC20_ABI as Abi,
        functionName: 'totalSupply',
        data: answers[untraded.length + i] as Hex,
      }) as bigint,
    ]),
  );
  return { sqrt, supply };
}
