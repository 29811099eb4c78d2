// The read load of the index bench, in its own process (the bench's own work, a market refresh, must
// not slow its clients, nor they it). `connections` clients each take the paths in turn, one request in
// flight each, in one of two ways:
// - `rate` > 0 (requests a second, each client): at a fixed offered load (open loop, as wrk2 does). A
//   client sends each request at its scheduled time, and a wait for the answer before it counts in its
//   time (bench/paced.ts).
// - `rate` 0: as fast as answers come (closed loop, driven by autocannon, a light client): the figure is
//   the throughput (answers a second); its latencies are the queue the clients themselves make.
// Runs for `seconds` outside pauses, or until SIGTERM when `seconds` is 0, then prints [{ p50, p99, n,
// failed, perS, paused, stalledMs }] (ms, over the 200 answers; `failed`: the others; `perS`: answers a
// second; `paused`: answers not counted; `stalledMs`: the longest this process's own event loop was
// held up while counting, which every answer then in flight counts too), one per path, as JSON, on the
// line after `ready`.
// Pauses: from SIGUSR1 to SIGUSR2 the bench's write load is not ingesting but resetting its rows between
// passes; a request sent or answered in a pause is sent as any other but not counted, and a pause's time
// is not in `perS`.
import autocannon from 'autocannon';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { paced } from './paced.ts';
import { Pauses } from './pauses.ts';

interface Options {
  origin: string;
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  rate: number;
}

const opts = JSON.parse(process.argv[2] as string) as Options;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

const pauses = new Pauses();
process.on('SIGUSR1', () => pauses.begin());
process.on('SIGUSR2', () => pauses.end());
console.log('ready');

let stopped = false;
let stop: () => void = () => void (stopped = true);
process.on('SIGTERM', () => stop());

const times: number[][] = opts.paths.map(() => []);
const failed: number[] = opts.paths.map(() => 0);
const paused: number[] = opts.paths.map(() => 0);
/** When the kept requests began (after the warm-up). */
let from = 0;
/** Stops the run after `seconds` outside pauses (or ten times that in all, should a pause not end). */
let timer: NodeJS.Timeout | undefined;
const stopWhenCounted = () => {
  if (opts.seconds <= 0) return;
  timer = setInterval(() => pauses.counted(from, opts.seconds) && stop(), 20);
};
/** The client's own stalls (its GC, or waiting for a core), from the first counted request. */
const loop = monitorEventLoopDelay({ resolution: 1 });
await (opts.rate > 0 ? openLoop() : closedLoop());
clearInterval(timer);
loop.disable();
const stalledMs = loop.max / 1e6;
const elapsed = (performance.now() - from - pauses.msSince(from)) / 1000;
console.log(
  JSON.stringify(
    times.map((t, i) => {
      const perS = t.length / elapsed;
      t.sort((a, b) => a - b);
      return {
        p50: pct(t, 50),
        p99: pct(t, 99),
        n: t.length,
        failed: failed[i],
        perS,
        paused: paused[i],
        stalledMs,
      };
    }),
  ),
);

/** One GET on a kept-alive connection of `agent`: its status once the whole body is read. */
function get(agent: http.Agent, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, opts.origin), { agent, headers: opts.headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Each client at `rate` requests a second, their schedules spread over one interval. */
async function openLoop() {
  const interval = 1000 / opts.rate;
  const client = async (c: number, warm: boolean) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const t0 = performance.now() + (c * interval) / opts.connections;
    const end = warm ? t0 + 20 * interval * opts.paths.length : t0 + 24 * 3600 * 1000;
    const pathOf = (k: number) => k % opts.paths.length;
    await paced(
      { rate: opts.rate, t0, end, stopped: () => stopped },
      // (A failed request, a reset connection, counts as not 200.)
      (k) => get(agent, opts.paths[pathOf(k)] as string).catch(() => 0),
      (k, ms, status) => {
        if (warm) return;
        if (pauses.overlaps(performance.now() - ms)) paused[pathOf(k)] = (paused[pathOf(k)] as number) + 1;
        else if (status === 200) times[pathOf(k)]?.push(ms);
        else failed[pathOf(k)] = (failed[pathOf(k)] as number) + 1;
      },
    );
    agent.destroy();
  };
  // Warm: the server's JIT and caches in their steady state before anything is kept.
  await Promise.all(Array.from({ length: opts.connections }, (_, c) => client(c, true)));
  from = performance.now();
  loop.enable();
  stopWhenCounted();
  await Promise.all(Array.from({ length: opts.connections }, (_, c) => client(c, false)));
}

/** autocannon's connections, each sending its next request when the last is answered. */
async function closedLoop() {
  const requests = opts.paths.map((path) => ({ method: 'GET' as const, path }));
  const base = { url: opts.origin, headers: opts.headers, connections: opts.connections, requests };
  await autocannon({ ...base, amount: 20 * opts.connections * opts.paths.length });
  from = performance.now();
  loop.enable();
  /** Responses each connection had: its requests take the paths in turn, answered in order. */
  const answered = new Map<object, number>();
  await new Promise<void>((resolve, reject) => {
    const run = autocannon({ ...base, duration: 24 * 3600 }, (err) => (err ? reject(err) : resolve()));
    run.on('response', (client: object, status: number, _bytes: number, ms: number) => {
      const i = answered.get(client) ?? 0;
      answered.set(client, i + 1);
      const path = i % opts.paths.length;
      if (pauses.overlaps(performance.now() - ms)) paused[path] = (paused[path] as number) + 1;
      else if (status === 200) times[path]?.push(ms);
      else failed[path] = (failed[path] as number) + 1;
    });
    stop = () => run.stop();
    if (stopped) run.stop();
    stopWhenCounted();
  });
}
