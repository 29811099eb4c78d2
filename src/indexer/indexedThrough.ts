// How far the index reached: every indexed read reports it (meta.indexed_through_block). Read from a
// copy of index_state at most CACHE_MS old, made again after every commit of this process's indexer:
// a read answers in one query, and the block it reports may lag the index (never run ahead of it).
import type { ChainId } from '../launchpad/chains.ts';
import type { Database } from '../store/db.ts';
import { recentCopy } from '../store/recentCopies.ts';

/** How long a copy of index_state serves reads (another process's commits show within this). */
const CACHE_MS = 250;

/** index_state of every chain, as of at most CACHE_MS ago. */
function stateOf(database: Database): Promise<Map<number, string>> {
  return recentCopy(database, 'index_state', CACHE_MS, () =>
    database.db
      .selectFrom('index_state')
      .select(['chain_id', 'indexed_through'])
      .execute()
      .then((list) => new Map(list.map((r) => [r.chain_id, String(r.indexed_through)]))),
  );
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
