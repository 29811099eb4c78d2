// The database: SQLite in the data dir by default, PostgreSQL when DATABASE_URL is set. Same schema, same
// queries (kysely), migrations in code.
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type Insertable,
  Kysely,
  type OnConflictBuilder,
  type RawBuilder,
  type OnConflictDoNothingBuilder,
  type OnConflictUpdateBuilder,
  type LogEvent,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { telemetry } from '../telemetry.ts';
import { migrate } from './migrations.ts';

export interface ApiKeyTable {
  key_id: string;
  secret_hash: string;
  plan: string;
  /** JSON array of scope names, or ["*"]. */
  scopes: string;
  /** JSON array of allowed browser origins; empty = server key. */
  origins: string;
  status: string;
  /** JSON object of per-key limit overrides (operator policy). */
  overrides: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface IdempotencyTable {
  key_id: string;
  idem_key: string;
  /** SHA-256 of method, route, path parameters and the canonical body. */
  fingerprint: string;
  state: 'running' | 'done';
  /** A running record whose lease has passed belongs to a request that died; another may take it. */
  lease_until: number;
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: number;
  expires_at: number;
}

/** The index (src/indexer): bigint columns come back as numbers or strings depending on the driver. */
export interface IndexStateTable {
  chain_id: number;
  indexed_through: number | string | bigint;
  /** The highest indexed_through ever reached (a reorg lowers indexed_through only); null before 0014. */
  high_water: number | string | bigint | null;
}
/** The event journal: one row per indexed event, and one per event a reorg removed (`removes`). */
export interface IndexEventsTable {
  chain_id: number;
  /** Commit order within the chain: 1, 2, 3, … */
  seq: number | string | bigint;
  type: 'launch' | 'trade' | 'announcement' | 'fee_credit' | 'metadata';
  block_number: number | string | bigint;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  token: string;
  /** On a removal row: the seq of the event it removes. */
  removes: number | string | bigint | null;
  /** On a removed event and its removal row: the chain's high water when the reorg removed it. */
  removed_hw: number | string | bigint | null;
  /** The event's JSON (the stream's `data`), made once by the first reader; null until then. */
  data: string | null;
}
export interface IndexBlocksTable {
  chain_id: number;
  number: number | string | bigint;
  hash: string;
}
export interface TokensTable {
  chain_id: number;
  address: string;
  suite_id: string;
  market: string;
  quote_address: string;
  creator: string;
  pool_id: string;
  hook: string;
  tick_spacing: number;
  name: string;
  symbol: string;
  metadata_uri: string;
  block_number: number | string | bigint;
  log_index: number;
  tx_hash: string;
  created_at: number | string | bigint;
  current_creator: string;
  /** Holders with a balance. */
  holder_count?: number;
  /** '' for tokens indexed before fee recipients were (until their next change). */
  fee_recipient: string;
  launch_supply: string;
  /** Raw bytes of name, symbol and metadata_uri as JSON {field: hex}, when their text is not exactly them. */
  raw_hex: string | null;
  /** The search words of name and symbol, each after a space (' pepe rocket 4711'). */
  search_words: string;
}
export interface TradesTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  block_hash: string;
  timestamp: number | string | bigint;
  token: string;
  trader: string;
  side: string;
  amount_in_raw: string;
  amount_out_raw: string;
  quote_amount_raw: string;
  token_amount_raw: string;
  fee_raw: string;
  fee_currency: string;
  referrer: string | null;
  comment: string;
  sqrt_price_x96: string | null;
}
export interface AnnouncementsTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  token: string;
  announcement_id: string;
  creator: string;
  description: string;
  uri: string;
  posted_at: number | string | bigint;
  /** The raw bytes of description and uri as JSON {field: hex}, when their text is not exactly them. */
  raw_hex: string | null;
}

export interface FeeEventsTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  escrow: string;
  recipient: string;
  currency: string;
  /** Only claims are kept (a credit's position is a row of fee_positions). */
  kind: 'claimed';
  amount: string;
}

/** A wallet's fee position: an escrow and a currency it was credited (or paid) in, from `block_number`. */
export interface FeePositionsTable {
  recipient: string;
  chain_id: number;
  escrow: string;
  currency: string;
  block_number: number | string | bigint;
}

