// Small tables every read consults (index_state, market_state) are read from a copy at most a moment
// old: a read then runs one query, not three. A copy is made again after every commit of this process's
// indexer (announceCommitted); another process's commits show within its age. Past half its age, the
// next read that uses a copy also has a new one read in the background, so that while reads keep coming
// none waits for a copy. (One that did ran a second query beside its own, on another connection, and on
// a busy machine each query more is one more wait for a core: at 200 list reads a second, with two
// copies of 250 ms, up to 4 reads in 100 did.)
import type { Database } from './db.ts';
import { onCommitted } from './wakeups.ts';

/** A value kept a moment (a copy, a shared page). */
export interface Kept<T = unknown> {
  /** When its read started (so a read that uses it has seen what it reports, or more). */
  at: number;
  value: Promise<T>;
  renewing?: boolean;
}

/**
 * What `read` gives, from `kept`'s entry `key` when it is at most `ms` old: past half of that, the entry
 * serves and a new one is read meanwhile, put in its place (`put`) once read unless the entry is gone by
 * then (replaced, or dropped with what this process's commits drop). A new entry is put before its read
 * ends, so that callers meanwhile share it; a failed read is not kept.
 */
export function readKept<T>(
  kept: Map<string, Kept<T>>,
  key: string,
  ms: number,
  read: () => Promise<T>,
  put: (entry: Kept<T>) => void = (entry) => kept.set(key, entry),
): Promise<T> {
  const now = performance.now();
  const entry = kept.get(key);
  if (entry && now - entry.at <= ms) {
    if (now - entry.at > ms / 2 && !entry.renewing) {
      entry.renewing = true;
      const next: Kept<T> = { at: now, value: read() };
      next.value.then(
        () => kept.get(key) === entry && put(next),
        () => (entry.renewing = false),
      );
    }
    return entry.value;
  }
  const made: Kept<T> = { at: now, value: read() };
  put(made);
  made.value.catch(() => kept.get(key) === made && kept.delete(key));
  return made.value;
}

/** Maps of kept values, one per database, each emptied at every commit of this process's indexer. */
export function keptPerDatabase(): <T>(database: Database) => Map<string, Kept<T>> {
  const maps = new WeakMap<Database, Map<string, Kept>>();
  return <T>(database: Database) => {
    let kept = maps.get(database);
    if (!kept) {
      const made = new Map<string, Kept>();
      onCommitted(database, () => made.clear());
      maps.set(database, made);
      kept = made;
    }
    return kept as Map<string, Kept<T>>;
  };
}

/** The copies kept of each database. */
const keptOf = keptPerDatabase();

/** What `read` gives, from a copy named `name` at most `ms` old (a failed read is not kept). */
export function recentCopy<T>(
  database: Database,
  name: string,
  ms: number,
  read: () => Promise<T>,
): Promise<T> {
  return readKept(keptOf<T>(database), name, ms, read);
}
