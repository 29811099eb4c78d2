// The copies of small tables a read consults (src/store/recentCopies.ts): kept for their age, renewed in
// the background past half of it (the caller gets the kept copy and waits for nothing), read again when
// older, and a renewal that a commit of this process overtook is not kept.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../src/store/db.ts';
import { recentCopy } from '../src/store/recentCopies.ts';
import { announceCommitted } from '../src/store/wakeups.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['performance'] }));
afterEach(() => vi.useRealTimers());

describe('recent copies', () => {
  it('renews a copy past half its age without a caller waiting, and drops a renewal a commit overtook', async () => {
    const database = {} as Database;
    let reads = 0;
    let hold: ((v: number) => void) | undefined;
    const read = () => {
      const n = reads++;
      if (n !== 3) return Promise.resolve(n);
      return new Promise<number>((resolve) => (hold = resolve));
    };
    const copy = () => recentCopy(database, 'state', 100, read);

    expect(await copy()).toBe(0);
    vi.advanceTimersByTime(40);
    expect(await copy()).toBe(0);
    expect(reads).toBe(1);
    // Past half its age: the kept copy at once, a new one read meanwhile and used from then on.
    vi.advanceTimersByTime(20);
    expect(await copy()).toBe(0);
    expect(reads).toBe(2);
    expect(await copy()).toBe(1);
    expect(reads).toBe(2);
    // Older than its age (nothing read meanwhile): read again, and waited for.
    vi.advanceTimersByTime(150);
    expect(await copy()).toBe(2);
    // A renewal under way when a commit drops the copies: the next caller reads anew, and the renewal,
    // which may not have seen that commit, is not kept when it ends.
    vi.advanceTimersByTime(60);
    expect(await copy()).toBe(2);
    expect(reads).toBe(4);
    announceCommitted(database, 8453);
    expect(await copy()).toBe(4);
    hold?.(3);
    await Promise.resolve();
    expect(await copy()).toBe(4);
    expect(reads).toBe(5);
  });
});
