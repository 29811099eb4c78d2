// Prometheus metrics at /metrics: behind their own bearer token, with requests, RPC calls, limiter
// decisions, idempotent replays, indexer lag and simulation failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRpc, startFakeRpc } from './support/fakeRpc.ts';
import { call, expectProblem, startGateway, type TestGateway } from './support/gateway.ts';

let rpc: FakeRpc;
let gw: TestGateway;

beforeAll(async () => {
  rpc = await startFakeRpc({ head: 42n });
  gw = await startGateway({ METRICS_TOKEN: 'sekret-metrics', RPC_URL_8453: rpc.url, HEALTH_PROBE_MS: '100' });
});
afterAll(async () => {
  await gw?.close();
  await rpc?.close();
});

const scrape = (token?: string) =>
  call(gw, '/metrics', { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /metrics', () => {
  it('needs the metrics bearer token', async () => {
    expectProblem(await scrape(), 401, 'invalid_api_key');
    expectProblem(await scrape('wrong'), 401, 'invalid_api_key');
    const off = await startGateway();
    try {
      expectProblem(await call(off, '/metrics'), 404, 'not_found'); // no token set: no metrics
    } finally {
      await off.close();
    }
  });

  it('counts requests by route and status, RPC calls by chain and method, limiter decisions and replays', async () => {
    const key = await gw.createKey();
    await call(gw, '/v1/health');
    await call(gw, '/v1/config?chain_id=8453&include=chains', { key });
    const claim = {
      chain_id: 8453,
      caller: '0x00000000000000000000000000000000000000c1',
      claims: [
        {
          recipient: '0x00000000000000000000000000000000000000c1',
          fee_escrow: '0x00000000000000000000000000000000000000e5',
          currency: '0x0000000000000000000000000000000000000000',
          mode: 'to_recipient',
        },
      ],
    };
    const headers = { 'idempotency-key': 'metrics-replay-1' };
    await call(gw, '/v1/claims/fees/prepare', { key, method: 'POST', body: claim, headers });
    await call(gw, '/v1/claims/fees/prepare', { key, method: 'POST', body: claim, headers });
    await expect.poll(() => rpc.requests).toBeGreaterThan(0);
    const r = await scrape('sekret-metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    const text = r.body;
    expect(text).toMatch(
      /launchpad_http_request_duration_seconds_count\{route="\/v1\/health",method="GET",status="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /launchpad_http_request_duration_seconds_count\{route="\/v1\/claims\/fees\/prepare",method="POST",status="422"\} 2/,
    );
    expect(text).toMatch(
      /launchpad_rpc_duration_seconds_count\{chain="8453",method="eth_blockNumber",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(/launchpad_limiter_decisions_total\{decision="admitted",policy="all"\} [1-9]/);
    expect(text).toMatch(/launchpad_idempotent_replays_total\{operation="fee_claim_prepare"\} 1/);
    expect(text).toContain('# HELP launchpad_indexer_head_lag_blocks');
    expect(text).toContain('# HELP launchpad_simulation_failures_total');
    for (const name of [
      'launchpad_webhook_deliveries_total',
      'launchpad_webhook_backlog_age_seconds',
      'launchpad_event_streams',
      'launchpad_events_sent_total',
      'launchpad_event_streams_ended_total',
      'launchpad_db_connections_opened_total',
    ])
      expect(text).toContain(`# HELP ${name} `);
    expect(text).not.toContain('sekret-metrics');
  });
});
