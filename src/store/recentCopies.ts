// Small tables every read consults (index_state, market_state) are read from a copy at most a moment
// old: a read then runs one query, not three. A copy is made again after every commit of this process's
// indexer (announceCommitted); another process's commits show within its age.
import type { Database } from './db.ts';
import { onCommitted } from './wakeups.ts';

const copies = new WeakMap<Database, Map<string, { at: number; value: Promise<unknown> }>>();

/** What `read` gives, from a copy named `name` at most `ms` old (a failed read is not kept). */
export function recentCopy<T>(
  database: Database,
  name: string,
  ms: number,
  read: () => Promise<T>,
): Promise<T> {
  let kept = copies.get(database);
  if (!kept) {
    const made = new Map<string, { at: number; value: Promise<unknown> }>();
    onCommitted(database, () => made.clear());
    copies.set(database, made);
    kept = made;
  }
  const copy = kept.get(name);
  if (copy && performance.now() - copy.at <= ms) return copy.value as Promise<T>;
  // Taken before the read that uses it, so what it reports is what that read has seen, or older.
  const made = { at: performance.now(), value: read() };
  kept.set(name, made);
  made.value.catch(() => kept.get(name) === made && kept.delete(name));
  return made.value as Promise<T>;
}
