// The data of journal events (src/indexer/journal.ts): `{type, chain_id, block_number, block_hash,
// transaction_hash, log_index, token_address, record}` where `record` is the item the read routes give
// (tokenQueries.ts builds both). Made once, by the first reader anywhere, and stored on the journal row,
// so every stream and replica sends the same bytes, and a removal can repeat them after a reorg.
import { sql } from 'kysely';
import type { EventType, JournalEntry } from '../indexer/journal.ts';
import { marketOf } from '../indexer/marketData.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { IndexEventsTable, TokensTable } from '../store/db.ts';
import {
  announcementRecord,
  feeComponentRecord,
  inTransactions,
  tokenDetail,
  tokenRecord,
  tradeRecords,
  type TokenReadDeps,
} from './tokenQueries.ts';

/** A journal row as read (bigint columns as numbers). */
export interface JournalRow extends JournalEntry {
  chain_id: ChainId;
  seq: number;
  removes: number | null;
  removed_hw: number | null;
  data: string | null;
}

const n = (v: number | string | bigint) => Number(v);
const orNull = (v: number | string | bigint | null) => (v === null ? null : Number(v));

/** A journal row from the database. */
export function journalRow(r: IndexEventsTable): JournalRow {
  return {
    chain_id: r.chain_id as ChainId,
    seq: n(r.seq),
    type: r.type,
    block_number: n(r.block_number),
    block_hash: r.block_hash,
    tx_hash: r.tx_hash,
    log_index: r.log_index,
    token: r.token,
    removes: orNull(r.removes),
    removed_hw: orNull(r.removed_hw),
    data: r.data,
  };
}

/** Journal rows of one chain after `afterSeq`, in order. */
export async function readJournal(
  deps: Pick<TokenReadDeps, 'database'>,
  chainId: ChainId,
  afterSeq: number,
  limit: number,
): Promise<JournalRow[]> {
  const rows = await deps.database.db
    .selectFrom('index_events')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(journalRow);
}

const key = (tx: string, logIndex: number) => `${tx}:${logIndex}`;

/** The read route's item of each event, by tx:log_index; an event whose rows are gone has none. */
async function recordsOf(
  deps: TokenReadDeps,
  origin: string,
  chainId: ChainId,
  type: EventType,
  rows: JournalRow[],
): Promise<Map<string, unknown>> {
  const db = deps.database.db;
  const out = new Map<string, unknown>();
  /** The rows of one of the per-log tables in the events' transactions. */
  const inTxs = <T extends 'trades' | 'fee_credits' | 'announcements'>(table: T) =>
    inTransactions(deps.database, table, chainId, rows);
  if (type === 'trade') {
    const trades = await inTxs('trades');
    const records = await tradeRecords(deps.database, chainId, trades);
    trades.forEach((t, i) => out.set(key(t.tx_hash, t.log_index), records[i]));
  } else if (type === 'fee_credit') {
    for (const c of await inTxs('fee_credits')) out.set(key(c.tx_hash, c.log_index), feeComponentRecord(c));
  } else if (type === 'announcement') {
    for (const a of await inTxs('announcements')) out.set(key(a.tx_hash, a.log_index), announcementRecord(a));
  } else {
    // Launches and metadata changes carry the token: as a token of GET /tokens (market data included),
    // or as GET /tokens/{chain}/{token} gives it after the change.
    const tokens = await db
      .selectFrom('tokens')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('address', 'in', [...new Set(rows.map((r) => r.token))])
      .execute();
    const byAddress = new Map<string, TokensTable>(tokens.map((t) => [t.address, t]));
    for (const r of rows) {
      const t = byAddress.get(r.token);
      if (!t) continue;
      if (type === 'metadata') {
        out.set(key(r.tx_hash, r.log_index), await tokenDetail(deps, t, new Set(), origin));
        continue;
      }
      if (t.tx_hash !== r.tx_hash || t.log_index !== r.log_index) continue; // another launch at that address
      const market = await marketOf(deps.database, chainId, t.address);
      const doc = await deps.documents.get(t.metadata_uri);
      out.set(
        key(r.tx_hash, r.log_index),
        tokenRecord(deps, t, new Set(['market']), { doc, origin }, market),
      );
    }
  }
  return out;
}

