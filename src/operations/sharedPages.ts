// Identical list requests close together share one read: a busy list (the newest tokens, a hot token's
// trades) is read about twice per PAGE_SHARE_MS and not once per caller. A shared page is at most that
// old (a page past half of it is read again in the background while it still serves, so that callers
// seldom wait for a read) and all are dropped at every commit of this process's indexer, the same bound
// as the indexed_through each carries (another process's commits show within it). A failed read is not
// shared.
import type { Database } from '../store/db.ts';
import { type Kept, keptPerDatabase, readKept } from '../store/recentCopies.ts';

/** Shared pages kept per database at most (the oldest go first). */
const MAX_PAGES = 200;

/** The pages shared of each database. */
const pagesOf = keptPerDatabase();

/** The page `read` gives, or the one an identical request (`key`) read at most `ms` ago. */
export function sharedPage<T>(
  database: Database,
  ms: number,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  if (ms <= 0) return read();
  const pages = pagesOf<T>(database);
  return readKept(pages, key, ms, read, (entry) => put(pages, key, entry, ms));
}

/** Keeps `entry` as the newest page, dropping the expired ones and the oldest past the cap. */
function put<T>(pages: Map<string, Kept<T>>, key: string, entry: Kept<T>, ms: number): void {
  pages.delete(key);
  for (const [k, page] of pages) {
    if (entry.at - page.at <= ms && pages.size < MAX_PAGES) break;
    pages.delete(k);
  }
  pages.set(key, entry);
}
