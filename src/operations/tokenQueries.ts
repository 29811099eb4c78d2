// The indexed reads of tokens: list, search, a creator's tokens, detail, trades, announcements and
// holders. Served from the index (src/indexer); every answer carries how far the index reached. Lists
// page with signed cursors bound to the operation and its filters.
import { type RawBuilder, sql } from 'kysely';
import { type Address, getAddress } from 'viem';
import type { ChainClients } from '../chain/clients.ts';
import type { Clock } from '../clock.ts';
import { Cursors } from '../cursor.ts';
import { ApiError } from '../errors.ts';
import { indexedThrough } from '../indexer/indexedThrough.ts';
import {
  hasUsdSource,
  marketOf,
  marketRecord,
  marketStates,
  type MarketView,
  marketView,
  USD_SOURCE,
  usdPrice,
} from '../indexer/marketData.ts';
import { prefixEnd, searchWords } from '../indexer/words.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { type MetadataDocument, type MetadataDocuments, publicUrlOf } from '../pinning/documents.ts';
import type { Settings } from '../settings.ts';
import { amountOfSortable, SORTABLE_ZERO } from '../store/amounts.ts';
import {
  type AnnouncementsTable,
  type Database,
  type FeeCreditsTable,
  literalLimit,
  type MarketStateTable,
  type Tables,
  type TokenMarketTable,
  type TokensTable,
  type TradesTable,
} from '../store/db.ts';
import { sharedPage } from './sharedPages.ts';

/** How long a list waits for a document not yet read (a single token waits the full fetch time). */
const LIST_DOCUMENT_WAIT_MS = 1000;

export interface TokenReadDeps {
  settings: Settings;
  database: Database;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  cursors: Cursors;
  documents: MetadataDocuments;
}

/** One page of an indexed list, and how far the index reached (per chain when it spans chains). */
export interface IndexedPage<T = unknown> {
  items: T[];
  next: string | null;
  indexedThrough: unknown;
  /** Notes for meta.warnings (e.g. a chain whose native USD price could not be read). */
  warnings?: string[];
}

/** How much, and from where: the page size (already bounded by the caller's plan) and the cursor. */
export interface PageInput {
  limit: number;
  cursor?: string;
  /** Public origin of the gateway, for ipfs:// images in token records. */
  origin: string;
}

export interface TokenRowsInput {
  chainId: ChainId;
  token: Address;
  limit: number;
  cursor?: string;
}

/** The lists a cursor can belong to (a cursor of one is refused by another). */
type ListName = 'token_list' | 'token_search' | 'creator_tokens' | 'token_trades' | 'token_announcements';

export const SORTS = ['newest', 'oldest', 'trending', 'liquidity', 'market_cap', 'volume_24h'] as const;
export type Sort = (typeof SORTS)[number];
/**
 * The ranked orders: highest first, by a column of the refreshed market data
 * (src/indexer/marketRefresh.ts). USD orders rank each token's quote-unit value times its chain's USD
 * price for its usd_source, read at the last refresh (see rankedBranches).
 */
const RANKED = {
  trending: { column: 'trending_score', usd: false },
  liquidity: { column: 'liquidity_quote', usd: true },
  market_cap: { column: 'market_cap_quote', usd: true },
  volume_24h: { column: 'volume_24h_quote', usd: true },
} as const;
type Ranked = (typeof RANKED)[keyof typeof RANKED];
/** The market row's fields a token record shows: as columns of `token_market as m`, and of a ranked page `b`. */
const MARKET_FIELDS = [
  'sqrt_price_x96',
  'reserve_quote_raw',
  'activity',
  'market_cap_quote',
  'liquidity_quote',
  'volume_24h_quote',
  'usd_source',
  'trending_score',
  'as_of_block',
  'updated_at',
  'rebuild',
] as const;
const MARKET_COLUMNS = MARKET_FIELDS.map((f) => `m.${f}` as const);
const RANKED_COLUMNS = MARKET_FIELDS.map((f) => `b.${f}` as const);

/** A query word starting at most this many word rows is rare: its tokens are read and sorted. */
const RARE = 500;
/**
 * Of several common query words, one starting at most this many word rows gives the candidates: its
 * rows are walked by their lead, or its tokens tested and sorted (see readTokenPage).
 */
const SORTED_WORD_ROWS = 20_000;

const iso = (seconds: number | string | bigint) => new Date(Number(seconds) * 1000).toISOString();

/**
 * The token record. Profile fields (description, image, links) come from its ipfs:// metadata document
 * (`doc`, read wherever it was pinned), else they are null; `origin` serves ipfs:// images.
 */
