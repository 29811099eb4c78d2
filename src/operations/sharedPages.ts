// Identical list requests close together share one read: a busy list (the newest tokens, a hot token's
// trades) is read once per PAGE_SHARE_MS and not once per caller. A shared page is at most that old and
// is dropped at every commit of this process's indexer, the same bound as the indexed_through it
// carries (another process's commits show within it); a failed read is not shared.
import type { Database } from '../store/db.ts';
import { onCommitted } from '../store/wakeups.ts';

/** Shared pages kept per database at most (the oldest go first). */
const MAX_PAGES = 200;

const shared = new WeakMap<Database, Map<string, { at: number; page: Promise<unknown> }>>();

/** The page `read` gives, or the one an identical request (`key`) got at most `ms` ago. */
export function sharedPage<T>(
  database: Database,
  ms: number,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  if (ms <= 0) return read();
  let pages = shared.get(database);
  if (!pages) {
    const made = new Map<string, { at: number; page: Promise<unknown> }>();
    shared.set(database, made);
    onCommitted(database, () => made.clear());
    pages = made;
  }
  const now = performance.now();
  const kept = pages.get(key);
  if (kept && now - kept.at <= ms) return kept.page as Promise<T>;
  pages.delete(key);
  // Oldest first (a page made again goes last): drop the expired ones, and the oldest past the cap.
  for (const [k, page] of pages) {
    if (now - page.at <= ms && pages.size < MAX_PAGES) break;
    pages.delete(k);
  }
  const entry = { at: now, page: read() as Promise<unknown> };
  pages.set(key, entry);
  entry.page.catch(() => pages.get(key) === entry && pages.delete(key));
  return entry.page as Promise<T>;
}
