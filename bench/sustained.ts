// Sustained load and replicas (issue 21):
// - memory per request: RSS sampled every second while 50 connections load the keyed route for
//   BENCH_SUSTAINED_S (60) seconds; the slope of a least-squares line over the run after a 10 s warm-up,
//   next to the bare fastify hello under the same load (the baseline of the same run);
// - the same keyed route through two replicas sharing one Redis (limits counted once for both), against
//   one replica with the in-process limiter, and a check that the shared day counter saw every request.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createBenchKey, median, type Server, startServer, target } from './support.ts';

const SUSTAINED_S = Number(process.env.BENCH_SUSTAINED_S ?? 60);
const WARMUP_S = 10;
const CONNECTIONS = 50;
const CONFIG_PATH = '/v1/config?chain_id=8453&include=chains';

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const num = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

interface Sustained {
  name: string;
  rps: number;
  startRss: number;
  /** Bytes per second of the fitted line after the warm-up. */
  bytesPerS: number;
  bytesPerRequest: number;
  /** Fitted growth over the measured part, as a share of the RSS at its start. */
  growth: number;
  errors: number;
}

async function sustain(name: string, server: Server, url: string, headers: Record<string, string>) {
  const samples: [number, number][] = [];
  const started = Date.now();
  const timer = setInterval(() => samples.push([(Date.now() - started) / 1000, rssBytes(server.pid)]), 1000);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: SUSTAINED_S });
  clearInterval(timer);
  const measured = samples.filter(([t]) => t >= WARMUP_S);
  const bytesPerS = slope(measured);
  const startRss = measured[0]?.[1] ?? 0;
  const span = (measured.at(-1)?.[0] ?? 0) - (measured[0]?.[0] ?? 0);
  return {
    name,
    rps: r.requests.average,
    startRss,
    bytesPerS,
    bytesPerRequest: r.requests.average > 0 ? bytesPerS / r.requests.average : 0,
    growth: startRss > 0 ? (bytesPerS * span) / startRss : 0,
    errors: r.errors + r.timeouts + r.non2xx,
  } satisfies Sustained;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => {}); // refused while it starts
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch {
      if (i > 100) throw new Error('redis-server did not start (apt-get install redis-server)');
      client.disconnect();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  client.disconnect();
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Loads several URLs at once (connections split evenly); total requests/s and requests. */
async function loadAll(urls: string[], headers: Record<string, string>, durationS: number) {
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({ url, headers, connections: Math.floor(CONNECTIONS / urls.length), duration: durationS }),
    ),
  );
  return {
    rps: runs.reduce((s, r) => s + r.requests.average, 0),
    total: runs.reduce((s, r) => s + r.requests.total, 0),
    errors: runs.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0),
  };
}

