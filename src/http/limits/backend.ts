// Limiter backends: in-process (default) and Redis (shared by every replica). Both admit a request only
// when every counter and every concurrency slot has room, and then charge them all together.

export interface CounterCheck {
  /** Policy name, as sent in RateLimit-Policy (e.g. "minute", "launch-key-minute"). */
  policy: string;
  /** Storage key: policy, subject and window id. */
  key: string;
  limit: number;
  cost: number;
  /** End of the current window (ms); the counter expires then. */
  endMs: number;
}

export interface SlotCheck {
  policy: string;
  key: string;
  limit: number;
}

/**
 * A request's line in its key's hourly tally (requests and 429s per operation, for usage reports): the
 * hour's key, the operation's field, and when the tally may go (25 h after the hour began).
 */
export interface Tally {
  key: string;
  field: string;
  endMs: number;
}

/** Ends the field of an operation's 429s in its tally (its requests are counted under its own name). */
export const REFUSED_SUFFIX = ':429';

export interface AdmitResult {
  admitted: boolean;
  /** Per counter: its count after this request was charged (or, when refused, as it stands). */
  counts: number[];
  /** Policies that had no room. */
  refused: string[];
}

export interface LimiterBackend {
  readonly kind: 'memory' | 'redis' | 'off';
  /** Admits or refuses; the tally counts the request either way (and its 429). */
  admit(
    counters: CounterCheck[],
    slots: SlotCheck[],
    lease: string,
    nowMs: number,
    tally?: Tally,
  ): AdmitResult | Promise<AdmitResult>;
  /** Counters as they stand (0 when absent or ended) and tallies' fields, without charging anything. */
  peek(counterKeys: string[], tallyKeys: string[], nowMs: number): Promise<PeekResult>;
  release(slots: SlotCheck[], lease: string): void | Promise<void>;
  /** Extends a held lease (Redis leases expire on their own; in process a slot lives until released). */
  renew(slots: SlotCheck[], lease: string, nowMs: number): void | Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Whether a cost does not fit a window. A request heavier than the whole window (a 10-position claim
 * batch against a burst of 20) fits an otherwise empty window: else it could never be admitted.
 */
export function overLimit(count: number, cost: number, limit: number): boolean {
  return count + cost > limit && !(count === 0 && cost > limit);
}

export interface PeekResult {
  counts: number[];
  tallies: Record<string, number>[];
}

const NONE: string[] = [];

/** One process's limits: exact and atomic because JavaScript runs admissions one at a time. */
export class MemoryBackend implements LimiterBackend {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, { count: number; endMs: number }>();
  /**
   * Slots held per key, as a count: the limiter releases each lease once, so the leases themselves need
   * not be kept (a set of them took and dropped one unique entry per request).
   */
  private readonly slots = new Map<string, number>();
  private readonly tallies = new Map<string, { fields: Map<string, number>; endMs: number }>();
  private sweepIn = 10_000;

  admit(
    counters: CounterCheck[],
    slots: SlotCheck[],
    lease: string,
    nowMs: number,
    tally?: Tally,
  ): AdmitResult {
    if (--this.sweepIn <= 0) this.sweep(nowMs);
    const result = this.charge(counters, slots, lease, nowMs);
    if (tally) {
      let fields = this.tallies.get(tally.key)?.fields;
      if (!fields) this.tallies.set(tally.key, { fields: (fields = new Map()), endMs: tally.endMs });
      fields.set(tally.field, (fields.get(tally.field) ?? 0) + 1);
      if (!result.admitted) {
        const refused = tally.field + REFUSED_SUFFIX;
        fields.set(refused, (fields.get(refused) ?? 0) + 1);
      }
    }
    return result;
  }

  async peek(counterKeys: string[], tallyKeys: string[], nowMs: number): Promise<PeekResult> {
    return {
      counts: counterKeys.map((k) => {
        const entry = this.counters.get(k);
        return entry && entry.endMs > nowMs ? entry.count : 0;
      }),
      tallies: tallyKeys.map((k) => Object.fromEntries(this.tallies.get(k)?.fields ?? [])),
    };
  }

  private charge(counters: CounterCheck[], slots: SlotCheck[], _lease: string, nowMs: number): AdmitResult {
    let refused: string[] | undefined;
    const counts: number[] = new Array(counters.length);
    for (let i = 0; i < counters.length; i++) {
      const c = counters[i] as CounterCheck;
      const entry = this.counters.get(c.key);
      const count = entry && entry.endMs > nowMs ? entry.count : 0;
      if (overLimit(count, c.cost, c.limit)) (refused ??= []).push(c.policy);
      counts[i] = count;
    }
    for (const s of slots) if ((this.slots.get(s.key) ?? 0) >= s.limit) (refused ??= []).push(s.policy);
    if (refused) return { admitted: false, counts, refused };
    for (let i = 0; i < counters.length; i++) {
      const c = counters[i] as CounterCheck;
      const count = (counts[i] as number) + c.cost;
      counts[i] = count;
      // A live window's entry is updated in place; a new or ended one is replaced.
      const entry = this.counters.get(c.key);
      if (entry && entry.endMs === c.endMs) entry.count = count;
      else this.counters.set(c.key, { count, endMs: c.endMs });
    }
    for (const s of slots) this.slots.set(s.key, (this.slots.get(s.key) ?? 0) + 1);
    return { admitted: true, counts, refused: NONE };
  }

  release(slots: SlotCheck[]): void {
    for (const s of slots) {
      const held = (this.slots.get(s.key) ?? 0) - 1;
      if (held > 0) this.slots.set(s.key, held);
      else this.slots.delete(s.key);
    }
  }

  renew(): void {}

  private sweep(nowMs: number) {
    this.sweepIn = 10_000;
    for (const [key, entry] of this.counters) if (entry.endMs <= nowMs) this.counters.delete(key);
    for (const [key, entry] of this.tallies) if (entry.endMs <= nowMs) this.tallies.delete(key);
  }

  async ping() {}
  async close() {}
}