export interface TokenWordsTable {
  chain_id: number;
  word: string;
  address: string;
  block_number: number | string | bigint;
  /** The token's launch time: each word's tokens in launch order, for search's newest and oldest. */
  created_at: number | string | bigint;
  /** Its token's search words (tokens.search_words), for a search's other words. */
  search_words: string;
}

export interface TokenHoldersTable {
  chain_id: number;
  token: string;
  holder: string;
  /** The first block it received the token. */
  block_number: number | string | bigint;
  /** Sortable text (store/amounts.ts). */
  balance?: string;
  /**
   * A block it is known as of, no earlier than its last change (its last change, or the block it was
   * read from the chain at); null: to be read from the chain.
   */
  balance_block?: number | string | bigint | null;
}

export interface TokenUpdatesTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  token: string;
  field: string;
  value: string;
  /** The raw bytes as hex when `value` is not exactly them (src/indexer/chainText.ts). */
  raw_hex: string | null;
}
/** Logs that did not decode: recorded once and skipped. */
export interface SkippedLogsTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  address: string;
  reason: string;
}
export interface FeeCreditsTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  /** The Swap log the credit belongs to (trades' log_index). */
  swap_log_index: number;
  component: string;
  recipient: string;
  currency: string;
  amount: string;
}
export interface TokenMarketTable {
  chain_id: number;
  address: string;
  market: string;
  sqrt_price_x96: string;
  reserve_quote_raw: string;
  /** JSON: {"1h"|"6h"|"24h": {trades, volume_quote_raw}} */
  activity: string;
  trending_score: number;
  as_of_block: number | string | bigint;
  updated_at: number | string | bigint;
  /** 1 when a reorg removed trades of the token counted here: recompute it at the next refresh. */
  rebuild: number;
  /** The ranked values in whole quote units (quoteRank), or null before the token's next full refresh. */
  market_cap_quote: number | null;
  liquidity_quote: number | null;
  volume_24h_quote: number | null;
  /** Where the token's USD price comes from (USD_SOURCE), null until a refresh sets it. */
  usd_source: number | null;
  /** The token's search words (tokens.search_words), kept with them: a ranked search tests them here. */
  search_words: string;
}
/** Per traded token, what its trades add up to (indexer/tradeTotals.ts). */
export interface TokenTotalsTable {
  chain_id: number;
  address: string;
  /** The block of its last trade. */
  last_block: number | string | bigint;
  /** The quote currency its pool holds, raw. */
  reserve_quote_raw: string;
  /** The pool price after its last trade (null for trades indexed before prices were recorded). */
  sqrt_price_x96: string | null;
}
export interface MarketStateTable {
  chain_id: number;
  refreshed_at: number | string | bigint;
  chain_time: number | string | bigint;
  as_of_block: number | string | bigint;
  /** The native currency's USD price read at the last refresh, and its feed round's time. */
  native_usd: number | null;
  native_usd_at: number | string | bigint | null;
  /** Bit s set when some market row of the chain has usd_source s; null: not known, every source. */
  usd_sources: number | null;
}

export interface Tables {
  api_keys: ApiKeyTable;
  idempotency_records: IdempotencyTable;
  index_state: IndexStateTable;
  index_blocks: IndexBlocksTable;
  tokens: TokensTable;
  trades: TradesTable;
  announcements: AnnouncementsTable;
  fee_events: FeeEventsTable;
  fee_positions: FeePositionsTable;
  token_words: TokenWordsTable;
  token_holders: TokenHoldersTable;
  token_updates: TokenUpdatesTable;
  skipped_logs: SkippedLogsTable;
  gateway_secrets: { name: string; value: string; created_at: number | string | bigint };
  pins: { cid: string; content_type: string; created_at: number | string | bigint };
  ipfs_blocks: { key: string; bytes: Buffer };
  fee_credits: FeeCreditsTable;
  token_market: TokenMarketTable;
  token_totals: TokenTotalsTable;
  market_state: MarketStateTable;
  index_events: IndexEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_positions: { endpoint_id: string; chain_id: number; seq: number | string | bigint };
  webhook_deliveries: WebhookDeliveriesTable;
}

