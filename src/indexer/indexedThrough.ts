// How far the index reached: every indexed read reports it (meta.indexed_through_block).
import type { ChainId } from '../launchpad/chains.ts';
import type { Database } from '../store/db.ts';

/** The last indexed block of one chain (null before the first), or of each chain when several. */
export async function indexedThrough(
  database: Database,
  chainIds: readonly ChainId[],
): Promise<string | null | Record<string, string>> {
  const rows = await database.db
    .selectFrom('index_state')
    .select(['chain_id', 'indexed_through'])
    .where('chain_id', 'in', [...chainIds])
    .execute();
  const by = Object.fromEntries(rows.map((r) => [r.chain_id, String(r.indexed_through)]));
  return chainIds.length === 1 ? (by[chainIds[0] as number] ?? null) : by;
}
