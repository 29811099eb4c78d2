// Admission: which windows and ceilings a request meets, one atomic charge through the backend, the
// RateLimit headers, and the 429 problem. The hook in server.ts calls `admit` once per keyed request.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Operation } from '../catalog.ts';
import type { ApiKeyRecord } from '../../store/apiKeys.ts';
import { ApiError } from '../../errors.ts';
import {
  type AdmitResult,
  type CounterCheck,
  type LimiterBackend,
  MemoryBackend,
  type PeekResult,
  REFUSED_SUFFIX,
  type SlotCheck,
  type Tally,
} from './backend.ts';
import { CEILINGS, CONCURRENCY, KEY_LOOKUP_CEILING, type Subject } from './ceilings.ts';
import { telemetry } from '../../telemetry.ts';
import { limitsFor } from './plans.ts';
import { WINDOW_SECONDS, type WindowName, windowAt } from './windows.ts';

/** The headers a keyed response may carry about its limits (REFERENCE §6.1). */
export const RATE_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
];

/** The ceilings and caps of each operation, looked up once per request instead of scanned. */
function byOperation<T extends { operations: readonly Operation[] }>(
  list: readonly T[],
): Map<Operation, T[]> {
  const map = new Map<Operation, T[]>();
  for (const item of list) for (const op of item.operations) map.set(op, [...(map.get(op) ?? []), item]);
  return map;
}
const CEILINGS_BY_OPERATION = byOperation(CEILINGS);
const CONCURRENCY_BY_OPERATION = byOperation(CONCURRENCY);

/** What admission needs to know of a request. */
export interface AdmissionInput {
  key: ApiKeyRecord;
  operation: Operation;
  /** Units to charge. */
  units: number;
  /** Only the key's own windows are charged (insufficient scope, oversized page: spec metering rule 3). */
  baseOnly: boolean;
  /** Whether the request reads live chain data (configuration with suites or quotes). */
  live: boolean;
  source: string;
  params: Record<string, unknown>;
  body: unknown;
}

export interface Admission {
  headers: Record<string, string>;
  /** Whether the request holds concurrency slots (then `release` must run when it ends). */
  holdsSlots: boolean;
  /** Frees the request's concurrency slots; safe to call more than once. */
  release(): void;
  /** Extends the slots' leases (a long-lived request: an event stream); no-op when it holds none. */
  renew(): void;
}

interface Policy {
  check: CounterCheck;
  window: WindowName;
  /** Key windows are `rate_limit_exceeded`; every ceiling is `quota_exceeded`. */
  rate: boolean;
}

const KEY_WINDOWS: {
  policy: string;
  window: WindowName;
  limit: (l: ReturnType<typeof limitsFor>) => number;
}[] = [
  { policy: 'burst', window: 'second', limit: (l) => l.burstPerSecond },
  { policy: 'minute', window: 'minute', limit: (l) => l.unitsPerMinute },
  { policy: 'day', window: 'day', limit: (l) => l.daily },
  { policy: 'month', window: 'month', limit: (l) => l.monthly },
];

function lower(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 200
    ? value.toLowerCase()
    : undefined;
}

/** The counted identity for a ceiling's subject, or undefined when the request does not name it. */
function subjectOf(subject: Subject, input: AdmissionInput): string | undefined {
  const body = (input.body ?? {}) as Record<string, unknown>;
  const key = input.key.keyId;
  switch (subject) {
    case 'key':
      return key;
    case 'key+creator':
      return lower(body.creator) && `${key}:${lower(body.creator)}`;
    case 'key+token':
      return lower(input.params.token_address) && `${key}:${lower(input.params.token_address)}`;
    case 'key+actor':
      return lower(body.actor) && `${key}:${lower(body.actor)}`;
    case 'wallet':
      return lower(body.wallet);
    case 'chain+caller':
      return lower(body.caller) && `${String(body.chain_id)}:${lower(body.caller)}`;
    case 'source':
      return input.source;
    case 'service':
      return 'all';
  }
}

