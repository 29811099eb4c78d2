// The two limiter backends against the same rules: atomic all-or-nothing admission, concurrency slots
// with release, and (Redis) one budget shared by several gateway processes.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { type LimiterBackend, MemoryBackend } from '../src/http/limits/backend.ts';
import { Limiter } from '../src/http/limits/limits.ts';
import { RedisBackend } from '../src/http/limits/redis.ts';
import type { ApiKeyRecord } from '../src/store/apiKeys.ts';
import { call, expectProblem, freshPostgres, startGateway, tempDir } from './support/gateway.ts';
import { startRedis, type TestRedis } from './support/redis.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

function keyRecord(keyId: string, overrides: Record<string, unknown> = {}): ApiKeyRecord {
  return {
    keyId,
    secretHash: Buffer.alloc(32),
    plan: 'builder',
    scopes: new Set(['*']),
    origins: [],
    status: 'active',
    overrides,
    expiresAt: null,
    createdAt: new Date(0),
    lastUsedAt: null,
  };
}

/** Admission as a promise, whichever way the backend answers. */
const admitAsync = async (limiter: Limiter, input: Parameters<Limiter['admit']>[0]) => limiter.admit(input);

const backends: { name: string; make: () => Promise<LimiterBackend> }[] = [
  { name: 'memory', make: async () => new MemoryBackend() },
  { name: 'redis', make: () => RedisBackend.connect(redis.url) },
];

describe.each(backends)('$name backend', ({ make }) => {
  it('holds 2 concurrent holder snapshots per key until one is released', async () => {
    const backend = await make();
    const limiter = new Limiter(backend, new ManualClock(Date.UTC(2026, 5, 1)), `t${Math.random()}`);
    const input = {
      key: keyRecord('aaaaaaaa'),
      operation: 'holder_snapshot' as const,
      units: 10,
      baseOnly: false,
      live: false,
      source: '127.0.0.1',
      params: {},
      body: {},
    };
    const first = await limiter.admit(input);
    await limiter.admit(input);
    await expect(admitAsync(limiter, input)).rejects.toMatchObject({
      code: 'quota_exceeded',
      extras: { violated_policies: ['holders-key-inflight'] },
    });
    // Another key has its own two slots.
    await limiter.admit({ ...input, key: keyRecord('bbbbbbbb') });
    first.release();
    first.release(); // idempotent
    await new Promise((r) => setTimeout(r, 20)); // release is fire-and-forget on Redis
    await limiter.admit(input);
    await expect(admitAsync(limiter, input)).rejects.toMatchObject({ code: 'quota_exceeded' });
    await backend.close();
  });

  it('charges nothing when any policy refuses', async () => {
    const backend = await make();
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const limiter = new Limiter(backend, clock, `t${Math.random()}`);
    const input = {
      key: keyRecord('cccccccc', { unitsPerMinute: 25 }),
      operation: 'launch_prepare' as const,
      units: 20,
      baseOnly: false,
      live: false,
      source: '127.0.0.1',
      params: {},
      body: { creator: '0x00000000000000000000000000000000000000aa' },
    };
    await limiter.admit(input);
    // 20 more units do not fit the minute (25): refused, and the creator ceiling is not charged.
    await expect(
      admitAsync(limiter, { ...input, body: { creator: '0x00000000000000000000000000000000000000bb' } }),
    ).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
    });
    clock.advance(60_000);
    // Had the refused request charged launch-creator-minute for bb, this one would be refused.
    await limiter.admit({ ...input, body: { creator: '0x00000000000000000000000000000000000000bb' } });
    await backend.close();
  });
});

