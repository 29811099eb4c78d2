// Limits benchmark: the cost of one admission (µs/op) in the in-process and Redis backends, and
// requests/s of the cheapest keyed route with each backend against the same route with LIMITS=off.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.ts';
import { type LimiterBackend, MemoryBackend } from '../src/http/limits/backend.ts';
import { Limiter } from '../src/http/limits/limits.ts';
import { RedisBackend } from '../src/http/limits/redis.ts';
import type { ApiKeyRecord } from '../src/store/apiKeys.ts';
import { startRedis } from '../test/support/redis.ts';
import {
  createBenchKey,
  type Load,
  load,
  median,
  printLoads,
  ROUNDS,
  type Server,
  startServer,
  warmUp,
} from './support.ts';

// Rounds of a few seconds swing by ±30 % on a shared 2-core machine: at least 5, for a steadier median.
const LIMITS_ROUNDS = Math.max(ROUNDS, 5);

const KEY: ApiKeyRecord = {
  keyId: 'b0b0b0b0',
  secretHash: Buffer.alloc(32),
  plan: 'builder',
  scopes: new Set(['*']),
  origins: [],
  status: 'active',
  overrides: { burstPerSecond: 1e12, unitsPerMinute: 1e12, daily: 1e12, monthly: 1e12 },
  expiresAt: null,
  createdAt: new Date(0),
  lastUsedAt: null,
};

async function admissionCost(backend: LimiterBackend, n: number): Promise<number> {
  const limiter = new Limiter(backend, systemClock, `bench${Date.now()}`);
  const input = {
    key: KEY,
    operation: 'config' as const,
    units: 1,
    baseOnly: false,
    live: false,
    source: '127.0.0.1',
    params: {},
    body: {},
  };
  for (let i = 0; i < 1000; i++) await limiter.admit(input);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await limiter.admit(input);
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}

export async function benchLimits() {
  const redis = await startRedis();
  try {
    const memoryUs = await admissionCost(new MemoryBackend(), 50_000);
    const redisBackend = await RedisBackend.connect(redis.url);
    const redisUs = await admissionCost(redisBackend, 5_000);
    await redisBackend.close();
    console.log('\n## Admission cost (one keyed request: 4 key windows, sequential calls)');
    console.log('| backend | µs/op |');
    console.log('|---|---:|');
    console.log(`| in-process | ${memoryUs.toFixed(2)} |`);
    console.log(`| Redis (Lua, loopback) | ${redisUs.toFixed(1)} |`);

    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
    const base = { PORT: '0', LOG_LEVEL: 'warn', DEVNET: 'off', IPFS_NETWORK: 'off' };
    const key = createBenchKey({ ...base, LAUNCHPAD_DATA_DIR: dataDir }, dataDir);
    // One gateway per data dir: each gets its own copy, holding the same key.
    const variants = { off: { LIMITS: 'off' }, memory: {}, redis: { REDIS_URL: redis.url } };
    const dirs: string[] = [dataDir];
    const servers = {} as Record<'off' | 'memory' | 'redis', Server>;
    const path = '/v1/config?chain_id=8453&include=chains';
    const rounds: Record<'off' | 'memory' | 'redis', Load>[] = [];
    try {
      for (const [name, env] of Object.entries(variants) as ['off' | 'memory' | 'redis', object][]) {
        const dir = `${dataDir}-${name}`;
        cpSync(dataDir, dir, { recursive: true });
        dirs.push(dir);
        servers[name] = await startServer(['bin/launchpad.js', 'start'], {
          ...base,
          ...env,
          LAUNCHPAD_DATA_DIR: dir,
        });
      }
      // Each server warmed up as in the transport benchmark (JIT and caches steady), then interleaved rounds.
      for (const s of Object.values(servers)) await warmUp(`${s.url}${path}`, { 'x-api-key': key });
      for (let i = 0; i < LIMITS_ROUNDS; i++) {
        const round = {} as Record<'off' | 'memory' | 'redis', Load>;
        for (const name of ['off', 'memory', 'redis'] as const) {
          round[name] = await load(
            `${path} (limits ${name})`,
            `${servers[name].url}${path}`,
            { 'x-api-key': key },
            servers[name],
          );
        }
        rounds.push(round);
      }
    } finally {
      for (const s of Object.values(servers)) await s.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
    rounds.forEach((r, i) => printLoads(`Limits, round ${i + 1}`, [r.off, r.memory, r.redis], r.off));
    const mem = median(rounds.map((r) => r.memory.rps / r.off.rps));
    const red = median(rounds.map((r) => r.redis.rps / r.off.rps));
    const memCpu = median(rounds.map((r) => r.off.cpuUs / r.memory.cpuUs));
    const redCpu = median(rounds.map((r) => r.off.cpuUs / r.redis.cpuUs));
    console.log(
      `\nmedian over ${LIMITS_ROUNDS} rounds, by server CPU per request: in-process ${memCpu.toFixed(2)}, Redis ${redCpu.toFixed(2)} of LIMITS=off`,
    );
    console.log(`median over ${LIMITS_ROUNDS} rounds, requests/s as a ratio to LIMITS=off:`);
    console.log(`in-process limits = ${mem.toFixed(2)} (target >= 0.90): ${mem >= 0.9 ? 'met' : 'NOT met'}`);
    console.log(`Redis limits = ${red.toFixed(2)} (target >= 0.60): ${red >= 0.6 ? 'met' : 'NOT met'}`);
  } finally {
    await redis.stop();
  }
}
