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
    } finally {
      await gw.close();
    }
  });

  it('reads each RPC live: ok when one provider answers, degraded when a chain is down', async () => {
    const a = await startFakeRpc({ head: 1234n });
    const b = await startFakeRpc({ head: 1236n });
    rpcs.push(a, b);
    const dead = await deadUrl();
    const gw = await startGateway({
      RPC_URL_8453: `${a.url},${dead}`,
      RPC_URL_4663: b.url,
      RPC_URL_143: dead,
      RPC_TIMEOUT_MS: '2000',
    });
    try {
      const r = await call(gw, '/v1/health');
      expect(r.status).toBe(200);
      expect(r.json.data.status).toBe('degraded');
      const chains = Object.fromEntries(r.json.data.chains.map((c: { chain_id: number }) => [c.chain_id, c]));
      expect(chains[8453]).toEqual({
        chain_id: 8453,
        rpc: 'ok',
        providers_ok: 1,
        providers: 2,
        head_block: '1234',
      });
      expect(chains[4663]).toEqual({
        chain_id: 4663,
        rpc: 'ok',
        providers_ok: 1,
        providers: 1,
        head_block: '1236',
      });
      expect(chains[143]).toMatchObject({ rpc: 'down', providers_ok: 0, head_block: null });
      expect(chains[5042]).toMatchObject({ rpc: 'not_configured' });
      // Never from a cache: a second call asks the providers again.
      const before = a.requests;
      await call(gw, '/v1/health');
      expect(a.requests).toBe(before + 1);
    } finally {
      await gw.close();
    }
  });

  it('answers 503 when the database is down', async () => {
    const gw = await startGateway();
    await gw.database.close();
    try {
      const p = expectProblem(await call(gw, '/v1/health'), 503, 'temporarily_unavailable');
      expect(p.health.status).toBe('down');
    } finally {
      await gw.close();
    }
  });
});