export async function benchSustained() {
  const root = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
  const envOf = (dir: string, extra: Record<string, string> = {}) => ({
    LAUNCHPAD_DATA_DIR: dir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DEVNET: 'off',
    IPFS_NETWORK: 'off',
    ...extra,
  });
  const dirA = join(root, 'a');
  const dirB = join(root, 'b');
  const dirC = join(root, 'c');
  for (const dir of [dirA, dirB, dirC]) mkdirSync(dir);
  const key = createBenchKey(envOf(dirA), dirA);
  // The replicas get the same key: copies of A's database (they share only Redis here; one data dir
  // holds one gateway).
  for (const dir of [dirB, dirC]) copyFileSync(join(dirA, 'launchpad.sqlite'), join(dir, 'launchpad.sqlite'));
  const headers = { 'x-api-key': key };
  const stops: (() => Promise<void>)[] = [];
  try {
    // 1. Memory per request under sustained load, next to the ceiling.
    const hello = await startServer(['bin/run-ts.js', 'bench/helloServer.ts']);
    stops.push(() => hello.stop());
    const gateway = await startServer(['bin/launchpad.js', 'start'], envOf(dirA));
    stops.push(() => gateway.stop());
    const ceiling = await sustain('bare fastify hello (baseline)', hello, `${hello.url}/hello`, {});
    const keyed = await sustain(
      `GET ${CONFIG_PATH} (keyed)`,
      gateway,
      `${gateway.url}${CONFIG_PATH}`,
      headers,
    );
    console.log(
      `\n## Memory under sustained load (${CONNECTIONS} connections, ${SUSTAINED_S} s, slope after ${WARMUP_S} s)`,
    );
    console.log(
      '| route | requests/s | RSS at start MB | slope KB/s | bytes/request | growth over the run | errors |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const s of [ceiling, keyed]) {
      console.log(
        `| ${s.name} | ${s.rps.toFixed(0)} | ${(s.startRss / 2 ** 20).toFixed(1)} | ${(s.bytesPerS / 1024).toFixed(1)} | ${s.bytesPerRequest.toFixed(2)} | ${(s.growth * 100).toFixed(2)} % | ${s.errors} |`,
      );
    }
    // Flat: the fitted line grows by less than 2 % of the RSS over the measured run (a leak of even a
    // few bytes per request at this rate would exceed it), and at most the baseline's growth + 2 points.
    const flat = keyed.growth < 0.02 && keyed.growth <= ceiling.growth + 0.02;
    target(
      `RSS slope over ${SUSTAINED_S} s at ${CONNECTIONS} connections is flat (growth < 2 % of RSS)`,
      `${(keyed.growth * 100).toFixed(2)} % (${keyed.bytesPerRequest.toFixed(2)} B/request; baseline ${(ceiling.growth * 100).toFixed(2)} %)`,
      flat,
    );
    await gateway.stop();
    await hello.stop();
    stops.length = 0;

    // 2. Two replicas sharing one Redis, against one replica with the in-process limiter.
    const redis = await startRedis();
    stops.push(() => redis.stop());
    const single = await startServer(['bin/launchpad.js', 'start'], envOf(dirA));
    stops.push(() => single.stop());
    const rounds: {
      one: number;
      two: number;
      errors: number;
      counted: boolean;
      charged: number;
      total: number;
    }[] = [];
    const a = await startServer(['bin/launchpad.js', 'start'], envOf(dirB, { REDIS_URL: redis.url }));
    stops.push(() => a.stop());
    const b = await startServer(['bin/launchpad.js', 'start'], envOf(dirC, { REDIS_URL: redis.url }));
    stops.push(() => b.stop());
    const client = new Redis(redis.url);
    try {
      for (let i = 0; i < 3; i++) {
        const one = await loadAll([`${single.url}${CONFIG_PATH}`], headers, 4);
        await client.flushall();
        const two = await loadAll([`${a.url}${CONFIG_PATH}`, `${b.url}${CONFIG_PATH}`], headers, 4);
        // Every request of both replicas was charged to one shared day counter.
        // (Requests still in flight when the load stops are charged but not counted as completed.)
        const dayKeys = await client.keys('lp:c:day:*');
        const charged = dayKeys.length === 1 ? Number(await client.get(dayKeys[0] as string)) : -1;
        const counted = charged >= two.total && charged <= two.total + CONNECTIONS;
        rounds.push({
          one: one.rps,
          two: two.rps,
          errors: one.errors + two.errors,
          counted,
          charged,
          total: two.total,
        });
      }
    } finally {
      client.disconnect();
    }
    console.log(`\n## Two replicas sharing Redis (${CONNECTIONS} connections in all, 4 s rounds)`);
    console.log(
      '| round | one replica, in-process limiter req/s | two replicas, shared Redis req/s | ratio | errors | completed | charged in Redis |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    rounds.forEach((r, i) => {
      console.log(
        `| ${i + 1} | ${r.one.toFixed(0)} | ${r.two.toFixed(0)} | ${(r.two / r.one).toFixed(2)} | ${r.errors} | ${r.total} | ${r.charged} |`,
      );
    });
    const ratio = median(rounds.map((r) => r.two / r.one));
    target(
      'keyed route through two replicas sharing Redis: no errors, one shared count (ratio to one replica)',
      ratio.toFixed(2),
      rounds.every((r) => r.errors === 0 && r.counted),
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}