function structuredQuote(s: string): string {
  return `"${s}"`;
}

// One RateLimit-Policy member per (policy, quota); they repeat on every request, so they are kept.
const policyMembers = new Map<string, string>();
function policyMember(p: Policy): string {
  const id = `${p.check.policy}/${p.check.limit}`;
  let member = policyMembers.get(id);
  if (member === undefined) {
    const w = p.window === 'month' ? '' : `;w=${WINDOW_SECONDS[p.window]}`;
    member = `${structuredQuote(p.check.policy)};q=${p.check.limit}${w}${p.rate ? ';lp-unit="units"' : ''}`;
    if (policyMembers.size < 10_000) policyMembers.set(id, member);
  }
  return member;
}

interface KeyPolicies {
  units: number;
  /** When the first of the windows rolls over. */
  until: number;
  policies: Policy[];
  checks: CounterCheck[];
  /** The key's tally of this hour, per operation: one object each, not one per request. */
  tallies: Map<Operation, Tally>;
  tallyKey: string;
  tallyEndMs: number;
}

const HOUR_MS = 3_600_000;
/** Hours a usage report sums (this one and the 23 before); a tally is kept one hour longer. */
const TALLY_HOURS = 24;

/** A key's use of one window: units used and left, and when the window ends. */
export interface WindowUsage {
  window: 'minute' | 'day' | 'month';
  limit: number;
  used: number;
  remaining: number;
  resets_at: string;
}

/** What a key has used: its windows, and per operation its requests and 429s over the last 24 hours. */
export interface KeyUsage {
  windows: WindowUsage[];
  operations: { operation: string; requests: number; rejected: number }[];
  since: string;
}

export class Limiter {
  /** Per key record (a new one after each key lookup): its windows' checks, see keyPolicies. */
  private readonly keyWindows = new WeakMap<ApiKeyRecord, KeyPolicies>();

  constructor(
    readonly backend: LimiterBackend,
    private readonly clock: Clock,
    /** Prefix of every storage key (lets several deployments share one Redis). */
    private readonly namespace = 'lp',
    /** Event streams open at once across the service (the EVENTS_MAX_STREAMS setting). */
    private readonly serviceStreams = 10_000,
  ) {}

  /**
   * The key's own windows as charged checks. They change only when a window rolls over or the cost
   * changes, so they are built once per second per key and cost, not per request.
   */
  private keyPolicies(key: ApiKeyRecord, units: number, now: number): KeyPolicies {
    const cached = this.keyWindows.get(key);
    if (cached && cached.units === units && now < cached.until) return cached;
    const plan = limitsFor(key);
    const policies: Policy[] = KEY_WINDOWS.map((w) => ({
      check: this.counter(w.policy, key.keyId, w.window, w.limit(plan), units, now),
      window: w.window,
      rate: true,
    }));
    const checks = policies.map((p) => p.check);
    const hour = Math.floor(now / HOUR_MS);
    const built = {
      units,
      until: Math.min(...checks.map((c) => c.endMs), (hour + 1) * HOUR_MS),
      policies,
      checks,
      tallies: new Map(),
      tallyKey: this.tallyKey(key.keyId, hour),
      tallyEndMs: (hour + TALLY_HOURS + 1) * HOUR_MS,
    };
    this.keyWindows.set(key, built);
    return built;
  }

  private counter(
    policy: string,
    subject: string,
    window: WindowName,
    limit: number,
    cost: number,
    now: number,
  ) {
    const w = windowAt(window, now);
    return { policy, key: `${this.namespace}:c:${policy}:${subject}:${w.id}`, limit, cost, endMs: w.endMs };
  }

  private tallyKey(keyId: string, hour: number) {
    return `${this.namespace}:t:${keyId}:${hour}`;
  }

