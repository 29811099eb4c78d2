// Spans in which the index bench's write load is not ingesting but resetting its rows between passes: a
// read that overlaps one is sent as any other but not counted. Kept by the bench and by its read clients.

export class Pauses {
  /** Pauses that ended, [from, to] (performance.now()). */
  private readonly past: [number, number][] = [];
  private since: number | undefined;

  get now(): boolean {
    return this.since !== undefined;
  }

  begin(): void {
    this.since ??= performance.now();
  }

  end(): void {
    if (this.since !== undefined) this.past.push([this.since, performance.now()]);
    this.since = undefined;
  }

  /** Whether a call from `start` to now overlapped a pause. */
  overlaps(start: number): boolean {
    return this.now || this.past.some(([, to]) => to >= start);
  }

  /** The pauses since `from`, the one under way included. */
  countSince(from: number): number {
    return this.past.filter(([, to]) => to >= from).length + (this.now ? 1 : 0);
  }

  /** The time (ms) of pauses since `from`. */
  msSince(from: number): number {
    const past = this.past.reduce((ms, [a, b]) => ms + Math.max(0, b - Math.max(a, from)), 0);
    return past + (this.since === undefined ? 0 : performance.now() - Math.max(this.since, from));
  }

  /** Whether `seconds` outside pauses passed since `from` (or ten times that in all, should one not end). */
  counted(from: number, seconds: number): boolean {
    const all = performance.now() - from;
    return all - this.msSince(from) >= seconds * 1000 || all >= seconds * 10_000;
  }
}
