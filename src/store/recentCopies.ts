// Small tables every read consults (index_state, market_state) are read from a copy at most a moment
// old: a read then runs one query, not three. A copy is made again after every commit of this process's
// indexer (announceCommitted); another process's commits show within its age. Past half its age, the
// next read that uses a copy also has a new one read in the background, so that while reads keep coming
// none waits for a copy. (One that did ran a second query beside its own, on another connection, and on
// a busy machine each query more is one more wait for a core: at 200 list reads a second, with two
// copies of 250 ms, up to 4 reads in 100 did.)
import type { Database } from './db.ts';
import { onCommitted } from './wakeups.ts';

interface Copy {
  /** When its read started (so a read that uses it has seen what it reports, or more). */
  at: number;
  value: Promise<unknown>;
  renewing?: boolean;
}

const copies = new WeakMap<Database, Map<string, Copy>>();

/** The copies kept of `database` (dropped at each commit of this process's indexer). */
function keptOf(database: Database): Map<string, Copy> {
  let kept = copies.get(database);
  if (!kept) {
    const made = new Map<string, Copy>();
    onCommitted(database, () => made.clear());
    copies.set(database, made);
    kept = made;
  }
  return kept;
}

/** What `read` gives, from a copy named `name` at most `ms` old (a failed read is not kept). */
export function recentCopy<T>(
  database: Database,
  name: string,
  ms: number,
  read: () => Promise<T>,
): Promise<T> {
  const kept = keptOf(database);
  const now = performance.now();
  const copy = kept.get(name);
  if (copy && now - copy.at <= ms) {
    if (now - copy.at > ms / 2 && !copy.renewing) {
      copy.renewing = true;
      const next: Copy = { at: now, value: read() };
      // Kept once read, unless the copy it renews is gone meanwhile: replaced, or dropped by a commit
      // of this process (which the new copy may not have seen).
      next.value.then(
        () => kept.get(name) === copy && kept.set(name, next),
        () => (copy.renewing = false),
      );
    }
    return copy.value as Promise<T>;
  }
  const made: Copy = { at: now, value: read() };
  kept.set(name, made);
  made.value.catch(() => kept.get(name) === made && kept.delete(name));
  return made.value as Promise<T>;
}