export interface WebhookEndpointsTable {
  id: string;
  key_id: string;
  url: string;
  /** Comma-separated event types. */
  types: string;
  chain_id: number | null;
  token: string | null;
  confirmations: number;
  description: string;
  /** The signing secret, sealed (src/webhooks/sealed.ts). */
  secret: string;
  /** The secret before the last rotation, sealed, and until when it still signs (ms). */
  previous_secret: string | null;
  previous_until: number | string | bigint | null;
  disabled: number;
  disabled_reason: string | null;
  created_at: number | string | bigint;
}
export interface WebhookDeliveriesTable {
  endpoint_id: string;
  chain_id: number;
  seq: number | string | bigint;
  /** webhook-id: the same for every attempt. */
  event_id: string;
  event: string;
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number | string | bigint;
  /** An attempt in progress holds the row until then (ms); a process that dies lets it go. */
  locked_until: number | string | bigint;
  last_status: number | null;
  last_error: string | null;
  created_at: number | string | bigint;
  delivered_at: number | string | bigint | null;
}

export interface Database {
  db: Kysely<Tables>;
  kind: 'sqlite' | 'postgres';
  ping(): Promise<void>;
  /** PostgreSQL: opens every connection of the pool now, so that no request waits for one (a server's start). */
  warm?(): Promise<void>;
  close(): Promise<void>;
  /** SQLite: runs one statement once per parameter list, on the connection (so inside its transaction). */
  runEach?(text: string, parameterLists: unknown[][]): void;
  /** PostgreSQL: the connection string, for a LISTEN connection of its own (src/store/wakeups.ts). */
  url?: string;
}

/** The tables `insertMany` writes (the indexer's ranges, the market refresh's chunks). */
export type BulkTable =
  | 'token_market'
  | 'token_totals'
  | 'trades'
  | 'fee_credits'
  | 'announcements'
  | 'fee_events'
  | 'fee_positions'
  | 'token_holders'
  | 'token_updates'
  | 'skipped_logs'
  | 'index_blocks'
  | 'index_events';

/**
 * Inserts rows of one shape in an open transaction (`conflict`: what a duplicate key does). SQLite: one
 * single-row statement, prepared once and run per row; kysely would build, and SQLite parse, a statement
 * of up to 500 rows each time (about 5 µs a row of a 10 µs insert, profiled on an indexer range).
 * PostgreSQL: `COPY … FROM STDIN` of COPY_ROWS rows at a time (copyRows), or, where a duplicate key
 * must be handled, one statement per 10,000 rows, their values one JSON parameter the server unpacks
 * (`json_populate_recordset`). A busy range writes a few hundred thousand rows: statements of bound
 * parameters, built, sent and planned per 500 rows, had 20,000 swaps ingested in 1.6x the time, and the
 * JSON was most of an insert (200k journal rows: 1.3 s to unpack into a table without indexes).
 */
export async function insertMany<T extends BulkTable>(
  database: Database,
  trx: Transaction<Tables>,
  table: T,
  rows: Insertable<Tables[T]>[],
  conflict?: (
    oc: OnConflictBuilder<Tables, T>,
  ) => OnConflictDoNothingBuilder<Tables, T> | OnConflictUpdateBuilder<Tables, T>,
): Promise<void> {
  const statement = (chunk: Insertable<Tables[T]>[]) => {
    const insert = trx.insertInto(table).values(chunk as never);
    return conflict ? insert.onConflict(conflict as never) : insert;
  };
  const columns = sameColumns(rows as Record<string, unknown>[]);
  if (database.runEach && columns) {
    const single = statement([rows[0] as Insertable<Tables[T]>]).compile();
    if (single.parameters.length === columns.length) {
      database.runEach(
        single.sql,
        (rows as Record<string, unknown>[]).map((row) => columns.map((c) => row[c])),
      );
      return;
    }
  }
  if (database.kind === 'postgres' && columns && rows.length > 1 && !conflict && rows.every(plainRow))
    return copyInto(trx, table, rows as Record<string, unknown>[], columns);
  if (database.kind === 'postgres' && columns && rows.length > 1) {
    const refs = sql.join(columns.map((c) => sql.ref(c)));
    for (let i = 0; i < rows.length; i += 10_000) {
      const json = JSON.stringify(rows.slice(i, i + 10_000));
      const insert = trx
        .insertInto(table)
        .columns(columns as never)
        .expression(
          sql`select ${refs} from json_populate_recordset(null::${sql.table(table)}, ${json}::json)`,
        );
      await (conflict ? insert.onConflict(conflict as never) : insert).execute();
    }
    return;
  }
  for (let i = 0; i < rows.length; i += 500) await statement(rows.slice(i, i + 500)).execute();
}

