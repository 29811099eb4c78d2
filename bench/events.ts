// The event stream (GET /v1/events) on PostgreSQL, as it runs in production: the indexer in this process,
// the stream served by a gateway process woken by NOTIFY. Measured on one clock (this process): from
// the indexer's commit of a trade to its arrival at the client, for one stream and for 2,000 streams of
// one gateway with each event fanned out to all (and the gateway's RSS growth). Baseline, same run and
// measured alike: a bare relay process that LISTENs and writes each notification as an SSE event
// (bench/sseRelay.ts), the least any push over PostgreSQL costs.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import pg from 'pg';
import { quantile, waitFor, withPushRig } from './pushRig.ts';
import { startServer, target } from './support.ts';

const SINGLE_TRADES = Number(process.env.BENCH_EVENT_TRADES ?? 200);
const FANOUT = Number(process.env.BENCH_EVENT_STREAMS ?? 2000);
const FANOUT_EVENTS = 5;

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** One SSE client on node:http: calls `onTrade(tx, atMs)` for each trade event as its bytes arrive. */
function stream(origin: string, key: string, onTrade: (tx: string, atMs: number) => void) {
  return new Promise<{ close(): void }>((resolve, reject) => {
    const req = request(`${origin}/v1/events?chain_id=8453&types=trade`, {
      headers: { 'x-api-key': key },
      agent: false,
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /v1/events answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('retry:')) resolve({ close: () => req.destroy() });
          const tx = /"transaction_hash":"(0x[0-9a-f]{64})"/.exec(block)?.[1];
          if (/^event: trade$/m.test(block) && tx) onTrade(tx, at);
        }
      });
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
  });
}

export async function benchEvents() {
  await withPushRig({}, async ({ clusterUrl, gateway, key, committed, swap }) => {
    const stops: (() => Promise<unknown>)[] = [];
    try {
      // Baseline: a bare relay process (LISTEN, then one SSE write per notification to every client),
      // measured the same way: from a commit that notifies to the client.
      const relay = await startServer(['bin/run-ts.js', 'bench/sseRelay.ts'], { DATABASE_URL: clusterUrl });
      stops.push(() => relay.stop());
      const notifier = new pg.Client({ connectionString: clusterUrl });
      await notifier.connect();
      stops.push(() => notifier.end());
      const relayFire = async () => {
        const tx = `0x${randomBytes(32).toString('hex')}`;
        await notifier.query('begin');
        await notifier.query("select pg_notify('bench_relay', $1)", [tx]);
        await notifier.query('commit');
        return { tx, at: performance.now() };
      };
      const gatewayFire = async () => {
        const tx = await swap();
        await waitFor('the trade commit', () => committed.has(tx));
        return { tx, at: committed.get(tx) as number };
      };

      /** Commit-to-client times of `events` events sent one at a time to `streams` clients of `origin`. */
      const measure = async (origin: string, streams: number, events: number, fire: typeof relayFire) => {
        const seen = new Map<string, number[]>();
        const clients: { close(): void }[] = [];
        for (let i = 0; i < streams; i += 100)
          clients.push(
            ...(await Promise.all(
              Array.from({ length: Math.min(100, streams - i) }, () =>
                stream(origin, key, (tx, at) => {
                  const list = seen.get(tx) ?? [];
                  list.push(at);
                  seen.set(tx, list);
                }),
              ),
            )),
          );
        const times: number[] = [];
        for (let e = 0; e < events; e++) {
          const { tx, at } = await fire();
          await waitFor('the event on every stream', () => (seen.get(tx)?.length ?? 0) >= streams);
          for (const t of seen.get(tx) as number[]) times.push(t - at);
        }
        return { times, close: () => clients.forEach((c) => c.close()) };
      };

      const floorOne = await measure(relay.url, 1, SINGLE_TRADES, relayFire);
      floorOne.close();
      const single = await measure(gateway.url, 1, SINGLE_TRADES, gatewayFire);
      single.close();
      const floorFan = await measure(relay.url, FANOUT, FANOUT_EVENTS, relayFire);
      floorFan.close();
      await new Promise((r) => setTimeout(r, 500));
      const rssBefore = rssMb(gateway.pid);
      const fanned = await measure(gateway.url, FANOUT, FANOUT_EVENTS, gatewayFire);
      const rssAfter = rssMb(gateway.pid);
      fanned.close();

      console.log(`\n## Event stream (PostgreSQL; indexer in this process, stream from a gateway process)`);
      console.log('| measure | p50 ms | p99 ms | p50 ratio to baseline | p99 ratio to baseline |');
      console.log('|---|---:|---:|---:|---:|');
      const row = (name: string, v: number[], base?: number[]) =>
        console.log(
          `| ${name} | ${quantile(v, 0.5).toFixed(2)} | ${quantile(v, 0.99).toFixed(2)} | ${base ? (quantile(v, 0.5) / quantile(base, 0.5)).toFixed(1) : '1.0'} | ${base ? (quantile(v, 0.99) / quantile(base, 0.99)).toFixed(1) : '1.0'} |`,
        );
      row(`baseline: bare NOTIFY → SSE relay, 1 stream (${SINGLE_TRADES} events)`, floorOne.times);
      row(`gateway, 1 stream (${SINGLE_TRADES} trades)`, single.times, floorOne.times);
      row(`baseline: bare relay, ${FANOUT} streams (${FANOUT_EVENTS} events)`, floorFan.times);
      row(
        `gateway, ${FANOUT} streams (${FANOUT_EVENTS} trades, ${fanned.times.length} deliveries)`,
        fanned.times,
        floorFan.times,
      );
      console.log(
        `gateway RSS: ${rssBefore.toFixed(0)} MB before the ${FANOUT} streams, ${rssAfter.toFixed(0)} MB with them open after ${FANOUT_EVENTS} events`,
      );
      const p50 = quantile(single.times, 0.5);
      const p99 = quantile(single.times, 0.99);
      target('event delivery p50 ≤ 250 ms (commit → client)', `${p50.toFixed(1)} ms`, p50 <= 250);
      target('event delivery p99 ≤ 1 s (commit → client)', `${p99.toFixed(1)} ms`, p99 <= 1000);
      const fanP99 = quantile(fanned.times, 0.99);
      target(`${FANOUT} streams, one event to all: p99 ≤ 1 s`, `${fanP99.toFixed(1)} ms`, fanP99 <= 1000);
      const growth = rssAfter - rssBefore;
      target(`${FANOUT} streams: gateway RSS growth ≤ 200 MB`, `${growth.toFixed(0)} MB`, growth <= 200);
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => {});
    }
  });
}
