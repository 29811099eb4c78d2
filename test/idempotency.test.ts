// Idempotency over real HTTP: header rules, exact replays, reuse with another body, in-progress
// requests, leases that outlive a dead request, per-key scope, 24-hour retention.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RouteConfig } from '../src/http/catalog.ts';
import { LEASE_MS, RETENTION_MS } from '../src/store/idempotency.ts';
import { call, expectProblem, freshPostgres, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
let runs = 0;
let release: (() => void) | undefined;

/** An instrumented prepare operation: counts executions, and can be held open. */
function extraRoutes(app: FastifyInstance) {
  const config: RouteConfig = { operation: 'swap_prepare', scope: 'swaps:prepare', idempotency: 'required' };
  app.post('/v1/test/prepare', { config }, async (request, reply) => {
    runs++;
    const body = request.body as { hold?: boolean; fail?: boolean; n?: number };
    if (body.hold) await new Promise<void>((r) => (release = r));
    if (body.fail)
      return reply.code(422).type('application/problem+json').send('{"code":"simulation_failed"}');
    return { data: { run: runs, n: body.n ?? null, at: request.id }, meta: { request_id: request.id } };
  });
}

const backends = [
  { name: 'sqlite', env: async (): Promise<Record<string, string>> => ({}) },
  { name: 'postgres', env: async () => ({ DATABASE_URL: await freshPostgres(inject('postgresUrl')) }) },
];

const post = (key: string, idem: string | undefined, body: unknown, path = '/v1/test/prepare') =>
  call(gw, path, {
    key,
    method: 'POST',
    body,
    headers: idem === undefined ? {} : { 'idempotency-key': idem },
  });

describe.each(backends)('Idempotency-Key on $name', ({ env }) => {
  beforeAll(async () => {
    gw = await startGateway(await env(), extraRoutes);
  });
  afterAll(() => gw.close());

  it('is required on launch and metadata-document prepare, and checked for length', async () => {
    const key = await gw.createKey();
    expectProblem(
      await call(gw, '/v1/launches/prepare', { key, method: 'POST', body: {} }),
      400,
      'missing_idempotency_key',
    );
    expectProblem(
      await call(gw, '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/document/prepare', {
        key,
        method: 'POST',
        body: {},
      }),
      400,
      'missing_idempotency_key',
    );
    // The combined legacy form needs it only for update_profile.
    const legacy = '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/prepare';
    expectProblem(
      await call(gw, legacy, { key, method: 'POST', body: { operation: 'update_profile' } }),
      400,
      'missing_idempotency_key',
    );
    expectProblem(
      await call(gw, legacy, { key, method: 'POST', body: { operation: 'update_name' } }),
      400,
      'invalid_parameter', // validated (actor missing), with no Idempotency-Key needed
    );
    for (const bad of ['x'.repeat(256), '""']) {
      expectProblem(await post(key, bad, { n: 1 }), 400, 'invalid_idempotency_key');
    }
    expect((await post(key, 'x'.repeat(255), { n: 1 })).status).toBe(200);
  });

  it('replays the completed response byte for byte, marked, and runs the handler once', async () => {
    const key = await gw.createKey();
    const before = runs;
    const first = await post(key, 'replay-1', { n: 1, nested: { b: 2, a: 1 } });
    expect(first.status).toBe(200);
    // Same body with keys in another order is the same request.
    const again = await post(key, 'replay-1', { nested: { a: 1, b: 2 }, n: 1 });
    expect(again.status).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(runs).toBe(before + 1);
  });

  it('replays errors raised while executing, with their status', async () => {
    const key = await gw.createKey();
    const first = await post(key, 'fail-1', { fail: true });
    expect(first.status).toBe(422);
    const again = await post(key, 'fail-1', { fail: true });
    expect(again.status).toBe(422);
    expect(again.body).toBe(first.body);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
  });

  it('does not store requests rejected before execution', async () => {
    const key = await gw.createKey();
    // The planned launch route validates nothing yet; a bad JSON body is rejected before execution.
    const bad = await call(gw, '/v1/test/prepare', {
      key,
      method: 'POST',
      rawBody: '{"n":',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'early-1' },
    });
    expectProblem(bad, 400, 'invalid_request');
    expect((await post(key, 'early-1', { n: 5 })).status).toBe(200);
  });

  it('refuses the same key with a different body, and prepares nothing', async () => {
    const key = await gw.createKey();
    expect((await post(key, 'reuse-1', { n: 1 })).status).toBe(200);
    const before = runs;
    expectProblem(await post(key, 'reuse-1', { n: 2 }), 422, 'idempotency_key_reused');
    // Another route is another request too.
    expectProblem(
      await post(
        key,
        'reuse-1',
        { actor: `0x${'22'.repeat(20)}`, operation: 'update_name', name: 'x' },
        `/v1/tokens/8453/0x${'11'.repeat(20)}/metadata/prepare`,
      ),
      422,
      'idempotency_key_reused',
    );
    expect(runs).toBe(before);
  });

  it('keys are per API key: another key may use the same value', async () => {
    const [a, b] = [await gw.createKey(), await gw.createKey()];
    const ra = await post(a, 'shared-1', { n: 1 });
    const rb = await post(b, 'shared-1', { n: 2 });
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.json.data.n).toBe(2);
  });

  it('runs 20 concurrent identical requests exactly once', async () => {
    const key = await gw.createKey();
    const before = runs;
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => post(key, 'burst-1', { n: 7, hold: false })),
    );
    expect(runs).toBe(before + 1);
    const ok = replies.filter((r) => r.status === 200);
    const waiting = replies.filter((r) => r.status === 409);
    expect(ok.length + waiting.length).toBe(20);
    for (const r of waiting) {
      expect(r.json.code).toBe('idempotency_in_progress');
      expect(r.headers.get('retry-after')).toBe('2');
    }
    // Every 200 is the same response.
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    const after = await post(key, 'burst-1', { n: 7, hold: false });
    expect(after.body).toBe(ok[0]?.body);
  });

  it('answers idempotency_in_progress while the first request runs', async () => {
    const key = await gw.createKey();
    const first = post(key, 'hold-1', { hold: true });
    await expect.poll(() => release !== undefined).toBe(true);
    expectProblem(await post(key, 'hold-1', { hold: true }), 409, 'idempotency_in_progress');
    release?.();
    release = undefined;
    expect((await first).status).toBe(200);
  });

  it('answers a duplicate of a running request 409 even when the ceiling would refuse a new one', async () => {
    const key = await gw.createKey();
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const wallet = '0x00000000000000000000000000000000000000f1';
    const first = post(key, 'hold-ceiling', { hold: true, wallet });
    await expect.poll(() => release !== undefined).toBe(true);
    // Spend the wallet's swap-prepare ceiling (30 a minute) with other requests.
    for (let i = 0; i < 29; i++) expect((await post(key, `fill-${i}`, { n: i, wallet })).status).toBe(200);
    expect(
      expectProblem(await post(key, 'one-more', { n: 99, wallet }), 429, 'quota_exceeded').violated_policies,
    ).toEqual(['swap-prepare-wallet-minute']);
    // The duplicate starts no new work: 409, not 429 with a minute to wait.
    expectProblem(await post(key, 'hold-ceiling', { hold: true, wallet }), 409, 'idempotency_in_progress');
    release?.();
    release = undefined;
    expect((await first).status).toBe(200);
  });

  it('a record left running by a dead request is taken over after its lease', async () => {
    const key = await gw.createKey();
    const keyId = key.split('_')[2] as string;
    // What a crash leaves behind: a running record, never completed.
    const now = gw.clock.now();
    const { fingerprint } = await import('../src/store/idempotency.ts');
    await gw.database.db
      .insertInto('idempotency_records')
      .values({
        key_id: keyId,
        idem_key: 'crash-1',
        fingerprint: fingerprint('POST', '/v1/test/prepare', {}, { n: 9 }),
        state: 'running',
        lease_until: now + LEASE_MS,
        status: null,
        content_type: null,
        body: null,
        created_at: now,
        expires_at: now + RETENTION_MS,
      })
      .execute();
    expectProblem(await post(key, 'crash-1', { n: 9 }), 409, 'idempotency_in_progress');
    gw.clock.advance(LEASE_MS);
    expect((await post(key, 'crash-1', { n: 9 })).status).toBe(200);
  });

  it('forgets records after 24 hours', async () => {
    const key = await gw.createKey();
    const first = await post(key, 'old-1', { n: 1 });
    gw.clock.advance(RETENTION_MS);
    const later = await post(key, 'old-1', { n: 2 });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body).not.toBe(first.body);
  });

  it('charges replays their weight like any admitted request', async () => {
    const key = await gw.createKey({
      overrides: { burstPerSecond: 1e6, unitsPerMinute: 1e6, daily: 1e6, monthly: 12 },
    });
    await post(key, 'meter-1', { n: 1 });
    const replay = await post(key, 'meter-1', { n: 1 });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('ratelimit')).toContain('"month";r=2'); // 12 − 5 − 5
  });
});
