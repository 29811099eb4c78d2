// GET /v1/health over real HTTP, with real JSON-RPC endpoints on loopback.
import { afterAll, describe, expect, it } from 'vitest';
import { deadUrl, type FakeRpc, startFakeRpc } from './support/fakeRpc.ts';
import { call, expectProblem, startGateway } from './support/gateway.ts';

const rpcs: FakeRpc[] = [];
afterAll(async () => {
  for (const r of rpcs) await r.close();
});

describe('GET /v1/health', () => {
  it('needs no key, and reports database, limiter and every chain', async () => {
    const gw = await startGateway();
    try {
      const r = await call(gw, '/v1/health');
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({
        status: 'ok',
        database: { status: 'ok', kind: 'sqlite' },
        limiter: { status: 'ok', kind: 'memory' },
      });
      expect(r.json.data.chains.map((c: { chain_id: number; rpc: string }) => [c.chain_id, c.rpc])).toEqual([
        [8453, 'not_configured'],
        [4663, 'not_configured'],
        [143, 'not_configured'],
        [5042, 'not_configured'],
      ]);
      expect(r.json.meta.request_id).toBe(r.headers.get('x-request-id'));
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Date.parse(r.json.meta.generated_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(r.json.meta.warnings).toEqual([]);
      // The report is built once per state and reused: each answer still carries its own request id.
      const ids = await Promise.all(
        ['caller-id.0001', 'caller-id.0002', undefined].map(async (id) => {
          const s = await call(gw, '/v1/health', id ? { headers: { 'x-request-id': id } } : {});
          expect(s.json.data).toEqual(r.json.data);
          return [s.json.meta.request_id, s.headers.get('x-request-id')];
        }),
      );
      expect(ids.slice(0, 2)).toEqual([
        ['caller-id.0001', 'caller-id.0001'],
        ['caller-id.0002', 'caller-id.0002'],
      ]);
      expect(ids[2]?.[0]).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(ids[2]?.[0]).toBe(ids[2]?.[1]);
    } finally {
      await gw.close();
    }
  });

  it('reports each RPC from its background probe: ok when one provider answers, degraded when down', async () => {
    const a = await startFakeRpc({ head: 1234n });
    const b = await startFakeRpc({ head: 1236n });
    rpcs.push(a, b);
    const dead = await deadUrl();
    const gw = await startGateway({
      RPC_URL_8453: `${a.url},${dead}`,
      RPC_URL_4663: b.url,
      RPC_URL_143: dead,
      RPC_TIMEOUT_MS: '2000',
      HEALTH_PROBE_MS: '100',
    });
    try {
      const r = await call(gw, '/v1/health');
      expect(r.status).toBe(200);
      expect(r.json.data.status).toBe('degraded');
      const chains = Object.fromEntries(r.json.data.chains.map((c: { chain_id: number }) => [c.chain_id, c]));
      expect(chains[8453]).toMatchObject({
        chain_id: 8453,
        rpc: 'ok',
        providers_ok: 1,
        providers: 2,
        head_block: '1234',
        last_error: expect.stringMatching(/.+/), // the dead provider's
      });
      expect(chains[8453].head_age_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(chains[8453].checked_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(chains[4663]).toMatchObject({
        chain_id: 4663,
        rpc: 'ok',
        providers_ok: 1,
        providers: 1,
        head_block: '1236',
        last_error: null,
      });
      expect(chains[143]).toMatchObject({ rpc: 'down', providers_ok: 0, head_block: null });
      expect(chains[5042]).toMatchObject({ rpc: 'not_configured' });
      // Health itself asks no provider: the background probe does, every HEALTH_PROBE_MS.
      const before = a.requests;
      await call(gw, '/v1/health');
      await call(gw, '/v1/health');
      expect(a.requests - before).toBeLessThanOrEqual(1);
      await expect.poll(() => a.requests, { timeout: 2000 }).toBeGreaterThan(before + 1);
    } finally {
      await gw.close();
    }
  });

  it('answers at once while a chain RPC stalls, and tells it from its probe', async () => {
    const stalled = await startFakeRpc({ head: 7n, delayMs: 10_000 });
    rpcs.push(stalled);
    const gw = await startGateway({
      RPC_URL_8453: stalled.url,
      RPC_TIMEOUT_MS: '300',
      HEALTH_PROBE_MS: '100',
    });
    try {
      await expect
        .poll(async () => (await call(gw, '/v1/health')).json.data.chains[0].last_error, { timeout: 3000 })
        .toMatch(/.+/);
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const r = await call(gw, '/v1/health');
        // Not waiting on the RPC (10 s) at all; a loaded machine may still take a moment.
        expect(performance.now() - started).toBeLessThan(2_000);
        expect(r.json.data.status).toBe('degraded');
        expect(r.json.data.chains[0]).toMatchObject({ chain_id: 8453, rpc: 'down' });
      }
    } finally {
      await gw.close();
    }
  });

  it('answers liveness (probe=live) from nothing but the process', async () => {
    const gw = await startGateway();
    await gw.database.close();
    try {
      const r = await call(gw, '/v1/health?probe=live');
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({ status: 'alive' });
    } finally {
      await gw.close();
    }
  });

  it('answers 503 when the database is down', async () => {
    const gw = await startGateway();
    await gw.database.close();
    try {
      const r = await call(gw, '/v1/health');
      const p = expectProblem(r, 503, 'temporarily_unavailable');
      expect(p.health.status).toBe('down');
      expect(p.detail).toBe('A required component is down: database');
      expect(r.headers.get('retry-after')).toBe('1');
    } finally {
      await gw.close();
    }
  });
});