  /**
   * A key's use, from the counters admission charges (so exact across replicas sharing a Redis): units
   * used and left this minute, day and month, and requests and 429s per operation in the last 24 h.
   */
  async usage(key: ApiKeyRecord): Promise<KeyUsage> {
    const now = this.clock.now();
    const plan = limitsFor(key);
    const windows = KEY_WINDOWS.filter((w) => w.window !== 'second').map((w) => ({
      name: w.window as WindowUsage['window'],
      check: this.counter(w.policy, key.keyId, w.window, w.limit(plan), 0, now),
    }));
    const hour = Math.floor(now / HOUR_MS);
    const hours = Array.from({ length: TALLY_HOURS }, (_, i) => this.tallyKey(key.keyId, hour - i));
    let peeked: PeekResult;
    try {
      peeked = await this.backend.peek(
        windows.map((w) => w.check.key),
        hours,
        now,
      );
    } catch {
      throw unavailable();
    }
    const sums = new Map<string, { requests: number; rejected: number }>();
    for (const tally of peeked.tallies) {
      for (const [field, n] of Object.entries(tally)) {
        const refused = field.endsWith(REFUSED_SUFFIX);
        const operation = refused ? field.slice(0, -REFUSED_SUFFIX.length) : field;
        const sum = sums.get(operation) ?? { requests: 0, rejected: 0 };
        if (refused) sum.rejected += n;
        else sum.requests += n;
        sums.set(operation, sum);
      }
    }
    return {
      windows: windows.map((w, i) => {
        const used = peeked.counts[i] ?? 0;
        return {
          window: w.name,
          limit: w.check.limit,
          used,
          remaining: Math.max(0, w.check.limit - used),
          resets_at: new Date(w.check.endMs).toISOString(),
        };
      }),
      operations: [...sums]
        .map(([operation, sum]) => ({ operation, ...sum }))
        .sort((a, b) => b.requests - a.requests || a.operation.localeCompare(b.operation)),
      since: new Date((hour - TALLY_HOURS + 1) * HOUR_MS).toISOString(),
    };
  }

  /** Uncached key lookups per source (spec: 60 per source per minute); throws quota_exceeded. */
  async admitKeyLookup(source: string): Promise<void> {
    if (this.backend.kind === 'off') return;
    const now = this.clock.now();
    const check = this.counter(
      KEY_LOOKUP_CEILING.name,
      source,
      KEY_LOOKUP_CEILING.window,
      KEY_LOOKUP_CEILING.limit,
      1,
      now,
    );
    const result = await Promise.resolve()
      .then(() => this.backend.admit([check], [], '', now))
      .catch(() => {
        throw unavailable();
      });
    if (!result.admitted) {
      telemetry.limiter('refused', check.policy);
      const retryAfter = String(Math.max(1, Math.ceil((check.endMs - now) / 1000)));
      throw new ApiError('quota_exceeded', 'Too many lookups of unknown or uncached keys from this source', {
        violated_policies: [check.policy],
        headers: { 'retry-after': retryAfter },
      });
    }
  }

  /**
   * Charges the request or throws the 429 problem; the headers go on the response either way. Answers
   * synchronously when the backend does (in-process), so the hot path makes no promise.
   */
  admit(input: AdmissionInput): Admission | Promise<Admission> {
    if (this.backend.kind === 'off') return UNLIMITED_ADMISSION;
    const now = this.clock.now();
    const keyPolicies = this.keyPolicies(input.key, input.units, now);
    let policies = keyPolicies.policies;
    const slots: SlotCheck[] = [];
    if (!input.baseOnly) {
      for (const c of CEILINGS_BY_OPERATION.get(input.operation) ?? []) {
        if (c.liveConfigOnly && !input.live) continue;
        const subject = subjectOf(c.subject, input);
        if (subject === undefined) continue;
        if (policies === keyPolicies.policies) policies = [...policies];
        policies.push({
          check: this.counter(c.name, subject, c.window, c.limit, 1, now),
          window: c.window,
          rate: false,
        });
      }
      for (const c of CONCURRENCY_BY_OPERATION.get(input.operation) ?? []) {
        if (c.liveConfigOnly && !input.live) continue;
        const subject = c.subject === 'key' ? input.key.keyId : 'all';
        const limit =
          c.limit !== 'streams'
            ? c.limit
            : c.subject === 'key'
              ? limitsFor(input.key).streams
              : this.serviceStreams;
        slots.push({ policy: c.name, key: `${this.namespace}:s:${c.name}:${subject}`, limit });
      }
    }
    const lease = slots.length > 0 ? randomUUID() : '';
    const checks = policies === keyPolicies.policies ? keyPolicies.checks : policies.map((p) => p.check);
    let tally = keyPolicies.tallies.get(input.operation);
    if (!tally) {
      tally = { key: keyPolicies.tallyKey, field: input.operation, endMs: keyPolicies.tallyEndMs };
      keyPolicies.tallies.set(input.operation, tally);
    }
    let result: AdmitResult | Promise<AdmitResult>;
    try {
      result = this.backend.admit(checks, slots, lease, now, tally);
    } catch {
      throw unavailable();
    }
    if (result instanceof Promise) {
      return result.then(
        (r) => this.finish(r, policies, slots, lease, now),
        () => {
          throw unavailable();
        },
      );
    }
    return this.finish(result, policies, slots, lease, now);
  }

