// The read load of the index bench, in its own process (the bench's own work, a market refresh, must
// not slow its clients, nor they it), driven by autocannon: a light client, so that on a small machine
// the server's time is measured rather than the client's. `connections` connections each take the
// paths in turn; every response's time is kept per path. Runs for `seconds`, or until SIGTERM when
// `seconds` is 0, then prints [{ p50, p99, n, failed }] (ms, over the 200 answers; `failed`: the
// others), one per path, as JSON.
import autocannon from 'autocannon';

interface Options {
  origin: string;
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

const opts = JSON.parse(process.argv[2] as string) as Options;
const requests = opts.paths.map((path) => ({ method: 'GET' as const, path }));
const base = { url: opts.origin, headers: opts.headers, connections: opts.connections, requests };
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

let stopped = false;
let stop: () => void = () => void (stopped = true);
process.on('SIGTERM', () => stop());

// Warm: the server's JIT and caches in their steady state before anything is kept.
await autocannon({ ...base, amount: 20 * opts.connections * opts.paths.length });

const times: number[][] = opts.paths.map(() => []);
const failed: number[] = opts.paths.map(() => 0);
/** Responses each connection had: its requests take the paths in turn, answered in order. */
const answered = new Map<object, number>();
await new Promise<void>((resolve, reject) => {
  const duration = opts.seconds > 0 ? opts.seconds : 24 * 3600;
  const run = autocannon({ ...base, duration }, (err) => (err ? reject(err) : resolve()));
  run.on('response', (client: object, status: number, _bytes: number, ms: number) => {
    const i = answered.get(client) ?? 0;
    answered.set(client, i + 1);
    const path = i % opts.paths.length;
    if (status === 200) times[path]?.push(ms);
    else failed[path] = (failed[path] as number) + 1;
  });
  stop = () => run.stop();
  if (stopped) run.stop();
});
console.log(
  JSON.stringify(
    times.map((t, i) => {
      t.sort((a, b) => a - b);
      return { p50: pct(t, 50), p99: pct(t, 99), n: t.length, failed: failed[i] };
    }),
  ),
);
