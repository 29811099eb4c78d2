// The live event feed behind GET /v1/events: one per process. It follows the event journal of each chain
// (src/indexer/journal.ts), woken by the indexer's commits (in process, or PostgreSQL NOTIFY from another
// process) and by a poll, keeps the newest rows in memory with their data made once, and hands every
// subscription the rows after its own position, filtered and held for its confirmations. A position is
// a seq per chain; the resume cursor (each event's id) carries it, signed and bound to the filters.
import { Cursors } from '../cursor.ts';
import { ApiError } from '../errors.ts';
import type { EventType } from '../indexer/journal.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import { highWaters, journalSpan, type JournalRow, readJournal, resolveEventData } from './eventRecords.ts';
import type { TokenReadDeps } from './tokenQueries.ts';
import { telemetry } from '../telemetry.ts';

/** What a stream asks for. */
export interface EventFilter {
  /** The chains followed, in CHAIN_IDS order (every chain when the request names none). */
  chainIds: ChainId[];
  /** The event types sent, sorted. */
  types: EventType[];
  /** Only this token's events (checksummed), when set. */
  token?: string;
  /** Events are sent once the index is this many blocks past them. */
  confirmations: number;
}

/** Where a stream is: the last journal seq it has passed, per followed chain. */
export type Positions = Map<ChainId, number>;

/** How the feed writes to one client (the route frames it as Server-Sent Events). */
export interface EventSink {
  /** One event, written whole: its resume id, its name and its data (one line of JSON). */
  event(id: string, name: string, data: string): void;
  /** A line the client ignores (the heartbeat). */
  comment(text: string): void;
  /**
   * The stream's start as an id with no event: a client that reconnects before any event arrives
   * resumes from there, so nothing committed meanwhile is lost.
   */
  position(id: string): void;
  /** Bytes written and not yet taken by the client. */
  buffered(): number;
  /** Ends the stream: `abort` drops what is still buffered (a client that does not keep up). */
  end(reason: string, abort?: boolean): void;
}

export interface EventFeedDeps extends TokenReadDeps {
  /** Whether a key may still stream: active and not expired. */
  keyActive(keyId: string): Promise<boolean>;
  /** Subscribes to journal growth (src/store/wakeups.ts); returns the unsubscribe. */
  onGrowth(wake: (chainId: number) => void): () => Promise<void>;
}

export interface EventFeedOptions {
  /** A poll besides the wake-ups, so a lost wake-up costs at most this much latency. */
  pollMs: number;
  /** A comment line to every stream this often (proxies close silent connections). */
  heartbeatMs: number;
  /** Streams of a key that was revoked or expired end within this. */
  keyCheckMs: number;
  /** Bytes a client may leave unread before its stream is ended. */
  maxBufferedBytes: number;
  /** Called this often for each open stream (its concurrency lease is renewed). */
  renewMs: number;
}

interface Subscription {
  filter: EventFilter;
  scope: string;
  positions: Positions;
  keyId: string;
  sink: EventSink;
  renew: () => void;
  pumping: boolean;
  again: boolean;
  closed: boolean;
}

/** Rows kept in memory per chain; a stream further behind reads the journal page by page. */
const TAIL = 5_000;
const PAGE = 500;

/** The cursor scope of a filter: a cursor of another filter set is cursor_filter_mismatch. */
export function eventScope(filter: EventFilter): string {
  return Cursors.scope('events', {
    chains: filter.chainIds,
    types: filter.types,
    token: filter.token ?? null,
    confirmations: filter.confirmations,
  });
}

/** Whether a row is sent to a stream, skipped for good, or waited for (its confirmations, its data). */
export function decide(row: JournalRow, f: EventFilter, highWater: number): 'deliver' | 'skip' | 'wait' {
  if (!f.types.includes(row.type) || (f.token !== undefined && row.token !== f.token)) return 'skip';
  const n = f.confirmations;
  // A removal is sent to the streams that were sent its event: those for which it was deep enough
  // before the reorg (the high water it recorded). With confirmations above the reorg's depth: none.
  if (row.removes !== null)
    return row.data !== null && row.block_number <= (row.removed_hw as number) - n ? 'deliver' : 'skip';
  if (row.removed_hw !== null && (row.data === null || row.block_number > row.removed_hw - n)) return 'skip';
  if (row.block_number > highWater - n) return 'wait';
  return row.data === null ? 'wait' : 'deliver';
}

