// Identical list requests close together share one read: a busy list (the newest tokens, a hot token's
// trades) is read about twice per PAGE_SHARE_MS and not once per caller. A shared page is at most that
// old (a page past half of it is read again in the background while it still serves, so that callers
// seldom wait for a read) and all are dropped at every commit of this process's indexer, the same bound
// as the indexed_through each carries (another process's commits show within it). A failed read is not
// shared.
import type { Database } from '../store/db.ts';
import { onCommitted } from '../store/wakeups.ts';

/** Shared pages kept per database at most (the oldest go first). */
const MAX_PAGES = 200;

interface Shared {
  /** When the read of `page` started. */
  at: number;
  page: Promise<unknown>;
  renewing?: boolean;
}

const shared = new WeakMap<Database, { pages: Map<string, Shared>; generation: number }>();

/** The page `read` gives, or the one an identical request (`key`) read at most `ms` ago. */
export function sharedPage<T>(
  database: Database,
  ms: number,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  if (ms <= 0) return read();
  let cache = shared.get(database);
  if (!cache) {
    const made = { pages: new Map<string, Shared>(), generation: 0 };
    onCommitted(database, () => {
      made.pages.clear();
      made.generation++;
    });
    shared.set(database, made);
    cache = made;
  }
  const { pages } = cache;
  const now = performance.now();
  const kept = pages.get(key);
  if (kept && now - kept.at <= ms) {
    if (now - kept.at > ms / 2 && !kept.renewing) {
      kept.renewing = true;
      const generation = cache.generation;
      const page = read();
      // Installed once read, unless an index commit dropped the shared pages meanwhile.
      page.then(
        () => {
          if (cache.generation === generation) put(pages, key, { at: now, page }, now, ms);
        },
        () => (kept.renewing = false),
      );
    }
    return kept.page as Promise<T>;
  }
  const entry: Shared = { at: now, page: read() };
  put(pages, key, entry, now, ms);
  entry.page.catch(() => pages.get(key) === entry && pages.delete(key));
  return entry.page as Promise<T>;
}

/** Keeps `entry` as the newest page, dropping the expired ones and the oldest past the cap. */
function put(pages: Map<string, Shared>, key: string, entry: Shared, now: number, ms: number): void {
  pages.delete(key);
  for (const [k, page] of pages) {
    if (now - page.at <= ms && pages.size < MAX_PAGES) break;
    pages.delete(k);
  }
  pages.set(key, entry);
}
