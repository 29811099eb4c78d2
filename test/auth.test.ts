// Authentication over real HTTP (spec: Authentication): outcomes, caching windows, origins, CORS, scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEGATIVE_TTL_MS, POSITIVE_TTL_MS } from '../src/http/auth.ts';
import { hashSecret } from '../src/store/apiKeys.ts';
import { call, expectProblem, startGateway, type TestGateway, keySecret } from './support/gateway.ts';

let gw: TestGateway;
const path = '/v1/config?chain_id=8453&include=chains';

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

describe('key outcomes', () => {
  it('missing header → 401 missing_api_key', async () => {
    expectProblem(await call(gw, path), 401, 'missing_api_key');
  });

  it('malformed keys → 401 invalid_api_key', async () => {
    const good = await gw.createKey();
    for (const bad of [
      '',
      'nonsense',
      good.replace('lp_', 'o1_'),
      good.replace('_launch_', '_lunch_'),
      `${good.slice(0, 18).toUpperCase()}${good.slice(18)}`,
      'lp_launch_abcdef12_short',
    ]) {
      expectProblem(await call(gw, path, { key: bad }), 401, 'invalid_api_key');
    }
  });

  it('a known key id with the wrong secret → invalid_api_key', async () => {
    const good = await gw.createKey();
    const wrong = `${good.slice(0, -4)}${good.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const p = expectProblem(await call(gw, path, { key: wrong }), 401, 'invalid_api_key');
    expect(p.detail).not.toMatch(/revoked|expired/);
  });

  it('a valid key works, and never appears in a response', async () => {
    const key = await gw.createKey();
    const r = await call(gw, path, { key });
    expect(r.status).toBe(200);
    expect(r.body).not.toContain(keySecret(key));
    const bad = await call(gw, path, { key: `${key}x`.replace(/_[^_]+x$/, '_wrongsecretwrongsecret') });
    expect(bad.body).not.toContain(keySecret(key));
  });

  it('a revoked key stops working within 5 s (cache), and at once for a fresh lookup', async () => {
    const key = await gw.createKey();
    expect((await call(gw, path, { key })).status).toBe(200);
    await gw.keys.revoke(key.split('_')[2] as string);
    // Still inside the positive cache window: the revocation is not seen yet.
    gw.clock.advance(POSITIVE_TTL_MS - 1000);
    expect((await call(gw, path, { key })).status).toBe(200);
    gw.clock.advance(1001);
    const p = expectProblem(await call(gw, path, { key }), 401, 'invalid_api_key');
    expect(p.detail).toMatch(/revoked/);
  });

  it('an expired key → invalid_api_key', async () => {
    const key = await gw.createKey({ expiresAt: new Date(gw.clock.now() + 60_000) });
    expect((await call(gw, path, { key })).status).toBe(200);
    gw.clock.advance(60_000);
    const p = expectProblem(await call(gw, path, { key }), 401, 'invalid_api_key');
    expect(p.detail).toMatch(/expired/);
  });

  it('a key created after a failed lookup works within 2 s', async () => {
    const keyId = 'feedc0de';
    const secret = 'A-fresh-secret-value_0123456789';
    const key = `lp_launch_${keyId}_${secret}`;
    expectProblem(await call(gw, path, { key }), 401, 'invalid_api_key');
    await gw.database.db
      .insertInto('api_keys')
      .values({
        key_id: keyId,
        secret_hash: hashSecret(secret).toString('hex'),
        plan: 'developer',
        scopes: '["*"]',
        origins: '[]',
        status: 'active',
        overrides: '{}',
        expires_at: null,
        created_at: new Date(gw.clock.now()).toISOString(),
        last_used_at: null,
      })
      .execute();
    // The unknown id is cached for at most 2 s.
    expectProblem(await call(gw, path, { key }), 401, 'invalid_api_key');
    gw.clock.advance(NEGATIVE_TTL_MS);
    expect((await call(gw, path, { key })).status).toBe(200);
  });

  it('records when a key was last used', async () => {
    const key = await gw.createKey();
    const keyId = key.split('_')[2] as string;
    expect((await gw.keys.find(keyId))?.lastUsedAt).toBeNull();
    await call(gw, path, { key });
    await expect.poll(async () => (await gw.keys.find(keyId))?.lastUsedAt?.getTime()).toBe(gw.clock.now());
  });
});

describe('scopes', () => {
  it('a key without the route scope → 403 insufficient_scope naming it', async () => {
    const key = await gw.createKey({ scopes: ['tokens:read'] });
    const p = expectProblem(await call(gw, path, { key }), 403, 'insufficient_scope');
    expect(p.detail).toBe('This operation needs config:read');
  });

  it('a key created without scopes reads but cannot prepare', async () => {
    const key = await gw.createKey({ scopes: [] });
    expect((await call(gw, path, { key })).status).toBe(200);
    const p = expectProblem(
      await call(gw, '/v1/launches/prepare', { key, method: 'POST', body: {} }),
      403,
      'insufficient_scope',
    );
    expect(p.detail).toBe('This operation needs launches:prepare');
  });

  it('every planned keyed route checks its own scope before answering', async () => {
    const key = await gw.createKey({ scopes: ['config:read'] });
    const cases: [string, string, string][] = [
      ['GET', '/v1/tokens', 'tokens:read'],
      ['GET', '/v1/wallets/0x1111111111111111111111111111111111111111/fee-claims', 'wallets:read'],
      ['GET', `/v1/transactions/8453/0x${'ab'.repeat(32)}`, 'transactions:read'],
      ['POST', '/v1/swaps/quote', 'swaps:quote'],
      ['POST', '/v1/swaps/prepare', 'swaps:prepare'],
      ['POST', '/v1/claims/vesting/prepare', 'claims:prepare'],
      [
        'POST',
        '/v1/tokens/8453/0x1111111111111111111111111111111111111111/announcements/prepare',
        'announcements:prepare',
      ],
    ];
    for (const [method, url, scope] of cases) {
      const p = expectProblem(
        await call(gw, url, { key, method, body: method === 'POST' ? {} : undefined }),
        403,
        'insufficient_scope',
      );
      expect(p.detail).toBe(`This operation needs ${scope}`);
    }
  });
});

describe('browser origins and CORS', () => {
  it('a preflight succeeds without a key and only confirms transport', async () => {
    const r = await call(gw, '/v1/launches/prepare', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type, idempotency-key',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-headers')).toContain('x-api-key');
    expect(r.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a server key (no origins) refuses any request with an Origin', async () => {
    const key = await gw.createKey();
    const r = await call(gw, path, { key, headers: { origin: 'https://app.example' } });
    expectProblem(r, 403, 'origin_not_allowed');
    // The browser can still read the problem.
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('a browser key allows only its origins and exposes the gateway headers', async () => {
    const key = await gw.createKey({ origins: ['https://app.example', 'http://localhost:5173/'] });
    const ok = await call(gw, path, { key, headers: { origin: 'https://app.example' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('vary')).toContain('Origin');
    const exposed = ok.headers.get('access-control-expose-headers') ?? '';
    for (const h of ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'])
      expect(exposed).toContain(h);
    expect((await call(gw, path, { key, headers: { origin: 'http://localhost:5173' } })).status).toBe(200);
    expectProblem(
      await call(gw, path, { key, headers: { origin: 'https://evil.example' } }),
      403,
      'origin_not_allowed',
    );
    expectProblem(
      await call(gw, path, { key, headers: { origin: 'http://app.example' } }),
      403,
      'origin_not_allowed',
    );
    // Server-side calls (no Origin) with a browser key still work.
    expect((await call(gw, path, { key })).status).toBe(200);
  });

  it('checks the key before the origin, and the origin before the scope', async () => {
    const key = await gw.createKey({ scopes: ['tokens:read'], origins: ['https://app.example'] });
    expectProblem(
      await call(gw, path, { headers: { origin: 'https://evil.example' } }),
      401,
      'missing_api_key',
    );
    expectProblem(
      await call(gw, path, { key, headers: { origin: 'https://evil.example' } }),
      403,
      'origin_not_allowed',
    );
    expectProblem(
      await call(gw, path, { key, headers: { origin: 'https://app.example' } }),
      403,
      'insufficient_scope',
    );
  });
});