/** Position of the first row with seq > `after` in rows sorted by seq. */
function firstAfter(rows: JournalRow[], after: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((rows[mid] as JournalRow).seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows that can be used as they are: up to the first whose data could not be made yet. */
function usable(rows: JournalRow[]): JournalRow[] {
  const stop = rows.findIndex((r) => r.data === null && r.removes === null && r.removed_hw === null);
  return stop < 0 ? rows : rows.slice(0, stop);
}

export class EventFeed {
  private readonly subs = new Set<Subscription>();
  /** Per chain: the newest journal rows (sorted, data resolved) and the seq they reach. */
  private readonly tails = new Map<ChainId, JournalRow[]>();
  private readonly tailLast = new Map<ChainId, number>();
  private readonly highWater = new Map<ChainId, number>();
  private readonly refreshing = new Map<ChainId, { again: boolean }>();
  /** Each event's id by scope and positions: streams with one filter share them. */
  private readonly ids = new Map<string, string>();
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => Promise<void>) | undefined;
  /** The public origin of ipfs:// images in records (the first stream's when the settings have none). */
  private origin: string | undefined;

  constructor(
    private readonly deps: EventFeedDeps,
    private readonly options: EventFeedOptions,
  ) {}

  /** Open streams (metrics and tests). */
  get size(): number {
    return this.subs.size;
  }

  private start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.onGrowth((chainId) => {
      if (chainId === -1) for (const id of CHAIN_IDS) this.refresh(id);
      else if ((CHAIN_IDS as readonly number[]).includes(chainId)) this.refresh(chainId as ChainId);
    });
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.options.pollMs, () => {
      for (const id of CHAIN_IDS) this.refresh(id);
    });
    every(this.options.heartbeatMs, () => {
      for (const s of this.subs) this.send(s, (sink) => sink.comment('keep-alive'));
    });
    every(this.options.keyCheckMs, () => void this.checkKeys());
    every(this.options.renewMs, () => {
      for (const s of this.subs) s.renew();
    });
  }

  /**
   * Where a stream starts: after its Last-Event-ID, or at the journal's end. Refuses, before the stream
   * opens, a cursor of another filter set (cursor_filter_mismatch) or one the journal no longer holds
   * (cursor_stale).
   */
  async open(filter: EventFilter, lastEventId: string | undefined): Promise<Positions> {
    const scope = eventScope(filter);
    const spans = await Promise.all(filter.chainIds.map((id) => journalSpan(this.deps, id)));
    if (lastEventId === undefined) return new Map(filter.chainIds.map((id, i) => [id, spans[i]?.last ?? 0]));
    let position: (string | number)[];
    try {
      position = this.deps.cursors.decode(lastEventId, scope);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_parameter')
        throw new ApiError('invalid_parameter', 'Last-Event-ID is not an event id this gateway issued', {
          invalid_parameters: [{ name: 'Last-Event-ID', reason: 'format', detail: 'not a valid event id' }],
        });
      throw err;
    }
    const positions: Positions = new Map();
    filter.chainIds.forEach((id, i) => {
      const seq = Number(position[i]);
      const span = spans[i] ?? null;
      // Gone from the journal (pruned), or from a journal this one is not (a rebuilt index).
      if (!Number.isSafeInteger(seq) || seq < 0 || seq > (span?.last ?? 0) || (span && seq < span.first - 1))
        throw new ApiError(
          'cursor_stale',
          `The index no longer holds the events after this id on chain ${id}; reconnect without Last-Event-ID`,
        );
      positions.set(id, seq);
    });
    return positions;
  }

  /** Starts sending a stream the events after its positions; returns what ends it. */
  subscribe(
    filter: EventFilter,
    positions: Positions,
    client: { keyId: string; origin: string; sink: EventSink; renew: () => void },
  ): () => void {
    this.origin ??= client.origin;
    this.start();
    const sub: Subscription = {
      filter,
      scope: eventScope(filter),
      positions,
      keyId: client.keyId,
      sink: client.sink,
      renew: client.renew,
      pumping: false,
      again: false,
      closed: false,
    };
    this.subs.add(sub);
    telemetry.streams(1);
    sub.sink.position(this.idOf(sub));
    // The chains' tails may be behind this stream's start (nobody was listening): catch them up first.
    for (const id of filter.chainIds) this.refresh(id);
    return () => this.drop(sub);
  }

  /** Ends every stream (shutdown): each has been sent whole events only. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const s of [...this.subs]) this.end(s, 'shutdown', 'the gateway is shutting down');
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private drop(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    this.subs.delete(sub);
    telemetry.streams(-1);
  }

  private end(sub: Subscription, why: 'slow_client' | 'key_invalid' | 'shutdown', reason: string): void {
    if (sub.closed) return;
    this.drop(sub);
    telemetry.streamEnded(why);
    sub.sink.end(reason, why === 'slow_client');
  }

  /** Writes to a stream, ending it when its client has left too much unread. */
  private send(sub: Subscription, write: (sink: EventSink) => void): void {
    if (sub.closed) return;
    write(sub.sink);
    if (sub.sink.buffered() > this.options.maxBufferedBytes)
      this.end(sub, 'slow_client', 'the client did not keep up; resume with the last event id');
  }

  /** Ends the streams of keys that were revoked or expired. */
  private async checkKeys(): Promise<void> {
    const keyIds = new Set([...this.subs].map((s) => s.keyId));
    for (const keyId of keyIds) {
      let active: boolean;
      try {
        active = await this.deps.keyActive(keyId);
      } catch {
        continue; // the database is away: keys are checked again at the next round
      }
      if (!active)
        for (const s of [...this.subs])
          if (s.keyId === keyId) this.end(s, 'key_invalid', 'the API key is no longer valid');
    }
  }

  /** Reads a chain's new journal rows into its tail, then lets its streams take them. */
  private refresh(chainId: ChainId): void {
    const running = this.refreshing.get(chainId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.refreshing.set(chainId, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await this.readTail(chainId);
          for (const s of this.subs) if (s.filter.chainIds.includes(chainId)) void this.pump(s);
        } while (state.again);
      } catch {
        // The database is away: the poll tries again.
      } finally {
        this.refreshing.delete(chainId);
      }
    })();
  }

  private async readTail(chainId: ChainId): Promise<void> {
    const followers = [...this.subs].filter((s) => s.filter.chainIds.includes(chainId));
    if (followers.length === 0) return;
    // The high water is read before the rows: every commit it reflects has its journal rows in view.
    const highWater = (await highWaters(this.deps)).get(chainId) ?? -1;
    const at = followers.map((s) => s.positions.get(chainId) ?? 0);
    let tail = this.tails.get(chainId) ?? [];
    let last = this.tailLast.get(chainId);
    // The tail holds the newest rows: it starts where the furthest stream is (streams behind it read the
    // journal page by page), and restarts when every stream is past it (nobody followed the chain).
    if (last === undefined || last < Math.min(...at)) {
      tail = [];
      last = last === undefined ? Math.max(...at) : Math.min(...at);
    }
    for (;;) {
      const rows = await readJournal(this.deps, chainId, last, PAGE);
      await resolveEventData(this.deps, this.origin ?? this.deps.settings.publicUrl, rows);
      const ready = usable(rows);
      for (const row of ready) {
        // A removal marks its event in the tail too (streams still waiting on it skip it).
        if (row.removes !== null) {
          const at = firstAfter(tail, row.removes - 1);
          const removed = tail[at];
          if (removed && removed.seq === row.removes) removed.removed_hw = row.removed_hw;
        }
        tail.push(row);
      }
      if (ready.length > 0) last = (ready.at(-1) as JournalRow).seq;
      if (ready.length < PAGE) break;
    }
    if (tail.length > TAIL) tail = tail.slice(tail.length - TAIL);
    this.tails.set(chainId, tail);
    this.tailLast.set(chainId, last);
    this.highWater.set(chainId, highWater);
  }

  /** The rows of a chain after a position: from the tail, or the journal for a stream further behind. */
  private async rowsAfter(chainId: ChainId, after: number): Promise<JournalRow[]> {
    const tail = this.tails.get(chainId) ?? [];
    const last = this.tailLast.get(chainId) ?? after;
    if (after >= last) return [];
    if (tail.length > 0 && after >= (tail[0] as JournalRow).seq - 1)
      return tail.slice(firstAfter(tail, after));
    const rows = await readJournal(this.deps, chainId, after, PAGE);
    await resolveEventData(this.deps, this.origin ?? this.deps.settings.publicUrl, rows);
    return usable(rows.filter((r) => r.seq <= last));
  }

  /** Sends a stream what it has not had yet, chain by chain, in journal order. */
  private async pump(sub: Subscription): Promise<void> {
    if (sub.pumping) {
      sub.again = true;
      return;
    }
    sub.pumping = true;
    try {
      do {
        sub.again = false;
        for (const chainId of sub.filter.chainIds) {
          if (sub.closed) return;
          await this.pumpChain(sub, chainId);
        }
      } while (sub.again && !sub.closed);
    } catch {
      // The database is away while catching up: the next wake-up or poll goes on from the same place.
    } finally {
      sub.pumping = false;
    }
  }

  private async pumpChain(sub: Subscription, chainId: ChainId): Promise<void> {
    for (;;) {
      const rows = await this.rowsAfter(chainId, sub.positions.get(chainId) ?? 0);
      if (rows.length === 0 || sub.closed) return;
      const highWater = this.highWater.get(chainId) ?? -1;
      for (const row of rows) {
        const verdict = decide(row, sub.filter, highWater);
        if (verdict === 'wait') return;
        sub.positions.set(chainId, row.seq);
        if (verdict === 'deliver') {
          const event = row.removes !== null ? 'removed' : row.type;
          const id = this.idOf(sub);
          this.send(sub, (sink) => sink.event(id, event, row.data as string));
          telemetry.eventSent(event);
        }
        if (sub.closed) return;
      }
    }
  }

  /** The resume cursor at a stream's current positions (shared by streams of one filter and place). */
  private idOf(sub: Subscription): string {
    const position = sub.filter.chainIds.map((id) => sub.positions.get(id) ?? 0);
    const memo = `${sub.scope}:${position.join(',')}`;
    let id = this.ids.get(memo);
    if (id === undefined) {
      id = this.deps.cursors.encode(sub.scope, position);
      if (this.ids.size >= 10_000) this.ids.delete(this.ids.keys().next().value as string);
      this.ids.set(memo, id);
    }
    return id;
  }
}
