// The read load of the index bench, in its own process (the bench's own work, a market refresh, must
// not slow its clients, nor they it), driven by autocannon: a light client, so that on a small machine
// the server's time is measured rather than the client's. `connections` connections each take the
// paths in turn; every response's time is kept per path. Runs for `seconds`, or until SIGTERM when
// `seconds` is 0, then prints [{ p50, p99, n }] (ms), one per path, as JSON. A non-200 answer fails it.
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
const failures: number[] = [];
/** Responses each connection had: its requests take the paths in turn, answered in order. */
const answered = new Map<object, number>();
await new Promise<void>((resolve, reject) => {
  const duration = opts.seconds > 0 ? opts.seconds : 24 * 3600;
  const run = autocannon({ ...base, duration }, (err) => (err ? reject(err) : resolve()));
  run.on('response', (client: object, status: number, _bytes: number, ms: number) => {
    const i = answered.get(client) ?? 0;
    answered.set(client, i + 1);
    if (status !== 200) failures.push(status);
    times[i % opts.paths.length]?.push(ms);
  });
  stop = () => run.stop();
  if (stopped) run.stop();
});
if (failures.length > 0) {
  console.error(`${failures.length} answers were not 200 (first: ${failures[0]})`);
  process.exit(1);
}
console.log(
  JSON.stringify(
    times.map((t) => {
      t.sort((a, b) => a - b);
      return { p50: pct(t, 50), p99: pct(t, 99), n: t.length };
    }),
  ),
);
