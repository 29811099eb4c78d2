// The event journal: every event the index adds (a launch, trade, announcement, fee credit or metadata
// change) is a row numbered in commit order per chain (`seq`), written in the transaction that adds
// its index rows; a reorg marks the events above the fork removed and appends one removal row for each,
// in the transaction that deletes them. Readers (the event stream, src/operations/eventFeed.ts) walk
// the journal by seq, so a position in it is a resume point that holds on any process, after restarts.
import { sql, type Transaction } from 'kysely';
import type { ChainId } from '../launchpad/chains.ts';
import { type Database, type IndexEventsTable, insertMany, type Tables, UNPREPARED } from '../store/db.ts';

export const EVENT_TYPES = ['launch', 'trade', 'announcement', 'fee_credit', 'metadata'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where an event is, before it has its number. */
export interface JournalEntry {
  type: EventType;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  token: string;
}

const num = (v: number | string | bigint | null) => Number(v);

/** The chain's last seq inside a transaction (one writer per chain: the indexer's lock). */
async function lastSeq(trx: Transaction<Tables>, chainId: ChainId): Promise<number> {
  // (Unprepared: the journal grows by a range's events each time; see UNPREPARED.)
  const { rows } = await sql<{ seq: number | string | null }>`${UNPREPARED} select max(seq) as seq
    from index_events where chain_id = ${chainId}`.execute(trx);
  return rows[0]?.seq == null ? 0 : num(rows[0].seq);
}

/** Appends a range's events in block and log order, numbered after the chain's last. */
export async function appendEvents(
  database: Database,
  trx: Transaction<Tables>,
  chainId: ChainId,
  entries: JournalEntry[],
): Promise<number> {
  if (entries.length === 0) return 0;
  const sorted = [...entries].sort(
    (a, b) => a.block_number - b.block_number || a.log_index - b.log_index || a.type.localeCompare(b.type),
  );
  let seq = await lastSeq(trx, chainId);
  await insertMany(
    database,
    trx,
    'index_events',
    sorted.map((e) => ({
      chain_id: chainId,
      seq: ++seq,
      ...e,
      removes: null,
      removed_hw: null,
      data: null,
    })),
  );
  return sorted.length;
}

/** An event's data with `"removed": true` added (the event's data is a JSON object). */
export const withRemoved = (data: string) => `${data.slice(0, -1)},"removed":true}`;

/**
 * Marks every event above the fork removed (with the chain's high water, which decides whether a stream
 * that waits for confirmations had delivered it) and appends a removal row for each, in seq order,
 * carrying the event's data. Marking comes first: on PostgreSQL it waits for a reader that is storing
 * an event's data, so the copy below sees that data; a reader that comes later finds the event removed
 * and stores none (src/operations/eventRecords.ts), so a removal has data exactly when its event had.
 */
export async function removeEventsAbove(
  database: Database,
  trx: Transaction<Tables>,
  chainId: ChainId,
  fork: number,
  highWater: number,
): Promise<number> {
  const removed = await trx
    .updateTable('index_events')
    .set({ removed_hw: highWater })
    .where('chain_id', '=', chainId)
    .where('block_number', '>', fork)
    .where('removes', 'is', null)
    .where('removed_hw', 'is', null)
    .returning(['seq', 'type', 'block_number', 'block_hash', 'tx_hash', 'log_index', 'token', 'data'])
    .execute();
  if (removed.length === 0) return 0;
  removed.sort((a, b) => num(a.seq) - num(b.seq));
  let seq = await lastSeq(trx, chainId);
  await insertMany(
    database,
    trx,
    'index_events',
    removed.map((e): IndexEventsTable => ({
      chain_id: chainId,
      seq: ++seq,
      type: e.type,
      block_number: num(e.block_number),
      block_hash: e.block_hash,
      tx_hash: e.tx_hash,
      log_index: e.log_index,
      token: e.token,
      removes: num(e.seq),
      removed_hw: highWater,
      data: e.data === null ? null : withRemoved(e.data),
    })),
  );
  return removed.length;
}

/**
 * Deletes a chain's journal rows older than its newest `retain` (resuming before them is cursor_stale),
 * at most `chunk` at a time so that one call never holds a long delete.
 */
export async function pruneEvents(
  database: Database,
  chainId: ChainId,
  retain: number,
  chunk = 50_000,
): Promise<number> {
  const span = await database.db
    .selectFrom('index_events')
    .select((eb) => [eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last')])
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  if (span?.first == null || span.last == null) return 0;
  const upTo = Math.min(num(span.last) - retain, num(span.first) + chunk - 1);
  if (upTo < num(span.first)) return 0;
  const result = await database.db
    .deleteFrom('index_events')
    .where('chain_id', '=', chainId)
    .where('seq', '<=', upTo)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
