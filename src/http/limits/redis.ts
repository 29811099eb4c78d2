// Redis limiter backend: one Lua script per admission, so every gateway process sharing the Redis sees
// exactly one budget. Counters are fixed-window keys that expire at their window's end; concurrency slots
// are sorted sets of leases that expire on their own if a process dies mid-request. Needs a single Redis
// (not Cluster): one admission touches keys of several hash slots.
import { Redis } from 'ioredis';
import type { AdmitResult, CounterCheck, LimiterBackend, PeekResult, SlotCheck, Tally } from './backend.ts';
import { REFUSED_SUFFIX } from './backend.ts';

/** A lease outlives any request; it only matters when a process dies without releasing it. */
const LEASE_MS = 5 * 60_000;

// KEYS: n counter keys, then m slot keys, then the tally's hash when ARGV[6] names its field. ARGV: n, m,
// now, lease, lease ms, tally field ('' for none), tally end, then (limit, cost, end) per counter and
// limit per slot. Expiry is relative to the gateway's clock (PEXPIRE end - now), so a clock offset
// between a gateway and Redis cannot expire a window early. Returns {admitted (0/1), counts, refused
// indexes (1-based)}.
const ADMIT = `
local n = tonumber(ARGV[1])
local m = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local lease = ARGV[4]
local leaseMs = tonumber(ARGV[5])
local tallyField = ARGV[6]
local base = 7
local function tally(admitted)
  if tallyField == '' then return end
  local key = KEYS[n + m + 1]
  if redis.call('HINCRBY', key, tallyField, 1) == 1 then
    redis.call('PEXPIRE', key, math.max(1, tonumber(ARGV[7]) - now))
  end
  if not admitted then redis.call('HINCRBY', key, tallyField .. '${REFUSED_SUFFIX}', 1) end
end
local counts = {}
local refused = {}
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  local cost = tonumber(ARGV[base + (i - 1) * 3 + 2])
  local limit = tonumber(ARGV[base + (i - 1) * 3 + 1])
  counts[i] = count
  -- a cost heavier than the whole window fits an otherwise empty window (overLimit in backend.ts)
  if count + cost > limit and not (count == 0 and cost > limit) then
    refused[#refused + 1] = i
  end
end
local slotBase = base + n * 3
for j = 1, m do
  local key = KEYS[n + j]
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[slotBase + j]) then
    refused[#refused + 1] = n + j
  end
end
if #refused > 0 then
  tally(false)
  return {0, counts, refused}
end
for i = 1, n do
  local cost = tonumber(ARGV[base + (i - 1) * 3 + 2])
  local count = redis.call('INCRBY', KEYS[i], cost)
  counts[i] = count
  -- a window's key gets its expiry when this admission created it
  if count == cost then
    redis.call('PEXPIRE', KEYS[i], math.max(1, tonumber(ARGV[base + (i - 1) * 3 + 3]) - now))
  end
end
for j = 1, m do
  redis.call('ZADD', KEYS[n + j], now + leaseMs, lease)
  redis.call('PEXPIRE', KEYS[n + j], leaseMs)
end
tally(true)
return {1, counts, {}}
`;

type AdmitReply = [number, number[], number[]];

export class RedisBackend implements LimiterBackend {
  readonly kind = 'redis' as const;

  private constructor(private readonly redis: Redis) {
    redis.defineCommand('lpAdmit', { lua: ADMIT });
  }

  static async connect(url: string): Promise<RedisBackend> {
    const redis = new Redis(url, {
      // Fail fast instead of queueing: a request must not wait on a Redis that is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 2000,
      lazyConnect: true,
    });
    // Connection errors surface on commands; ioredis keeps reconnecting in the background.
    redis.on('error', () => {});
    await redis.connect().catch(() => {});
    return new RedisBackend(redis);
  }

  async admit(
    counters: CounterCheck[],
    slots: SlotCheck[],
    lease: string,
    nowMs: number,
    tally?: Tally,
  ): Promise<AdmitResult> {
    const args: (string | number)[] = [
      counters.length,
      slots.length,
      nowMs,
      lease,
      LEASE_MS,
      tally?.field ?? '',
      tally?.endMs ?? 0,
    ];
    for (const c of counters) args.push(c.limit, c.cost, c.endMs);
    for (const s of slots) args.push(s.limit);
    const keys = [...counters.map((c) => c.key), ...slots.map((s) => s.key)];
    if (tally) keys.push(tally.key);
    const [admitted, counts, refused] = (await (
      this.redis as unknown as { lpAdmit(n: number, ...a: (string | number)[]): Promise<AdmitReply> }
    ).lpAdmit(keys.length, ...keys, ...args)) as AdmitReply;
    const policies = [...counters.map((c) => c.policy), ...slots.map((s) => s.policy)];
    return {
      admitted: admitted === 1,
      counts: counts.map(Number),
      refused: refused.map((i) => policies[i - 1] as string),
    };
  }

  async peek(counterKeys: string[], tallyKeys: string[]): Promise<PeekResult> {
    const pipeline = this.redis.pipeline();
    if (counterKeys.length > 0) pipeline.mget(...counterKeys);
    for (const k of tallyKeys) pipeline.hgetall(k);
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed) throw failed[0];
    const values = replies.map(([, v]) => v);
    const counts = counterKeys.length > 0 ? (values.shift() as (string | null)[]).map(Number) : [];
    const tallies = (values as Record<string, string>[]).map((h) =>
      Object.fromEntries(Object.entries(h).map(([f, v]) => [f, Number(v)])),
    );
    return { counts, tallies };
  }

  async release(slots: SlotCheck[], lease: string): Promise<void> {
    if (slots.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const s of slots) pipeline.zrem(s.key, lease);
    await pipeline.exec();
  }

  async renew(slots: SlotCheck[], lease: string, nowMs: number): Promise<void> {
    if (slots.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const s of slots) {
      pipeline.zadd(s.key, 'XX', nowMs + LEASE_MS, lease);
      pipeline.pexpire(s.key, LEASE_MS);
    }
    await pipeline.exec();
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