/** An event's data line: the envelope of its record. */
function dataOf(row: JournalRow, record: unknown): string {
  return JSON.stringify({
    type: row.type,
    chain_id: row.chain_id,
    block_number: String(row.block_number),
    block_hash: row.block_hash,
    transaction_hash: row.tx_hash,
    log_index: row.log_index,
    token_address: row.token,
    record,
  });
}

/**
 * Fills in `data` of the rows that have none: built from the index and stored unless the event was
 * removed meanwhile (or another reader stored it first, whose data is then taken). Afterwards a row's
 * data is null only when its event was removed before anyone made it (it is never sent), or when its
 * rows could not be read yet (the caller waits and asks again).
 */
export async function resolveEventData(
  deps: TokenReadDeps,
  origin: string,
  rows: JournalRow[],
): Promise<void> {
  const pending = rows.filter((r) => r.data === null && r.removes === null && r.removed_hw === null);
  if (pending.length === 0) return;
  const groups = new Map<string, JournalRow[]>();
  for (const r of pending) {
    const g = `${r.chain_id}:${r.type}`;
    const group = groups.get(g);
    if (group) group.push(r);
    else groups.set(g, [r]);
  }
  const built: { row: JournalRow; data: string }[] = [];
  for (const group of groups.values()) {
    const first = group[0] as JournalRow;
    const records = await recordsOf(deps, origin, first.chain_id, first.type, group);
    for (const row of group) {
      const record = records.get(key(row.tx_hash, row.log_index));
      if (record !== undefined) built.push({ row, data: dataOf(row, record) });
    }
  }
  const stored = new Set<JournalRow>();
  if (built.length > 0)
    await deps.database.db.transaction().execute(async (trx) => {
      for (const { row, data } of built) {
        const result = await trx
          .updateTable('index_events')
          .set({ data })
          .where('chain_id', '=', row.chain_id)
          .where('seq', '=', row.seq)
          .where('data', 'is', null)
          .where('removed_hw', 'is', null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) {
          row.data = data;
          stored.add(row);
        }
      }
    });
  // The others: stored by another reader, removed by a reorg, or not readable yet. The journal says which.
  const unsure = pending.filter((r) => !stored.has(r));
  for (const chainId of new Set(unsure.map((r) => r.chain_id))) {
    const mine = unsure.filter((r) => r.chain_id === chainId);
    const now = await deps.database.db
      .selectFrom('index_events')
      .select(['seq', 'data', 'removed_hw'])
      .where('chain_id', '=', chainId)
      .where(
        'seq',
        'in',
        mine.map((r) => r.seq),
      )
      .execute();
    const bySeq = new Map(now.map((r) => [n(r.seq), r]));
    for (const row of mine) {
      const current = bySeq.get(row.seq);
      row.data = current?.data ?? null;
      row.removed_hw = current ? orNull(current.removed_hw) : row.removed_hw;
    }
  }
}

/** A chain's journal span: its first and last seq, null when it has none (one index probe each). */
export async function journalSpan(
  deps: Pick<TokenReadDeps, 'database'>,
  chainId: ChainId,
): Promise<{ first: number; last: number } | null> {
  const db = deps.database.db;
  const end = (order: 'asc' | 'desc') =>
    db
      .selectFrom('index_events')
      .select('seq')
      .where('chain_id', '=', chainId)
      .orderBy('seq', order)
      .limit(1)
      .executeTakeFirst();
  const [first, last] = await Promise.all([end('asc'), end('desc')]);
  return first && last ? { first: n(first.seq), last: n(last.seq) } : null;
}

/** Each chain's high water: the highest block its index ever reached. */
export async function highWaters(deps: Pick<TokenReadDeps, 'database'>): Promise<Map<ChainId, number>> {
  const rows = await deps.database.db
    .selectFrom('index_state')
    .select(['chain_id', sql<number | string | null>`coalesce(high_water, indexed_through)`.as('hw')])
    .execute();
  return new Map(rows.map((r) => [r.chain_id as ChainId, n(r.hw ?? -1)]));
}
