// How far the index reached: every indexed read reports it (meta.indexed_through_block). Read from a
// copy of index_state at most CACHE_MS old, made again after every commit of this process's indexer:
// a read answers in one query, and the block it reports may lag the index (never run ahead of it).
import type { ChainId } from '../launchpad/chains.ts';
import type { Database } from '../store/db.ts';
import { onCommitted } from '../store/wakeups.ts';

/** How long a copy of index_state serves reads (another process's commits show within this). */
const CACHE_MS = 250;
const copies = new WeakMap<Database, { at: number; rows: Promise<Map<number, string>> }>();
const followed = new WeakSet<Database>();

/** index_state of every chain, as of at most CACHE_MS ago. */
function stateOf(database: Database): Promise<Map<number, string>> {
  if (!followed.has(database)) {
    followed.add(database);
    onCommitted(database, () => copies.delete(database));
  }
  const copy = copies.get(database);
  if (!copy || performance.now() - copy.at > CACHE_MS) {
    // Taken before the read that reports it, so the block reported is one the read has seen.
    const rows = database.db
      .selectFrom('index_state')
      .select(['chain_id', 'indexed_through'])
      .execute()
      .then((list) => new Map(list.map((r) => [r.chain_id, String(r.indexed_through)])));
    const made = { at: performance.now(), rows };
    copies.set(database, made);
    // A failed read is not kept.
    rows.catch(() => copies.get(database) === made && copies.delete(database));
    return rows;
  }
  return copy.rows;
}

/** The last indexed block of one chain (null before the first), or of each chain when several. */
export async function indexedThrough(
  database: Database,
  chainIds: readonly ChainId[],
): Promise<string | null | Record<string, string>> {
  const by = await stateOf(database);
  if (chainIds.length === 1) return by.get(chainIds[0] as number) ?? null;
  return Object.fromEntries(chainIds.flatMap((id) => (by.has(id) ? [[id, by.get(id) as string]] : [])));
}