  private finish(
    result: AdmitResult,
    policies: Policy[],
    slots: SlotCheck[],
    lease: string,
    now: number,
  ): Admission {
    const headers = this.headers(policies, result.counts, now, policyHeaderOf(policies));
    if (!result.admitted) {
      const refused = new Set(result.refused);
      for (const policy of refused) telemetry.limiter('refused', policy);
      const waits = policies
        .filter((p) => refused.has(p.check.policy))
        .map((p) => Math.max(1, Math.ceil((p.check.endMs - now) / 1000)));
      const retryAfter = Math.max(1, ...waits);
      const rate = policies.some((p) => p.rate && refused.has(p.check.policy));
      throw new ApiError(
        rate ? 'rate_limit_exceeded' : 'quota_exceeded',
        `Limit reached: ${[...refused].join(', ')}; retry after ${retryAfter} s`,
        { violated_policies: [...refused], headers: { ...headers, 'retry-after': String(retryAfter) } },
      );
    }
    telemetry.limiter('admitted', 'all');
    if (slots.length === 0) return { headers, holdsSlots: false, release: noop, renew: noop };
    let released = false;
    return {
      headers,
      holdsSlots: true,
      release: () => {
        if (released) return;
        released = true;
        Promise.resolve(this.backend.release(slots, lease)).catch(() => {});
      },
      renew: () => {
        if (released) return;
        Promise.resolve(this.backend.renew(slots, lease, this.clock.now())).catch(() => {});
      },
    };
  }

  /** RateLimit-Policy, RateLimit and X-RateLimit-* (REFERENCE §6.1), counted in units for key windows. */
  private headers(policies: Policy[], counts: number[], now: number, policy: string): Record<string, string> {
    // Shown: the most constraining policy (the smallest share of its quota left), then any other with at
    // most 10 % left, most constraining first. Usually only the first: no sort per request.
    let first = 0;
    let minute = -1;
    let low: number[] | undefined;
    for (let i = 0; i < policies.length; i++) {
      const share = shareLeft(policies, counts, i);
      if (share < shareLeft(policies, counts, first)) first = i;
      if (share <= 0.1) (low ??= []).push(i);
      const p = policies[i] as Policy;
      if (minute < 0 && p.rate && p.check.policy === 'minute') minute = i;
    }
    const shown = low
      ? [
          first,
          ...low
            .filter((i) => i !== first)
            .sort((a, b) => shareLeft(policies, counts, a) - shareLeft(policies, counts, b)),
        ]
      : [first];
    // X-RateLimit-* describe the minute window, the one clients budget by (RateLimit lists the rest).
    if (minute < 0)
      minute = [...policies.keys()]
        .filter((i) => (policies[i] as Policy).rate)
        .sort((a, b) => shareLeft(policies, counts, a) - shareLeft(policies, counts, b))[0] as number;
    let ratelimit = '';
    for (const i of shown) {
      const member = `${structuredQuote((policies[i] as Policy).check.policy)};r=${decimal(left(policies, counts, i))};t=${decimal(resetIn(policies, i, now))}`;
      ratelimit = ratelimit ? `${ratelimit}, ${member}` : member;
    }
    return {
      'ratelimit-policy': policy,
      ratelimit,
      'x-ratelimit-limit': String((policies[minute] as Policy).check.limit),
      'x-ratelimit-remaining': decimal(left(policies, counts, minute)),
      'x-ratelimit-reset': decimal(resetIn(policies, minute, now)),
    };
  }
}