/** Rows a COPY carries at a time (its text is held whole, in pieces: about 200 bytes a row). */
const COPY_ROWS = 50_000;
/** A statement starting with this is run as `COPY … FROM STDIN`, its one parameter the data's pieces. */
const COPY_MARK = '/* copy from stdin */ ';
/** COPY's text is made into bytes in pieces of about this many characters (see copyRows). */
const COPY_PIECE_CHARS = 32 * 1024;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A row whose values COPY's text format carries as they are: text, numbers, booleans, nulls. */
function plainRow(row: Record<string, unknown>): boolean {
  // (A loop, not Object.values: no array per row, and the indexer writes hundreds of thousands a range.)
  for (const k in row) {
    const v = row[k];
    if (v !== null && typeof v === 'object') return false;
  }
  return true;
}

/** One value in COPY's text format: \N for null, backslash, newline, return and tab escaped. */
function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  const s = String(v);
  return /[\\\n\r\t]/.test(s) ? s.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c] as string) : s;
}

/**
 * PostgreSQL: rows of one shape into `table` (any table, such as a partition being built) by COPY,
 * COPY_ROWS at a time, in the transaction's own connection. Rows must be plain (text, numbers, nulls).
 */
export async function copyInto(
  trx: Transaction<Tables>,
  table: string,
  rows: Record<string, unknown>[],
  columns = sameColumns(rows),
): Promise<void> {
  if (rows.length === 0) return;
  if (!columns) throw new Error(`rows for ${table} differ in their columns`);
  for (let i = 0; i < rows.length; i += COPY_ROWS)
    await copyRows(trx, table, columns, rows.slice(i, i + COPY_ROWS));
}

/** Rows into `table` by COPY, in the transaction's own connection (see copyingClient). */
async function copyRows(
  trx: Transaction<Tables>,
  table: string,
  columns: string[],
  rows: Record<string, unknown>[],
): Promise<void> {
  // (Concatenated, not mapped and joined: the text of 400k market rows takes 1.2 s, not 2.1-2.3 s. Made
  // into bytes a piece at a time: a whole COPY's text, one string of a million pieces, took V8 three
  // times as long to flatten and encode as its rows took to write, in one 20 MB allocation each.)
  const pieces: Buffer[] = [];
  let data = '';
  for (const row of rows) {
    let line = copyText(row[columns[0] as string]);
    for (let i = 1; i < columns.length; i++) line += `\t${copyText(row[columns[i] as string])}`;
    data += `${line}\n`;
    if (data.length >= COPY_PIECE_CHARS) {
      pieces.push(Buffer.from(data));
      data = '';
    }
  }
  if (data !== '') pieces.push(Buffer.from(data));
  const list = columns.map((c) => `"${c}"`).join(', ');
  await trx.executeQuery(CompiledQuery.raw(`${COPY_MARK}copy "${table}" (${list}) from stdin`, [pieces]));
}

/** Reads a connection keeps prepared, at most (others run unnamed, planned each time). */
const PREPARED_PER_CONNECTION = 200;
/** Reads longer than this are not kept prepared (the indexer's lookups of hundreds of addresses). */
const PREPARED_TEXT_MAX = 4096;

/**
 * Whether a statement is a read short enough to keep prepared: led by `select` or `with` (not by
 * UNPREPARED, nor by a line break).
 */
export const keptPrepared = (text: string) =>
  text.length <= PREPARED_TEXT_MAX && /^(select|with)\s/i.test(text);

/**
 * Leads a read that runs unnamed, so planned at each run with its tables' sizes then: one on a table
 * that grows fast under a connection that keeps its plans. A kept plan is made again only when the
 * table's statistics change: the event journal's last seq, planned as a sequential scan of the journal
 * emptied at its start, scanned the whole journal for each range of a backfill (348k rows, 212 ms, by
 * the end of a 200k-swap pass).
 */
export const UNPREPARED = sql.raw('/* unprepared */');

/**
 * Has a pool client answer each query through node-postgres's callback, settling a promise made here,
 * rather than through the promise node-postgres makes when given none. With its promise, about a third
 * of what queries allocate outlived two scavenges and was promoted (8 loops of a 25-row query: 127 of
 * 370 MB, scavenges of 3.6-35.6 ms; a gateway's 25-token list: 4.3 MB a scavenge, 6.6 ms each); with
 * the callback, nothing is (0.3 of 428 MB, 0.2-0.7 ms; the list: 0.01 MB, 0.9 ms). Why its promise
 * keeps them is not found; `test/queryHeap.test.ts` holds the figure. Streams (COPY) pass through.
 */