export function tokenRecord(
  deps: TokenReadDeps,
  t: TokensTable,
  include: Set<string>,
  profile: { doc: MetadataDocument | null; origin: string },
  market?: MarketView,
) {
  const quote = deps.deployments.quote(t.chain_id as ChainId, t.suite_id, t.quote_address);
  const text = (key: string) => {
    const v = profile.doc?.[key];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  return {
    chain_id: t.chain_id,
    market: t.market,
    token: {
      address: t.address,
      name: t.name,
      symbol: t.symbol,
      decimals: 18,
      metadata_uri: t.metadata_uri,
      description: text('description'),
      image_url: publicUrlOf(profile.doc?.image, profile.origin),
      website: text('website'),
      x: text('x'),
      telegram: text('telegram'),
      // The chain's raw bytes of fields whose text had to be made safe (NUL, invalid UTF-8).
      ...(t.raw_hex ? { raw_hex: JSON.parse(t.raw_hex) as Record<string, string> } : {}),
    },
    launch: {
      creator_address: t.creator,
      pool_id: t.pool_id,
      created_at: iso(t.created_at),
      block_number: String(t.block_number),
      quote: { address: t.quote_address, symbol: quote?.symbol ?? null, decimals: quote?.decimals ?? null },
      onchain: { transaction_hash: t.tx_hash },
      contracts: { hook_address: t.hook },
      suite_id: t.suite_id,
    },
    current_creator_address: t.current_creator,
    creator_fee_recipient_address: t.fee_recipient || null,
    ...(include.has('pool')
      ? { pool: { hook_address: t.hook, tick_spacing: t.tick_spacing, pool_id: t.pool_id } }
      : {}),
    ...(include.has('market')
      ? {
          market_data: marketRecord(
            market && {
              ...market,
              launch_supply: t.launch_supply,
              address: t.address,
              quote_address: t.quote_address,
            },
            { decimals: quote?.decimals ?? 18 },
            deps.clock.now(),
            2 * deps.settings.marketRefreshMs,
          ),
        }
      : {}),
  };
}

/**
 * Market state of these chains: their rows (the USD prices of the last refresh), the version of their
 * ranked orders (it changes with every market-data refresh, so a ranked cursor from before a refresh is
 * refused, cursor_stale, rather than resumed in a moved order), and a warning per chain whose native
 * USD feed is configured but gave no price at the last refresh.
 */
async function marketState(
  deps: TokenReadDeps,
  chainIds: readonly ChainId[],
): Promise<{
  byChain: Map<number, MarketStateTable>;
  version: string;
  warnings: (found: ChainId[]) => string[];
}> {
  const rows = (await marketStates(deps.database)).filter((r) => chainIds.includes(r.chain_id as ChainId));
  return {
    byChain: new Map(rows.map((r) => [r.chain_id, r])),
    version: rows.map((r) => `${r.chain_id}:${r.refreshed_at}`).join(','),
    warnings: (found) =>
      rows
        .filter(
          (st) =>
            st.native_usd === null &&
            found.includes(st.chain_id as ChainId) &&
            deps.deployments.get(st.chain_id as ChainId)?.native_usd_feed,
        )
        .map(
          (st) =>
            `Chain ${st.chain_id}: the native USD price feed could not be read at the last refresh; usd is null for native- and WETH-quoted tokens.`,
        ),
  };
}

const stale = (why: string) =>
  new ApiError(
    'cursor_stale',
    `The order moved since this cursor was issued (${why}); restart from the first page`,
  );

/** A token's place in launch order (a cursor of newest/oldest). */
interface LaunchPosition {
  created: number;
  chain: number;
  block: number;
  log: number;
}

/** Rows of table `alias` after `p` in launch order, comparing (time, chain, block, log index) as one value. */
const launchOrderAfter = (alias: 't' | 's', sort: Sort, p: LaunchPosition) =>
  sql<boolean>`(${sql.ref(`${alias}.created_at`)}, ${sql.ref(`${alias}.chain_id`)}, ${sql.ref(`${alias}.block_number`)}, ${sql.ref(`${alias}.log_index`)}) ${sql.raw(sort === 'newest' ? '<' : '>')} (${p.created}, ${p.chain}, ${p.block}, ${p.log})`;

/** A prefix starting more words than this is searched through its candidates, not a walk per word. */
const PREFIX_WORDS = 16;

/**
 * A token's name or symbol (alias `t` or `s`; `a`, a word row; `m`, a market row) has a word starting
 * with `word`.
 * A position test, not a LIKE: PostgreSQL estimates a LIKE from its statistics and, finding it rare,
 * scans the whole table for it instead of walking the page's order.
 */
const startsWord = (kind: Database['kind'], alias: 't' | 's' | 'a' | 'm', word: string) =>
  sql<boolean>`${sql.raw(kind === 'postgres' ? 'strpos' : 'instr')}(${sql.ref(`${alias}.search_words`)}, ${` ${word}`}) > 0`;

/** How long a word's row count is kept (per database) before it is counted again. */
const WORD_COUNT_MS = 60_000;
/** Word counts kept per database at most (the oldest go first). */
const WORD_COUNTS_KEPT = 1000;
/**
 * Counts kept per database: of common words' rows (`n` counted up to `upTo`; n = upTo: at least that
 * many) and of the words a prefix starts (keyed `forms <prefix>`).
 */
const countsKept = new WeakMap<Database, Map<string, { n: number; upTo: number; at: number }>>();

/** `database`'s kept counts. */
function keptCounts(database: Database) {
  let kept = countsKept.get(database);
  if (!kept) countsKept.set(database, (kept = new Map()));
  return kept;
}

/** Keeps a count (the oldest go first beyond WORD_COUNTS_KEPT). */
function keepCount(database: Database, key: string, count: { n: number; upTo: number; at: number }) {
  const kept = keptCounts(database);
  kept.delete(key);
  kept.set(key, count);
  if (kept.size > WORD_COUNTS_KEPT) kept.delete(kept.keys().next().value as string);
}

/**
 * How many word rows start with each of `words`, each counted only up to `upTo` (index ranges), and the
 * tokens of each rare one counted now. A count is kept a minute: it only chooses how a page is read (each
 * path reads every matching row), so a count that grew meanwhile slows a read but never changes its
 * page. Up to RARE + 1 the rows themselves are read rather than counted (index-only, as a count is), so
 * that a rare word's page needs no read of its tokens first; `rareTokens`: a kept rare count is not
 * used, for a page that needs those tokens (a ranked one).
 */
async function wordCounts(
  database: Database,
  words: string[],
  chainId?: ChainId,
  { upTo = RARE + 1, rareTokens = false }: { upTo?: number; rareTokens?: boolean } = {},
): Promise<{ n: number[]; rare: Map<string, string[]> }> {
  const kept = keptCounts(database);
  const now = performance.now();
  const keyOf = (w: string) => `${chainId ?? 0} ${w}`;
  const known = words.map((w) => {
    const k = kept.get(keyOf(w));
    return k && now - k.at <= WORD_COUNT_MS && (k.n < k.upTo || k.upTo >= upTo) && (k.n > RARE || !rareTokens)
      ? Math.min(k.n, upTo)
      : null;
  });
  const rare = new Map<string, string[]>();
  const unknown = words.filter((_, i) => known[i] === null);
  if (unknown.length === 0) return { n: known as number[], rare };
  const chain = chainId ? sql`and chain_id = ${chainId}` : sql``;
  const range = (w: string) =>
    sql`from token_words where word >= ${w} and word < ${prefixEnd(w)} ${chain} limit ${literalLimit(upTo)}`;
  const counted = new Map<string, number>();
  if (upTo <= RARE + 1) {
    const parts = unknown.map(
      (w, i) => sql`select ${sql.lit(i)} as i, r.address from (select address ${range(w)}) r`,
    );
    const { rows } = await sql<{
      i: number | string;
      address: string;
    }>`${sql.join(parts, sql` union all `)}`.execute(database.db);
    const listed = unknown.map(() => [] as string[]);
    for (const r of rows) listed[Number(r.i)]?.push(r.address);
    unknown.forEach((w, i) => {
      const addresses = listed[i] as string[];
      counted.set(w, addresses.length);
      if (addresses.length <= RARE) rare.set(w, addresses);
    });
  } else {
    const counts = unknown.map(
      (w, i) => sql`(select count(*) from (select 1 ${range(w)}) r) as ${sql.ref(`c${i}`)}`,
    );
    const { rows } = await sql<Record<string, number | string>>`select ${sql.join(counts)}`.execute(
      database.db,
    );
    unknown.forEach((w, i) => counted.set(w, Number(rows[0]?.[`c${i}`] ?? 0)));
  }
  for (const [w, n] of counted) keepCount(database, keyOf(w), { n, upTo, at: now });
  return { n: words.map((w, i) => known[i] ?? (counted.get(w) as number)), rare };
}

/**
 * The search words starting with `prefix` (up to `upTo` when given), as a recursive CTE `forms(word, n)`:
 * one index seek each (a loose scan); its last row's word is null.
 */
const formsOf = (prefix: string, upTo?: number) => sql`with recursive forms(word, n) as (
      select (select min(word) from token_words where word >= ${prefix} and word < ${prefixEnd(prefix)}), 1
      union all
      select (select min(word) from token_words where word > forms.word and word < ${prefixEnd(prefix)}), n + 1
      from forms where forms.word is not null${upTo === undefined ? sql`` : sql` and n < ${upTo}`}
    )`;

/** The search words starting with `prefix`, up to PREFIX_WORDS + 1 (see formsOf). */
async function wordsStarting(database: Database, prefix: string): Promise<string[]> {
  const { rows } = await sql<{ word: string | null }>`${formsOf(prefix, PREFIX_WORDS + 1)}
    select word from forms where word is not null`.execute(database.db);
  return rows.map((r) => r.word as string);
}

/**
 * How many words start with `prefix` (up to PREFIX_WORDS + 1), kept a minute as word counts are: it only
 * chooses how a page is read, and PostgreSQL's page reads the words themselves (formsOf), so a word that
 * came meanwhile is searched all the same.
 */
async function formCount(database: Database, prefix: string): Promise<number> {
  const key = `forms ${prefix}`;
  const now = performance.now();
  const k = keptCounts(database).get(key);
  if (k && now - k.at <= WORD_COUNT_MS) return k.n;
  const n = (await wordsStarting(database, prefix)).length;
  keepCount(database, key, { n, upTo: PREFIX_WORDS + 1, at: now });
  return n;
}

/**
 * A page of tokens: in launch order (launch time, then chain, block, log index: block numbers of
 * different chains do not compare) for newest/oldest, or highest first by
 * a refreshed market value (then chain, address) for the ranked sorts, resuming after the cursor.
 */
function tokenPage(
  deps: TokenReadDeps,
  operation: ListName,
  filters: { chain_id?: ChainId; market?: string; creator?: string; q?: string },
  page: PageInput & { sort: Sort },
): Promise<IndexedPage> {
  const key = JSON.stringify([operation, filters, page.sort, page.limit, page.cursor ?? null, page.origin]);
  return sharedPage(deps.database, deps.settings.pageShareMs, key, () =>
    readTokenPage(deps, operation, filters, page),
  );
}

/** A ranked page's position: the rank value, then chain, usd_source and the column's own value, address. */
type RankPosition = [value: number, chain: number, source: number, rank: number, address: string];

/** tokenPage, read from the index. */
async function readTokenPage(
  deps: TokenReadDeps,
  operation: ListName,
  filters: { chain_id?: ChainId; market?: string; creator?: string; q?: string },
  page: PageInput & { sort: Sort },
): Promise<IndexedPage> {
  const db = deps.database.db;
  const { limit, cursor, sort, origin } = page;
  const dir = sort === 'oldest' ? 'asc' : 'desc';
  const chainIds = filters.chain_id ? [filters.chain_id] : CHAIN_IDS;
  const scope = Cursors.scope(operation, { ...filters, sort });
  const ranked: Ranked | undefined = sort in RANKED ? RANKED[sort as keyof typeof RANKED] : undefined;
  // Conditions on the token (`t`); a ranked list's are on its market row (`m`, which has the token's
  // search words), and its chain and market are its ranges' own (rankedBranches).
  const where: RawBuilder<boolean>[] = [];
  const on = ranked ? 'm' : 't';
  if (filters.chain_id && !ranked) where.push(sql`t.chain_id = ${filters.chain_id}`);
  if (filters.market && filters.market !== 'all' && !ranked) where.push(sql`t.market = ${filters.market}`);
  // (A creator's tokens are listed in launch order only: never a ranked list's condition.)
  if (filters.creator) where.push(sql`t.creator = ${filters.creator}`);
  // How far the index reached is taken first; the market state and the token a cursor stands on are
  // read side by side with the page, and checked before the page is used.
  const through = indexedThrough(deps.database, chainIds);
  const state = marketState(deps, chainIds);
  // (Awaited together below, after a search's own reads: a failure meanwhile must not go unhandled.)
  for (const p of [through, state]) p.catch(() => {});
  let check: Promise<void> = Promise.resolve();
  let after: LaunchPosition | undefined;
  let position: RankPosition | undefined;
  /** The page is sorted from its candidates rather than walked in the launch-order index. */
  let sorted = false;
  if (cursor && ranked) {
    const decoded = deps.cursors.decode(cursor, scope) as unknown[];
    // (A cursor of the order as it was before USD was applied at read time has four values.)
    if (decoded.length !== 6) throw stale('the order changed');
    position = decoded.slice(0, 5) as RankPosition;
    const issued = decoded[5];
    check = state.then((st) => {
      if (issued !== st.version) throw stale('the market data was refreshed');
    });
    check.catch(() => {});
  } else if (cursor) {
    const [created, chain, block, log, address] = deps.cursors.decode(cursor, scope) as [
      number,
      number,
      number,
      number,
      string,
    ];
    // The token the cursor stands on must still be where it was: a reorg may have removed it.
    check = db
      .selectFrom('tokens')
      .select('block_number')
      .where('chain_id', '=', chain as ChainId)
      .where('address', '=', String(address))
      .executeTakeFirst()
      .then((anchor) => {
        if (!anchor || Number(anchor.block_number) !== block)
          throw stale('its token left the index in a reorg');
      });
    check.catch(() => {});
    after = { created, chain, block, log };
    where.push(launchOrderAfter('t', sort, after));
  }
  if (filters.q) {
    const q = filters.q;
    if (/^0x[0-9a-fA-F]{40}$/.test(q)) where.push(sql`${sql.ref(`${on}.address`)} = ${getAddress(q)}`);
    else {
      const words = searchWords(q);
      if (words.length === 0) return { items: [], next: null, indexedThrough: await through };
      // Every word of the query starts a word of the name or symbol.
      for (const w of words) where.push(startsWord(deps.database.kind, on, w));
      // The rarest query word decides the path: a rare one's few tokens are read and sorted; a common
      // one's list is walked in the page's order (one walk per word it starts, when they are few).
      const { n: counts, rare } = await wordCounts(deps.database, words, filters.chain_id, {
        rareTokens: ranked !== undefined,
      });
      const key = words
        .map((w, i) => ({ w, n: counts[i] ?? 0 }))
        .sort((a, b) => a.n - b.n || b.w.length - a.w.length)[0] as { w: string; n: number };
      // Of several common words, the one with the fewest rows (SORTED_WORD_ROWS at most) gives the
      // candidates, below.
      const counted =
        key.n > RARE && words.length > 1 && !ranked
          ? (await wordCounts(deps.database, words, filters.chain_id, { upTo: SORTED_WORD_ROWS + 1 })).n
          : [];
      const fewest = Math.min(...counted);
      const sortedWord = fewest <= SORTED_WORD_ROWS ? (words[counted.indexOf(fewest)] as string) : undefined;
      // The words the prefix starts: SQLite reads them for its page (in process, no round trip);
      // PostgreSQL reads them in the page's own statement and only counts them here.
      const walked = key.n > RARE && !ranked && !sortedWord;
      const formWords =
        walked && deps.database.kind === 'sqlite' ? await wordsStarting(deps.database, key.w) : undefined;
      const forms = !walked ? 0 : (formWords?.length ?? (await formCount(deps.database, key.w)));
      // On PostgreSQL, without a market filter (the word rows do not know it), the word with the fewest
      // rows, or a common prefix of many words, is walked in the page's order by its first two
      // characters (token_words_lead), a word of two characters or more; and a rare word whose count
      // was kept (a launch-order page) has its rows sorted (token_words_time, index-only) before any
      // token is read ("4711" at 1M: 26 tokens probed instead of its 111, 1.2 ms of execution to 0.4).
      const walkable = sortedWord ?? (walked && forms > PREFIX_WORDS ? key.w : undefined);
      const inOrder =
        deps.database.kind === 'postgres' && (!filters.market || filters.market === 'all')
          ? walkable !== undefined && walkable.length >= 2
            ? { w: walkable, lead: true }
            : !sortedWord && key.n <= RARE && !rare.has(key.w)
              ? { w: key.w, lead: false }
              : undefined
          : undefined;
      const chain = filters.chain_id ? sql`and a.chain_id = ${filters.chain_id}` : sql``;
      /** The token of word row `a` has every query word but `w` (tested on the row's copy of its words). */
      const others = (w: string) =>
        sql.join(
          words.filter((o) => o !== w).map((o) => sql`and ${startsWord(deps.database.kind, 'a', o)}`),
          sql` `,
        );
      if (inOrder) {
        const { w } = inOrder;
        // The word's rows: by its lead (`|| ''`: the prefix is tested on the walk's rows, not read as a
        // range of token_words_time, whose rows the planner may choose to sort when it counts few of
        // them; a word of two characters is its lead: no range, whose guessed share of the lead's rows
        // made the planner count few and sort them), or a rare word's range, its bounds as subqueries:
        // unknown to the planner in every plan, so that its guessed share of the word rows costs the plan
        // made for each run as much as the kept one, and the kept one is used, not a plan made again at
        // each run (1.2 ms of the 1.8 a page took).
        const match = !inOrder.lead
          ? sql`a.word >= (select ${w}::varchar) and a.word < (select ${prefixEnd(w)}::varchar)`
          : w.length > 2
            ? sql`left(a.word, 2) = ${w.slice(0, 2)} and a.word || '' >= ${w} and a.word || '' < ${prefixEnd(w)}`
            : sql`left(a.word, 2) = ${w}`;
        /** The tokens of the word's rows, meeting `more`, with every other word. */
        const rowsOf = (more: RawBuilder<unknown>) =>
          sql`select distinct a.created_at, a.chain_id, a.address from token_words a where ${match} ${chain} ${more} ${others(w)}`;
        // Only the page's candidates reach the tokens: the word's rows in (launch time, chain) order past
        // the cursor's until the page is full (ties kept), and every one of the cursor's own (time,
        // chain) (block and log index order them below). "rocket 47" at 1M, warm, idle: 3.1 ms of
        // execution (11,111 rows of "47" read, sorted and probed) to 0.4 ms (178 walked, from the index).
        const at = after && sql`(${after.created}, ${after.chain})`;
        const past = at
          ? sql`and (a.created_at, a.chain_id) ${sql.raw(sort === 'newest' ? '<' : '>')} ${at}`
          : sql``;
        // (Distinct: a token may have two words the prefix starts; in the index's order, they are adjacent.)
        const candidates = sql`(select d.created_at, d.chain_id, d.address from (${rowsOf(past)} order by ${sql.raw(`a.created_at ${dir}, a.chain_id ${dir}, a.address ${dir}`)}) d
              order by ${sql.raw(`d.created_at ${dir}, d.chain_id ${dir}`)} fetch first ${literalLimit(limit + 1)} rows with ties)
              ${at ? sql`union all (${rowsOf(sql`and (a.created_at, a.chain_id) = ${at}`)})` : sql``}`;
        where.push(sql`(t.chain_id, t.address) in (select c.chain_id, c.address from (${candidates}) c)`);
        sorted = true;
      } else if (sortedWord || (key.n <= RARE && !rare.has(key.w))) {
        // Common words that seldom meet ("rocket 47" at 1M tokens: 66k and 11k tokens, 750 with both)
        // would have a walk in launch order pass every token with one but not the other: elsewhere, the
        // tokens of the word with the fewest rows (at most SORTED_WORD_ROWS) are tested and sorted. So
        // are a rare word's whose count was kept (a launch-order page, on SQLite or of a market), read in
        // the page's own statement (one round trip, not two).
        const w = sortedWord ?? key.w;
        const candidates = sql`select a.chain_id, a.address from token_words a where a.word >= ${w} and a.word < ${prefixEnd(w)} ${chain} ${others(w)}`;
        where.push(sql`(t.chain_id, t.address) in (${candidates})`);
        sorted = true;
      } else if (key.n <= RARE) {
        // (Read with its count.)
        const few = rare.get(key.w) ?? [];
        if (few.length === 0) return { items: [], next: null, indexedThrough: await through };
        // (PostgreSQL: as one array, so that the statement's text, prepared once, is the same for any
        // number of them.)
        where.push(
          deps.database.kind === 'postgres'
            ? sql`${sql.ref(`${on}.address`)} = any(${few}::varchar[])`
            : sql`${sql.ref(`${on}.address`)} in (${sql.join(few)})`,
        );
      } else if (forms > 0 && forms <= PREFIX_WORDS) {
        /** The page's candidates among the tokens with search word `form`, walked in launch order. */
        const walkOf = (form: string | RawBuilder<string>) => {
          let walk = db
            .selectFrom('token_words as w')
            .innerJoin('tokens as s', (j) =>
              j.onRef('s.chain_id', '=', 'w.chain_id').onRef('s.address', '=', 'w.address'),
            )
            .select(['s.chain_id', 's.address'])
            .where('w.word', '=', form);
          for (const w of words) walk = walk.where(startsWord(deps.database.kind, 's', w));
          if (filters.chain_id) walk = walk.where('w.chain_id', '=', filters.chain_id);
          if (filters.market && filters.market !== 'all') walk = walk.where('s.market', '=', filters.market);
          if (after) walk = walk.where(launchOrderAfter('s', sort, after));
          return walk
            .orderBy('w.created_at', dir)
            .orderBy('s.chain_id', dir)
            .orderBy('s.block_number', dir)
            .orderBy('s.log_index', dir)
            .limit(literalLimit(limit + 1));
        };
        if (formWords) {
          const walks = formWords.map((form, i) =>
            db.selectFrom(walkOf(form).as(`walk${i}`)).select([`walk${i}.chain_id`, `walk${i}.address`]),
          );
          where.push(sql<boolean>`(t.chain_id, t.address) in (${walks.reduce((a, b) => a.unionAll(b))})`);
        } else {
          // A walk for each word the prefix starts, read in the same statement (one round trip less),
          // all of them: more than its count kept may start it by now.
          where.push(sql<boolean>`(t.chain_id, t.address) in (${formsOf(key.w)}
            select x.chain_id, x.address from forms f cross join lateral (${walkOf(sql.ref('f.word'))}) x
            where f.word is not null)`);
        }
      }
      // Otherwise the list itself is walked in its order, each row tested by the word filters above.
    }
  }
  const filtered = where.length > 0 ? sql<boolean>`${sql.join(where, sql` and `)}` : sql<boolean>`1 = 1`;
  /** A ranked search's ranges give only their rows' keys (rankedBranches). */
  const keysOnly = where.length > 0;
  /** A ranked page from the merged ranges: those of priced tokens only, or all of them. */
  const rankedPage = (st: Awaited<typeof state>, order: Ranked, unpriced: boolean) => {
    const branches = rankedBranches(order, chainIds, filters.market, st.byChain, position, unpriced);
    if (branches.length === 0) return Promise.resolve([]);
    const union = branches.reduce((a, b) => a.unionAll(b));
    // The page merged from the ranges (each with its market rows) first, then only its rows joined to
    // their tokens. (Joined before the limit, every range's rows were, and to token_market once more,
    // whose nine indexes of four partitions the planner weighed: for a trending page of four chains,
    // 849 buffers read and 2.0 ms to plan and run it, now 140 and 0.7 ms.) A search's ranges give keys
    // only, and its page's market rows are joined with its tokens (see rankedBranches).
    const keys = db
      .selectFrom(union.as('u'))
      .selectAll()
      .orderBy('u.value', 'desc')
      .orderBy('u.chain_id', 'desc')
      .orderBy('u.source', 'desc')
      .orderBy('u.rank', 'desc')
      .orderBy('u.address', 'desc')
      .limit(literalLimit(limit + 1));
    const page = db
      .selectFrom(keys.as('b'))
      .innerJoin('tokens as t', (j) =>
        j.onRef('t.chain_id', '=', 'b.chain_id').onRef('t.address', '=', 'b.address'),
      )
      .selectAll('t')
      .select(['b.value', 'b.source', 'b.rank']);
    return (
      keysOnly
        ? page
            .innerJoin('token_market as m', (j) =>
              j.onRef('m.chain_id', '=', 'b.chain_id').onRef('m.address', '=', 'b.address'),
            )
            .select(MARKET_COLUMNS)
        : page.select(RANKED_COLUMNS)
    )
      .orderBy('b.value', 'desc')
      .orderBy('b.chain_id', 'desc')
      .orderBy('b.source', 'desc')
      .orderBy('b.rank', 'desc')
      .orderBy('b.address', 'desc')
      .limit(literalLimit(limit + 1))
      .execute();
  };
  const rowsOfPage = ranked
    ? state.then(async (st) => {
        // Tokens without a USD price rank at -1, after every priced one (unless values below it tie
        // or pass them): the ranges of priced tokens alone make the page when they fill it above -1.
        const priced = await rankedPage(st, ranked, !ranked.usd);
        const last = priced[limit];
        if (!ranked.usd || (last && Number(last.value) > -1)) return priced;
        return rankedPage(st, ranked, true);
      })
    : db
        .selectFrom(
          // The page's tokens first, then only their market rows. (Joined before the limit, every
          // candidate's was: a rare word's 111 tokens, 111 market rows read for 26.)
          db
            .selectFrom('tokens as t')
            .selectAll()
            .where(filtered)
            // (`+ 0`: an order the launch-time index cannot give, so that the planner reads the
            // candidates and sorts the few that pass rather than walking the index for them.)
            .orderBy(sorted ? sql`t.created_at + 0` : sql.ref('t.created_at'), dir)
            .orderBy('t.chain_id', dir)
            .orderBy('t.block_number', dir)
            .orderBy('t.log_index', dir)
            .limit(literalLimit(limit + 1))
            .as('t'),
        )
        .leftJoin('token_market as m', (j) =>
          j.onRef('m.chain_id', '=', 't.chain_id').onRef('m.address', '=', 't.address'),
        )
        .selectAll('t')
        .select(MARKET_COLUMNS)
        .orderBy('t.created_at', dir)
        .orderBy('t.chain_id', dir)
        .orderBy('t.block_number', dir)
        .orderBy('t.log_index', dir)
        .execute();

  /**
   * The USD-ranked list merges one index range per (chain, usd_source): within one, the rank value is
   * the quote-unit column times one price, so that range is already in the list's order; a moved
   * price then rewrites no row. Rows after the cursor: in the cursor's own range, after its (column,
   * address); in a range ordered after it (a lower chain, or usd_source in the chain), at most its
   * value; before it, below its value. Trending has one range per chain.
   */
  function rankedBranches(
    order: Ranked,
    chains: readonly ChainId[],
    market: string | undefined,
    states: Map<number, MarketStateTable>,
    at: RankPosition | undefined,
    unpriced: boolean,
  ) {
    const column = sql.ref(`m.${order.column}`);
    const sources = order.usd ? Object.values(USD_SOURCE) : [0];
    return chains.flatMap((chain) =>
      sources.flatMap((source) => {
        // (Only the sources the chain's rows have: fewer ranges to plan.)
        if (order.usd && !hasUsdSource(states.get(chain), source)) return [];
        const usd = order.usd ? (usdPrice(source, states.get(chain))?.usd ?? null) : 1;
        if (usd === null && !unpriced) return [];
        const value =
          usd === null
            ? sql<number>`cast(-1 as double precision)`
            : usd === 1
              ? column
              : sql<number>`${column} * ${usd}`;
        let branch = deps.database.db
          .selectFrom('token_market as m')
          .select(['m.chain_id', 'm.address'])
          .$if(!keysOnly, (b) => b.select(MARKET_COLUMNS))
          .select([value.as('value'), sql.lit(source).as('source'), column.as('rank')])
          .where('m.chain_id', '=', chain)
          .where(column, 'is not', null);
        // (A search's words, tested on the market row's own copy of them, which on PostgreSQL the range's
        // index carries: keys only, the walk reads its index alone. "moon" by trending at 1M tokens,
        // warm: 2.1 ms of execution when each row walked had its token probed, 0.45 ms when its market
        // row was read, 0.23 ms.)
        if (where.length > 0) branch = branch.where(filtered);
        if (order.usd) branch = branch.where('m.usd_source', '=', source);
        if (at) {
          const [v, c, src, rank, address] = at;
          const here = chain === c && source === src;
          const later = chain < c || (chain === c && source < src);
          if (here) branch = branch.where(sql<boolean>`(${column}, m.address) < (${rank}, ${address})`);
          else if (usd === null) {
            if (!(later ? -1 <= v : -1 < v)) return [];
          } else {
            branch = branch.where(value, later ? '<=' : '<', v);
            // (The product is no index range: its column's bound is, a hair wider than the quotient.)
            if (usd !== 1) branch = branch.where(column, '<=', v / usd + Math.abs(v / usd) * 1e-9);
          }
        }
        if (market && market !== 'all') branch = branch.where('m.market', '=', market);
        const ordered = branch
          .orderBy(column, 'desc')
          .orderBy('m.address', 'desc')
          .limit(literalLimit(limit + 1));
        return [deps.database.db.selectFrom(ordered.as(`r${chain}_${source}`)).selectAll()];
      }),
    );
  }

  const [rows, market, reached] = await Promise.all([rowsOfPage, state, through, check]);
  const found = rows.slice(0, limit);
  const last = found.at(-1) as (typeof rows)[number] & { value?: number; source?: number; rank?: number };
  let next: string | null = null;
  if (rows.length > limit && last)
    next = ranked
      ? deps.cursors.encode(scope, [
          Number(last.value),
          last.chain_id,
          Number(last.source),
          Number(last.rank),
          last.address,
          market.version,
        ])
      : deps.cursors.encode(scope, [
          Number(last.created_at),
          last.chain_id,
          Number(last.block_number),
          last.log_index,
          last.address,
        ]);
  // Every list record carries market_data (data_status says pending before the first refresh).
  const include = new Set(['market']);
  // Documents pinned elsewhere get a short wait; a fetch that takes longer goes on for the next list.
  const docs = await Promise.all(found.map((t) => deps.documents.get(t.metadata_uri, LIST_DOCUMENT_WAIT_MS)));
  return {
    items: found.map((t, i) =>
      tokenRecord(
        deps,
        t,
        include,
        { doc: docs[i] ?? null, origin },
        t.updated_at === null
          ? undefined
          : marketView(t as TokenMarketTable & typeof t, market.byChain.get(t.chain_id)),
      ),
    ),
    next,
    indexedThrough: reached,
    warnings: market.warnings([...new Set(found.map((t) => t.chain_id as ChainId))]),
  };
}

/** Tokens in launch order (newest or oldest) or ranked by refreshed market data, across chains or one. */
export function listTokens(
  deps: TokenReadDeps,
  input: PageInput & { chain_id?: ChainId; market?: string; sort?: Sort },
): Promise<IndexedPage> {
  const filters = { chain_id: input.chain_id, market: input.market ?? 'all' };
  return tokenPage(deps, 'token_list', filters, { ...input, sort: input.sort ?? 'newest' });
}

/** Tokens whose name or symbol has every word of q (by word prefix), or the token at an address q. */
export function searchTokens(
  deps: TokenReadDeps,
  input: PageInput & { chain_id?: ChainId; q: string; market?: string; sort?: Sort },
): Promise<IndexedPage> {
  const filters = { chain_id: input.chain_id, q: input.q, market: input.market ?? 'all' };
  return tokenPage(deps, 'token_search', filters, { ...input, sort: input.sort ?? 'newest' });
}

/** The tokens a creator launched, newest first. */
export function listCreatorTokens(
  deps: TokenReadDeps,
  input: PageInput & { chain_id?: ChainId; creator: Address },
): Promise<IndexedPage> {
  const filters = { chain_id: input.chain_id, creator: input.creator };
  return tokenPage(deps, 'creator_tokens', filters, { ...input, sort: 'newest' });
}

/**
 * One token's record (with its pool and market data when asked) and how far the index reached: its
 * reads run side by side (all keyed by the token), shared like a list page between identical requests.
 */
export function getToken(
  deps: TokenReadDeps,
  input: { chainId: ChainId; token: Address; include: string[]; origin: string },
) {
  const { chainId, origin } = input;
  const token = getAddress(input.token);
  const include = new Set(input.include);
  const key = JSON.stringify(['token_detail', chainId, token, [...include].sort(), origin]);
  return sharedPage(deps.database, deps.settings.pageShareMs, key, async () => {
    // Taken first (it may lag the record, never lead it).
    const through = indexedThrough(deps.database, [chainId]);
    through.catch(() => {}); // awaited below
    const row = deps.database.db
      .selectFrom('tokens')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .executeTakeFirst();
    const [found, extras] = await Promise.all([row, detailRows(deps, chainId, token, include)]);
    if (!found) throw notIndexed(chainId, token);
    return {
      record: await detailRecord(deps, found, include, origin, extras),
      indexedThrough: await through,
    };
  });
}

/** The not_found of a token the index does not have (yet). */
const notIndexed = (chainId: ChainId, token: string) =>
  new ApiError('not_found', `${token} is not indexed on chain ${chainId} (yet)`, {
    resource: 'token',
    chain_id: chainId,
    token_address: token,
  });

/** A token row as the detail route gives it: its record with extra metadata (and market data when asked). */
export async function tokenDetail(
  deps: TokenReadDeps,
  row: TokensTable,
  include: Set<string>,
  origin: string,
) {
  const extras = await detailRows(deps, row.chain_id as ChainId, row.address, include);
  return detailRecord(deps, row, include, origin, extras);
}

/** The rows of a token's detail besides its own: its market row (when asked) and extra metadata. */
async function detailRows(deps: TokenReadDeps, chainId: ChainId, token: string, include: Set<string>) {
  const db = deps.database.db;
  const [market, extras] = await Promise.all([
    include.has('market') ? marketOf(deps.database, chainId, token) : undefined,
    // Extra metadata: the latest value of each key set after launch.
    db
      .selectFrom('token_updates')
      .select(['field', 'value'])
      .where('chain_id', '=', chainId)
      .where('token', '=', token)
      .where('field', 'like', 'extra:%')
      .orderBy('block_number')
      .orderBy('log_index')
      .execute(),
  ]);
  return { market, extras };
}

/** The detail record of a token row and its detailRows. */
async function detailRecord(
  deps: TokenReadDeps,
  row: TokensTable,
  include: Set<string>,
  origin: string,
  { market, extras }: Awaited<ReturnType<typeof detailRows>>,
) {
  const doc = await deps.documents.get(row.metadata_uri);
  const record = tokenRecord(deps, row, include, { doc, origin }, market);
  record.token = {
    ...record.token,
    extra_metadata: Object.fromEntries(extras.map((e) => [e.field.slice('extra:'.length), e.value])),
  } as typeof record.token;
  return record;
}

/** A page of a token's rows ordered newest first by (block, log index). */
async function rowsOf<T extends 'trades' | 'announcements'>(
  deps: TokenReadDeps,
  operation: ListName,
  table: T,
  input: TokenRowsInput,
) {
  const db = deps.database.db;
  const p = { chain_id: input.chainId };
  const q = { cursor: input.cursor };
  const { token, limit } = input;
  const scope = Cursors.scope(operation, { chain: p.chain_id, token });
  // Taken before the page (it may lag the page, never lead it).
  const through = indexedThrough(deps.database, [p.chain_id]);
  through.catch(() => {}); // awaited below, after the page
  let query = db
    .selectFrom(table as 'trades')
    .selectAll()
    .where('chain_id', '=', p.chain_id)
    .where('token', '=', token);
  if (q.cursor) {
    const [block, log] = deps.cursors.decode(q.cursor, scope) as [number, number];
    // (block, log index) compared as one value: an index range, however deep the page.
    query = query.where(sql<boolean>`(block_number, log_index) < (${block}, ${log})`);
  }
  const rows = await query
    .orderBy('block_number', 'desc')
    .orderBy('log_index', 'desc')
    .limit(literalLimit(limit + 1))
    .execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next =
    rows.length > limit && last
      ? deps.cursors.encode(scope, [Number(last.block_number), last.log_index])
      : null;
  return { page, next, through: await through };
}

/** A token's trades, newest first, with the hook's fee credits of each swap. */
export function listTrades(deps: TokenReadDeps, input: TokenRowsInput): Promise<IndexedPage> {
  return sharedPage(
    deps.database,
    deps.settings.pageShareMs,
    JSON.stringify(['token_trades', input]),
    async () => {
      const { page, next, through } = await rowsOf(deps, 'token_trades', 'trades', input);
      return { items: await tradeRecords(deps.database, input.chainId, page), next, indexedThrough: through };
    },
  );
}

/**
 * The rows of a per-log table in the transactions of `logs`, in log order. Named by block and hash: on
 * PostgreSQL the tables are keyed by (chain_id, block_number, log_index).
 */
export async function inTransactions<T extends 'trades' | 'fee_credits' | 'announcements'>(
  database: Database,
  table: T,
  chainId: ChainId,
  logs: { block_number: number | string | bigint; tx_hash: string }[],
): Promise<Tables[T][]> {
  if (logs.length === 0) return [];
  return (await database.db
    .selectFrom(table as 'trades')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('block_number', 'in', [...new Set(logs.map((l) => l.block_number))])
    .where('tx_hash', 'in', [...new Set(logs.map((l) => l.tx_hash))])
    .orderBy('log_index')
    .execute()) as unknown as Tables[T][];
}

/** Trade rows of one chain as the trades route gives them, each with the hook's fee credits of its swap. */
export async function tradeRecords(database: Database, chainId: ChainId, trades: TradesTable[]) {
  const credits = await inTransactions(database, 'fee_credits', chainId, trades);
  return trades.map((t) => ({
    transaction_hash: t.tx_hash,
    log_index: t.log_index,
    block_number: String(t.block_number),
    block_hash: t.block_hash,
    timestamp: iso(t.timestamp),
    trader: t.trader,
    side: t.side,
    amount_in_raw: t.amount_in_raw,
    amount_out_raw: t.amount_out_raw,
    quote_amount_raw: t.quote_amount_raw,
    token_amount_raw: t.token_amount_raw,
    fee_raw: t.fee_raw,
    fee_currency: t.fee_currency,
    referrer: t.referrer,
    comment: t.comment,
    fee_components: credits
      .filter((c) => c.tx_hash === t.tx_hash && c.swap_log_index === t.log_index)
      .map(feeComponentRecord),
  }));
}

/** A fee credit of the hook as a trade's fee_components item. */
export const feeComponentRecord = (c: FeeCreditsTable) => ({
  component: c.component,
  recipient: c.recipient,
  amount_raw: c.amount,
});

/** A token's announcements, newest first. */
export function listAnnouncements(deps: TokenReadDeps, input: TokenRowsInput): Promise<IndexedPage> {
  const key = JSON.stringify(['token_announcements', input]);
  return sharedPage(deps.database, deps.settings.pageShareMs, key, async () => {
    const { page, next, through } = await rowsOf(deps, 'token_announcements', 'announcements', input);
    return {
      items: (page as unknown as AnnouncementsTable[]).map(announcementRecord),
      next,
      indexedThrough: through,
    };
  });
}

/** An announcement row as the announcements route gives it. */
export const announcementRecord = (a: AnnouncementsTable) => ({
  announcement_id: a.announcement_id,
  creator: a.creator,
  description: a.description,
  uri: a.uri,
  block_number: String(a.block_number),
  transaction_hash: a.tx_hash,
  log_index: a.log_index,
  posted_at: iso(a.posted_at),
  ...(a.raw_hex ? { raw_hex: JSON.parse(a.raw_hex) as Record<string, string> } : {}),
});

/**
 * A token's holders with a balance, largest first (equal balances by address, highest first), from the
 * index: balances are those of its Transfer logs through indexed_through (as_of_block), labelled where
 * known, with the count of holders and the launch supply. The token row, the page and indexed_through
 * are read side by side; pages resume after the cursor's (balance, address), however deep. Shared like
 * a list page between identical requests.
 */
export function getHolders(deps: TokenReadDeps, input: TokenRowsInput) {
  const key = JSON.stringify(['holder_snapshot', input]);
  return sharedPage(deps.database, deps.settings.pageShareMs, key, () => readHolders(deps, input));
}

/** getHolders, read from the index. */
async function readHolders(deps: TokenReadDeps, input: TokenRowsInput) {
  const db = deps.database.db;
  const { chainId, token, limit, cursor } = input;
  const scope = Cursors.scope('holder_snapshot', { chain: chainId, token });
  const after = cursor ? (deps.cursors.decode(cursor, scope) as [string, string]) : undefined;
  // Taken first (it may lag the page, never lead it).
  const through = indexedThrough(deps.database, [chainId]);
  through.catch(() => {}); // awaited below
  let query = db
    .selectFrom('token_holders')
    .select(['holder', 'balance'])
    .where('chain_id', '=', chainId)
    .where('token', '=', token)
    .where('balance', '>', SORTABLE_ZERO);
  // (balance, address) compared as one value: an index range, however deep the page.
  if (after) query = query.where(sql<boolean>`(balance, holder) < (${after[0]}, ${after[1]})`);
  const [row, rows] = await Promise.all([
    db
      .selectFrom('tokens')
      .select(['suite_id', 'current_creator', 'launch_supply', 'holder_count'])
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .executeTakeFirst(),
    query
      .orderBy('balance', 'desc')
      .orderBy('holder', 'desc')
      .limit(literalLimit(limit + 1))
      .execute(),
  ]);
  if (!row) throw notIndexed(chainId, token);
  const c = deps.deployments.get(chainId)?.suites.find((x) => x.id === row.suite_id)?.contracts;
  const labels = new Map<string, string>(
    [
      [c?.pool_manager, 'pool'],
      [c?.hook, 'hook'],
      [c?.fee_escrow, 'fee_escrow'],
      [c?.vesting_vault, 'vesting_vault'],
      ['0x000000000000000000000000000000000000dEaD', 'burn'],
    ].flatMap(([a, l]) => (a ? [[getAddress(a), l as string]] : [])) as [string, string][],
  );
  const supply = BigInt(row.launch_supply);
  const percent = (balance: bigint) => {
    const bp = supply > 0n ? (balance * 1_000_000n) / supply : 0n; // in 0.0001 %
    return `${bp / 10_000n}.${(bp % 10_000n).toString().padStart(4, '0')}`;
  };
  const page = rows.slice(0, limit);
  const items = page.map((h) => {
    const balance = amountOfSortable(h.balance as string);
    return {
      address: h.holder,
      balance_raw: balance.toString(),
      supply_percent: percent(balance),
      label: labels.get(h.holder) ?? (h.holder === row.current_creator ? 'creator' : null),
      is_creator: h.holder === row.current_creator,
    };
  });
  const last = page.at(-1);
  const indexed = await through;
  return {
    items,
    summary: { total_holders: Number(row.holder_count ?? 0), total_supply_raw: supply.toString() },
    next:
      rows.length > limit && last ? deps.cursors.encode(scope, [last.balance as string, last.holder]) : null,
    asOfBlock: indexed,
    indexedThrough: indexed,
  };
}