// The headers' figures, as module functions (no closures per request on this path).
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const SMALL = Array.from({ length: 100 }, (_, i) => String(i));
/**
 * A count's decimal digits as a new string. String(n) and `${n}` would store it in V8's number-to-string
 * cache, which lives in the old generation: a count that changes with every request put one string per
 * request there, promoted and dropped only by a full GC (RSS grew about 0.8 MB/s under load until one
 * ran). Built from two-digit pieces instead (toFixed(0) also skips the cache, but is a runtime call:
 * 0.2 µs each in profiles of the keyed route).
 */
function decimal(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return n.toFixed(0);
  if (n < 100) return SMALL[n] as string;
  let s = '';
  while (n >= 100) {
    const q = Math.floor(n / 100);
    s = (TWO_DIGITS[n - q * 100] as string) + s;
    n = q;
  }
  return (SMALL[n] as string) + s;
}
function left(policies: Policy[], counts: number[], i: number): number {
  return Math.max(0, (policies[i] as Policy).check.limit - (counts[i] ?? 0));
}
function shareLeft(policies: Policy[], counts: number[], i: number): number {
  return left(policies, counts, i) / (policies[i] as Policy).check.limit;
}
function resetIn(policies: Policy[], i: number, now: number): number {
  return Math.max(0, Math.ceil(((policies[i] as Policy).check.endMs - now) / 1000));
}

/** The RateLimit-Policy value of a list of policies; the key windows' list is the same object per second. */
const policyHeaders = new WeakMap<Policy[], string>();
function policyHeaderOf(policies: Policy[]): string {
  let header = policyHeaders.get(policies);
  if (header === undefined) {
    header = policies.map(policyMember).join(', ');
    policyHeaders.set(policies, header);
  }
  return header;
}

const noop = () => {};
const UNLIMITED_ADMISSION: Admission = { headers: {}, holdsSlots: false, release: noop, renew: noop };

/** A limiter that cannot answer never admits silently. */
function unavailable() {
  return new ApiError('temporarily_unavailable', 'The rate limiter is unavailable', {
    headers: { 'retry-after': '1' },
  });
}

/** LIMITS=off: nothing is counted or refused (trusted internal deployments, and the benchmark baseline). */
class OffBackend implements LimiterBackend {
  readonly kind = 'off' as const;
  admit(): AdmitResult {
    return { admitted: true, counts: [], refused: [] };
  }
  async peek(counterKeys: string[], tallyKeys: string[]): Promise<PeekResult> {
    return { counts: counterKeys.map(() => 0), tallies: tallyKeys.map(() => ({})) };
  }
  release() {}
  renew() {}
  async ping() {}
  async close() {}
}

/** The limiter the settings ask for: in-process unless REDIS_URL names a shared Redis. */
export async function openLimiter(
  settings: { redisUrl?: string; limitsOff?: boolean; events?: { maxStreams: number } },
  clock: Clock,
): Promise<Limiter> {
  if (settings.limitsOff) return new Limiter(new OffBackend(), clock);
  const streams = settings.events?.maxStreams;
  if (settings.redisUrl) {
    const { RedisBackend } = await import('./redis.ts');
    return new Limiter(await RedisBackend.connect(settings.redisUrl), clock, 'lp', streams);
  }
  return new Limiter(new MemoryBackend(), clock, 'lp', streams);
}