function settlingClient(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [config, values, callback] = args as [unknown, unknown, unknown];
    const streamed = typeof (config as { submit?: unknown } | null)?.submit === 'function';
    if (streamed || typeof values === 'function' || callback !== undefined) return query(...args);
    return new Promise((resolve, reject) =>
      query(config, values, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res))),
    );
  };
}

/**
 * Lets a pool client run COPY_MARK statements as `COPY … FROM STDIN` (kysely only sends statements
 * with parameters): the data goes through pg-copy-streams on the same connection, so inside the same
 * transaction. Other statements are the client's own.
 */
function copyingClient(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values] = args as [unknown, unknown[] | undefined];
    if (typeof text !== 'string' || !text.startsWith(COPY_MARK)) return query(...args);
    return (async () => {
      const stream = query(copyFrom(text.slice(COPY_MARK.length))) as ReturnType<typeof copyFrom>;
      for (const piece of (values?.[0] ?? []) as Buffer[]) stream.write(piece);
      stream.end();
      await once(stream, 'finish');
      return { command: 'COPY', rowCount: stream.rowCount, rows: [] };
    })();
  };
}

/**
 * Has a pool client run reads (select, with) as named prepared statements, parsed once per connection,
 * so that the server may plan them once (plan_cache_mode decides: a custom plan for each of the first
 * five runs, then the generic plan where it costs no more; planning was 46% of the hot reads' time).
 * Other statements are the client's own.
 */
function preparingClient(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  /** Statement names by text on this connection; null: run unnamed (see below). */
  const names = new Map<string, string | null>();
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values] = args as [unknown, unknown[] | undefined];
    if (typeof text !== 'string') return query(...args);
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_PER_CONNECTION && keptPrepared(text)) {
      name = `r${names.size}`;
      names.set(text, name);
    }
    if (!name) return query(...args);
    return query({ name, text, values }).catch((err: unknown) => {
      // A table whose columns changed under a prepared `select *` (another replica's migration):
      // this text runs unnamed from now on.
      if ((err as { code?: string }).code !== '0A000') throw err;
      names.set(text, null);
      return query(text, values);
    });
  };
}

/**
 * The columns every row sets (kysely leaves out undefined values: the column's default), when every row
 * sets the same ones; otherwise undefined.
 */
function sameColumns(rows: Record<string, unknown>[]): string[] | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const columns = Object.keys(first).filter((c) => first[c] !== undefined);
  for (const row of rows) {
    let defined = 0;
    for (const c in row) if (row[c] !== undefined) defined++;
    if (defined !== columns.length || columns.some((c) => row[c] === undefined)) return undefined;
  }
  return columns;
}

/**
 * Switching a fresh file to WAL needs an exclusive lock, and SQLite answers "database is locked" at once
 * (no busy handler) while another starting process holds one; so it is retried for a few seconds.
 */
async function switchToWal(file: SqliteDatabase.Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      file.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
}

/** How many prepared SQLite statements are kept (least recently used dropped first). */
const KEPT_STATEMENTS = 256;

/**
 * The SQLite file as kysely's dialect sees it, with its prepared statements kept by SQL text: kysely
 * prepares every query it runs, and the same texts recur (every route's reads, the indexer's
 * single-row inserts). One connection runs one query at a time (kysely's driver), so a kept statement is
 * never in use twice; SQLite re-prepares it by itself after a schema change.
 */
function keepingStatements(file: SqliteDatabase.Database) {
  const kept = new Map<string, SqliteDatabase.Statement>();
  const prepare = (text: string) => {
    let statement = kept.get(text);
    if (statement) kept.delete(text);
    else statement = file.prepare(text);
    kept.set(text, statement); // most recently used last
    if (kept.size > KEPT_STATEMENTS) kept.delete(kept.keys().next().value as string);
    return statement;
  };
  return {
    close: () => file.close(),
    prepare,
    runEach(text: string, parameterLists: unknown[][]) {
      const statement = prepare(text);
      for (const parameters of parameterLists) statement.run(parameters);
    },
  } satisfies SqliteDialectConfig['database'] & Pick<Database, 'runEach'>;
}

