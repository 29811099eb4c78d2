// Webhook deliveries on PostgreSQL, as they run in production: the indexer in this process, the
// deliveries made by a gateway process's dispatcher, a receiver in this process answering 200 on
// 127.0.0.1. Measured on one clock: from the indexer's commit of a trade to the receipt of its delivery
// (one endpoint), and deliveries per second for a backlog spread over 20 endpoints. Baselines, same run:
// for latency a bare relay process that POSTs each notification of a commit (bench/sseRelay.ts); for
// throughput the same number of POSTs sent straight to the receiver, as many at a time.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { quantile, waitFor, withPushRig } from './pushRig.ts';
import { startServer, target } from './support.ts';

const TRADES = Number(process.env.BENCH_WEBHOOK_TRADES ?? 100);
const ENDPOINTS = 20;
const BACKLOG_TRADES = 100;

export async function benchWebhooks() {
  // The receiver: when each delivery arrived, by webhook-id and endpoint.
  const arrivals: { id: string; tx: string; at: number }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const tx = /"transaction_hash":"(0x[0-9a-f]{64})"/.exec(body)?.[1] ?? '';
      arrivals.push({ id: String(req.headers['webhook-id']), tx, at: performance.now() });
      res.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    await withPushRig({ WEBHOOK_POLL_MS: '100' }, async ({ clusterUrl, gateway, key, committed, swap }) => {
      const api = async (path: string, method: string, body?: unknown) => {
        const r = await fetch(`${gateway.url}${path}`, {
          method,
          headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const json = (await r.json()) as { data: { id: string } };
        if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
        return json.data;
      };
      // Latency: one endpoint, one trade at a time.
      const one = await api('/v1/webhooks', 'POST', { url: hookUrl, types: ['trade'], chain_id: 8453 });
      const latency: number[] = [];
      for (let i = 0; i < TRADES; i++) {
        const tx = await swap();
        await waitFor('the delivery', () => committed.has(tx) && arrivals.some((a) => a.tx === tx));
        latency.push((arrivals.find((a) => a.tx === tx)?.at as number) - (committed.get(tx) as number));
      }
      await api(`/v1/webhooks/${one.id}`, 'DELETE');

      // Its baseline: a bare relay process POSTing each notification of a commit to the same receiver.
      const relay = await startServer(['bin/run-ts.js', 'bench/sseRelay.ts'], {
        DATABASE_URL: clusterUrl,
        POST_URL: hookUrl,
      });
      const notifier = new pg.Client({ connectionString: clusterUrl });
      await notifier.connect();
      const floor: number[] = [];
      try {
        for (let i = 0; i < TRADES; i++) {
          const tx = `0x${randomBytes(32).toString('hex')}`;
          await notifier.query('begin');
          await notifier.query("select pg_notify('bench_relay', $1)", [tx]);
          await notifier.query('commit');
          const at = performance.now();
          await waitFor('the relayed POST', () => arrivals.some((a) => a.tx === tx));
          floor.push((arrivals.find((a) => a.tx === tx)?.at as number) - at);
        }
      } finally {
        await notifier.end();
        await relay.stop();
      }

      // Throughput: 20 endpoints, disabled while 100 trades happen, then enabled: 2,000 deliveries.
      const ids: string[] = [];
      for (let i = 0; i < ENDPOINTS; i++) {
        const e = await api('/v1/webhooks', 'POST', { url: hookUrl, types: ['trade'], chain_id: 8453 });
        await api(`/v1/webhooks/${e.id}`, 'PATCH', { disabled: true });
        ids.push(e.id);
      }
      const backlog: string[] = [];
      for (let i = 0; i < BACKLOG_TRADES; i++) backlog.push(await swap());
      await waitFor('the backlog committed', () => backlog.every((tx) => committed.has(tx)));
      const before = arrivals.length;
      const started = performance.now();
      await Promise.all(ids.map((id) => api(`/v1/webhooks/${id}`, 'PATCH', { disabled: false })));
      const expected = ENDPOINTS * BACKLOG_TRADES;
      for (let i = 0; i < 12_000 && arrivals.length - before < expected; i++)
        await new Promise((r) => setTimeout(r, 10));
      const seconds = (performance.now() - started) / 1000;
      const delivered = arrivals.length - before;
      const rate = delivered / seconds;

      // Baseline: the same number of POSTs, ENDPOINTS at a time, straight to the receiver.
      const sample = JSON.stringify({
        type: 'trade',
        transaction_hash: `0x${'0'.repeat(64)}`,
        pad: 'x'.repeat(900),
      });
      const post = () =>
        new Promise<void>((resolve, reject) => {
          const req = request(hookUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'webhook-id': 'base' },
          });
          req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve());
          });
          req.on('error', reject);
          req.end(sample);
        });
      const baseStart = performance.now();
      let sent = 0;
      await Promise.all(
        Array.from({ length: ENDPOINTS }, async () => {
          while (sent < expected) {
            sent++;
            await post();
          }
        }),
      );
      const baseRate = expected / ((performance.now() - baseStart) / 1000);

      console.log(`\n## Webhooks (PostgreSQL; indexer in this process, deliveries from a gateway process)`);
      console.log('| measure | value | baseline | ratio |');
      console.log('|---|---:|---:|---:|');
      console.log(
        `| commit → receipt, p50 / p99 (${TRADES} trades, 1 endpoint) | ${quantile(latency, 0.5).toFixed(1)} / ${quantile(latency, 0.99).toFixed(1)} ms | ${quantile(floor, 0.5).toFixed(2)} / ${quantile(floor, 0.99).toFixed(2)} ms bare NOTIFY → POST relay | ${(quantile(latency, 0.5) / quantile(floor, 0.5)).toFixed(1)} (p50) |`,
      );
      console.log(
        `| deliveries/s, backlog of ${expected} over ${ENDPOINTS} endpoints (${delivered} in ${seconds.toFixed(2)} s) | ${rate.toFixed(0)} | ${baseRate.toFixed(0)} bare POSTs/s | ${(rate / baseRate).toFixed(2)} |`,
      );
      const p50 = quantile(latency, 0.5);
      target('webhook delivery p50 ≤ 500 ms (commit → receipt)', `${p50.toFixed(1)} ms`, p50 <= 500);
      target(
        'webhook throughput ≥ 500 deliveries/s (local receiver)',
        `${rate.toFixed(0)}/s`,
        rate >= 500 && delivered >= expected,
      );
    });
  } finally {
    receiver.close();
  }
}