describe('redis backend', () => {
  it("a window's counter expires at the window's end, set by the admission that created it", async () => {
    const backend = await RedisBackend.connect(redis.url);
    const start = Date.UTC(2026, 5, 1, 12, 0, 30); // 30 s into a minute
    const clock = new ManualClock(start);
    const ns = `t${Math.random().toString(36).slice(2)}`;
    const limiter = new Limiter(backend, clock, ns);
    const input = {
      key: keyRecord('dddddddd'),
      operation: 'config' as const,
      units: 1,
      baseOnly: true,
      live: false,
      source: '127.0.0.1',
      params: {},
      body: {},
    };
    const client = new Redis(redis.url);
    try {
      await limiter.admit(input);
      const minute = await client.keys(`${ns}:c:minute:*`);
      expect(minute).toHaveLength(1);
      const ttl = async () => client.pttl(minute[0] as string);
      // The minute window ends 30 s after this clock reading.
      const first = await ttl();
      expect(first).toBeGreaterThan(29_000);
      expect(first).toBeLessThanOrEqual(30_000);
      // A later admission in the same window counts on, and does not push the expiry out.
      clock.advance(10_000);
      await limiter.admit(input);
      expect(Number(await client.get(minute[0] as string))).toBe(2);
      expect(await ttl()).toBeLessThanOrEqual(first);
      // Every counter key of the admission expires.
      for (const k of await client.keys(`${ns}:c:*`)) expect(await client.pttl(k)).toBeGreaterThan(0);
    } finally {
      client.disconnect();
      await backend.close();
    }
  });

  it('answers temporarily_unavailable when Redis is away, and health reports it', async () => {
    const away = await startRedis();
    const gw = await startGateway({ REDIS_URL: away.url });
    try {
      const key = await gw.createKey();
      expect((await call(gw, '/v1/config?chain_id=8453&include=chains', { key })).status).toBe(200);
      expect((await call(gw, '/v1/health')).json.data.limiter).toEqual({ status: 'ok', kind: 'redis' });
      await away.stop();
      expectProblem(
        await call(gw, '/v1/config?chain_id=8453&include=chains', { key }),
        503,
        'temporarily_unavailable',
      );
      const health = expectProblem(await call(gw, '/v1/health'), 503, 'temporarily_unavailable');
      expect(health.health.limiter).toEqual({ status: 'down', kind: 'redis' });
    } finally {
      await gw.close();
    }
  });

  it('two gateway processes on one Redis admit exactly the budget, with consistent headers', async () => {
    // The production shape: replicas with data dirs of their own, one PostgreSQL, one Redis.
    const env = {
      ...process.env,
      DATABASE_URL: await freshPostgres(inject('postgresUrl')),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'warn',
    };
    const children: ChildProcess[] = [];
    try {
      const origins = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<string>((resolve, reject) => {
              const child = spawn(process.execPath, ['bin/launchpad.js', 'start'], {
                env: { ...env, DEVNET: 'off', LAUNCHPAD_DATA_DIR: tempDir() },
                stdio: ['ignore', 'pipe', 'inherit'],
              });
              children.push(child);
              let out = '';
              child.stdout?.on('data', (d) => {
                out += d;
                const m = /ready at (http:\/\/[^\s]+)\/v1/.exec(out);
                if (m) resolve(m[1] as string);
              });
              child.once('exit', (code) => reject(new Error(`exited ${code}`)));
            }),
        ),
      );
      // A budget of 50 units a month (1 unit a request); every other window out of the way.
      const budget = 50;
      const { key } = JSON.parse(
        execFileSync(
          process.execPath,
          ['bin/launchpad.js', 'keys', 'create', '--plan', 'partner', '--scopes', '*', '--json'],
          { env },
        ).toString(),
      );
      const keyId = key.split('_')[2];
      const limits = { burstPerSecond: 1e6, unitsPerMinute: 1e6, daily: 1e6, monthly: budget };
      execFileSync(process.execPath, ['bin/launchpad.js', 'keys', 'limits', keyId, JSON.stringify(limits)], {
        env,
      });
      // No request has used the key yet, so no gateway has it cached without these limits.
      const requests = Array.from({ length: 200 }, (_, i) =>
        call({ origin: origins[i % 2] as string }, '/v1/config?chain_id=8453&include=chains', { key }),
      );
      const replies = await Promise.all(requests);
      const ok = replies.filter((r) => r.status === 200);
      const refused = replies.filter((r) => r.status === 429);
      expect(ok.length).toBe(budget);
      expect(refused.length).toBe(200 - budget);
      for (const r of refused) expect(r.json.code).toBe('rate_limit_exceeded');
      // Each admitted request saw its own place in the one shared budget.
      const remaining = ok
        .map((r) => Number(/"month";r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]))
        .sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: budget }, (_, i) => i));
      for (const r of refused) expect(r.headers.get('ratelimit')).toContain('"month";r=0');
    } finally {
      for (const c of children) c.kill('SIGTERM');
    }
  });
});