/**
 * A read's LIMIT as a literal, not a parameter. PostgreSQL costs a prepared read's generic plan for an
 * unknown LIMIT as if it took a tenth of the rows, so it never keeps that plan and plans the read again at
 * every run: a ranked search's plan was 0.9 of its 2.2 ms. A page size is one of at most a hundred
 * values, so each gets its own statement and keeps its plan (1.34 ms). Only for integers the caller
 * bounded.
 */
export function literalLimit(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return sql.lit(n);
}

/** The exact sum of raw amounts (base-10 text) as base-10 text, '0' over no rows, on either database. */
export const amountSum = (kind: Database['kind'], amounts: RawBuilder<unknown>) =>
  kind === 'postgres'
    ? sql<string>`coalesce(sum((${amounts})::numeric), 0)::text`
    : sql<string>`amount_sum(${amounts})`;

/** SQLite: the `amount_sum` aggregate amountSum uses (base-10 text beyond 2^63, without losing a unit). */
export function addAmountSum(file: SqliteDatabase.Database): void {
  file.aggregate('amount_sum', {
    start: 0n,
    step: (total: bigint, v: unknown) => (v === null ? total : total + BigInt(v as string)),
    result: (total: bigint) => total.toString(),
  });
}

/** Opens the database and migrates it; `onQuery` sees every query's SQL and parameters (tests' plans). */
export async function openDatabase(opts: {
  databaseUrl?: string;
  /** `off`: no named prepared statements (see preparingClient). */
  databasePrepared?: 'on' | 'off';
  dataDir: string;
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
}): Promise<Database> {
  let db: Kysely<Tables>;
  let kind: Database['kind'];
  let statements: ReturnType<typeof keepingStatements> | undefined;
  let pool: pg.Pool | undefined;
  if (opts.databaseUrl) {
    kind = 'postgres';
    // Connections are kept once open (no idle timeout; node-postgres closes one idle 10 s by default),
    // and a server opens them all at start (warm): a new one costs the request that waits for it a server
    // process, its login and its cold catalog caches and statements, 13 ms and then 6 ms more for its
    // first read on an idle machine; a burst after a quiet spell opened several at once (fee claims'
    // p99 while ingesting, 26–28 ms).
    pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: POOL_SIZE,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 0,
    });
    // A client that loses its connection (a database restart) must not crash the process, idle or
    // checked out (node-postgres emits 'error' on the client): the query in flight reports it instead.
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      telemetry.databaseConnected();
      client.on('error', () => {});
      // No JIT (on by default since PostgreSQL 12): it compiles a plan whose cost estimate passes
      // jit_above_cost on every run, and these statements are short. Search "rocket" at 1M tokens with
      // the server's defaults: 24.8 ms a request with it, 1.0 ms without. (Sent before any other
      // statement of the connection; a server without the setting ignores the failure.)
      client.query('set jit = off').catch(() => {});
      settlingClient(client);
      // (DATABASE_PREPARED=off: every statement unnamed, for a pooler that does not keep them.)
      if (opts.databasePrepared !== 'off') preparingClient(client);
      copyingClient(client);
    });
    db = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool }),
      ...(opts.onQuery ? { log: (e: LogEvent) => opts.onQuery?.(e.query.sql, e.query.parameters) } : {}),
    });
  } else {
    kind = 'sqlite';
    mkdirSync(opts.dataDir, { recursive: true });
    const file = new SqliteDatabase(join(opts.dataDir, 'launchpad.sqlite'));
    // WAL lets the CLI and a running server share the file; busy_timeout waits out short write locks.
    file.pragma('busy_timeout = 5000');
    await switchToWal(file);
    file.pragma('synchronous = NORMAL');
    addAmountSum(file);
    statements = keepingStatements(file);
    db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: statements }) });
  }
  await migrate(db, kind);
  return {
    db,
    kind,
    ...(statements ? { runEach: statements.runEach } : {}),
    ...(kind === 'postgres' ? { url: opts.databaseUrl } : {}),
    async ping() {
      await sql`select 1`.execute(db);
    },
    ...(pool ? { warm: () => warmPool(pool) } : {}),
    async close() {
      await db.destroy();
    },
  };
}

/** Connections a process keeps to PostgreSQL at most. */
const POOL_SIZE = 10;

/**
 * Opens every connection of `pool` at once and returns them to it. A connection that cannot be opened
 * now (the server's max_connections) is opened when a request needs it, as it would have been.
 */
async function warmPool(pool: pg.Pool): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: POOL_SIZE }, () => pool.connect()));
  for (const o of opened) if (o.status === 'fulfilled') o.value.release();
}
