// Transport rules over real HTTP: envelope, request ids, problems, validation, config chains, deprecation,
// unknown routes, body limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '../src/launchpad/chains.ts';
import { call, expectProblem, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startGateway({ BODY_LIMIT_BYTES: '4096', DOCS_URL: 'https://docs.example.test' });
  key = await gw.createKey();
});
afterAll(() => gw.close());

const chains = '/v1/config?chain_id=8453&include=chains';

describe('envelope and request ids', () => {
  it('wraps data in {data, meta} and echoes the request id', async () => {
    const r = await call(gw, chains, { key });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const id = r.headers.get('x-request-id');
    expect(id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.json.meta).toEqual({
      request_id: id,
      generated_at: new Date(gw.clock.now()).toISOString(),
      warnings: [],
    });
  });

  it("keeps a caller's well-formed X-Request-Id and replaces a malformed one", async () => {
    const mine = await call(gw, chains, { key, headers: { 'x-request-id': 'client-trace-0001' } });
    expect(mine.headers.get('x-request-id')).toBe('client-trace-0001');
    expect(mine.json.meta.request_id).toBe('client-trace-0001');
    const bad = await call(gw, chains, { key, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('puts the configured docs URL in problem types', async () => {
    const r = await call(gw, '/v1/config?chain_id=1', { key });
    const p = expectProblem(r, 422, 'unsupported_chain');
    expect(p.type).toBe('https://docs.example.test/launchpad/api/errors-and-limits#unsupported-chain');
  });
});

describe('GET /v1/config with include=chains', () => {
  it.each(Object.values(CHAINS))('serves the static chain section of $chain_id', async (chain) => {
    const r = await call(gw, `/v1/config?chain_id=${chain.chain_id}&include=chains`, { key });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      chain: {
        chain_id: chain.chain_id,
        name: chain.name,
        native_currency: chain.native_currency,
        // A static answer does not check B20 activation; on a chain of another kind it does not apply.
        capabilities: {
          launch_token_mode: chain.launch_token_mode,
          b20_asset_status: chain.launch_token_mode === 'b20' ? 'not_checked' : 'not_applicable',
        },
      },
      supported_chain_ids: [8453, 4663, 143, 5042],
    });
    expect(r.json.data).not.toHaveProperty('as_of_block');
  });

  it('accepts every documented parameter with valid values', async () => {
    const r = await call(
      gw,
      '/v1/config?chain_id=143&include=chains&market=standard&launch_product=tax&active_only=false',
      { key },
    );
    expect(r.status).toBe(200);
    expect(r.json.data.chain.capabilities.launch_token_mode).toBe('erc20');
  });

  it('needs chain_id', async () => {
    const p = expectProblem(await call(gw, '/v1/config?include=chains', { key }), 400, 'invalid_parameter');
    expect(p.invalid_parameters).toEqual([
      { name: 'chain_id', reason: 'required', detail: 'chain_id is required' },
    ]);
  });

  it('refuses an unsupported chain with unsupported_chain', async () => {
    for (const id of ['1', '56', '196', '0']) {
      expectProblem(
        await call(gw, `/v1/config?chain_id=${id}&include=chains`, { key }),
        422,
        'unsupported_chain',
      );
    }
  });

  it('refuses a chain id that is not a number with invalid_parameter', async () => {
    const p = expectProblem(await call(gw, '/v1/config?chain_id=base', { key }), 400, 'invalid_parameter');
    expect(p.invalid_parameters[0].name).toBe('chain_id');
  });

  it('lists every unknown parameter', async () => {
    const p = expectProblem(
      await call(gw, '/v1/config?chain_id=8453&include=chains&order=desc&foo=1', { key }),
      400,
      'unknown_parameter',
    );
    expect(p.invalid_parameters.map((i: { name: string }) => i.name).sort()).toEqual(['foo', 'order']);
    expect(p.invalid_parameters.every((i: { reason: string }) => i.reason === 'unknown')).toBe(true);
  });

  it('refuses a parameter sent twice', async () => {
    const p = expectProblem(
      await call(gw, '/v1/config?chain_id=8453&include=chains&market=all&market=rwa', { key }),
      400,
      'duplicate_parameter',
    );
    expect(p.invalid_parameters).toEqual([
      { name: 'market', reason: 'duplicate', detail: 'market was sent more than once' },
    ]);
  });

  it('names the allowed values of an enum', async () => {
    const cases: [string, string, string[]][] = [
      ['market=stocks', 'market', ['standard', 'rwa', 'all']],
      ['launch_product=taxed', 'launch_product', ['non-tax', 'tax']],
      ['include=chains,pools', 'include', ['chains', 'suites', 'quotes']],
    ];
    for (const [query, name, allowed] of cases) {
      const p = expectProblem(
        await call(gw, `/v1/config?chain_id=8453&${query}`, { key }),
        400,
        'invalid_parameter',
      );
      expect(p.invalid_parameters).toHaveLength(1);
      expect(p.invalid_parameters[0]).toMatchObject({ name, reason: 'format', allowed });
    }
    const p = expectProblem(
      await call(gw, '/v1/config?chain_id=8453&active_only=maybe', { key }),
      400,
      'invalid_parameter',
    );
    expect(p.invalid_parameters[0].name).toBe('active_only');
  });

  it('answers temporarily_unavailable for live sections when the chain has no RPC', async () => {
    for (const query of [
      'chain_id=8453',
      'chain_id=8453&include=suites',
      'chain_id=5042&include=chains,quotes',
    ]) {
      const p = expectProblem(await call(gw, `/v1/config?${query}`, { key }), 503, 'temporarily_unavailable');
      expect(p.detail).toMatch(/No RPC is configured for chain (8453|5042)/);
    }
  });
});

describe('bodies', () => {
  const fee = {
    chain_id: 8453,
    caller: '0x1111111111111111111111111111111111111111',
    claims: [
      {
        recipient: '0x1111111111111111111111111111111111111111',
        fee_escrow: '0x2222222222222222222222222222222222222222',
        currency: '0x0000000000000000000000000000000000000000',
        mode: 'to_recipient',
      },
    ],
  };
  const path = '/v1/claims/fees/prepare';

  it('refuses malformed JSON, a wrong content type and an empty JSON body with invalid_request', async () => {
    expectProblem(
      await call(gw, path, {
        key,
        method: 'POST',
        rawBody: '{"chain_id":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await call(gw, path, {
        key,
        method: 'POST',
        rawBody: 'chain_id=8453',
        headers: { 'content-type': 'text/plain' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await call(gw, path, {
        key,
        method: 'POST',
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(await call(gw, path, { key, method: 'POST', body: [fee] }), 400, 'invalid_request');
  });

  it('refuses a body over the size limit with 413 invalid_request', async () => {
    const big = { ...fee, padding: 'x'.repeat(5000) };
    const p = expectProblem(await call(gw, path, { key, method: 'POST', body: big }), 413, 'invalid_request');
    expect(p.status).toBe(413);
  });

  it('lists unknown body fields at any depth with their paths', async () => {
    const body = { ...fee, extra: 1, claims: [{ ...fee.claims[0], note: 'x' }] };
    const p = expectProblem(await call(gw, path, { key, method: 'POST', body }), 400, 'unknown_parameter');
    expect(p.invalid_parameters.map((i: { name: string }) => i.name).sort()).toEqual([
      'claims[0].note',
      'extra',
    ]);
  });

  it('checks addresses, enums, item counts and types in bodies, without coercion', async () => {
    const body = {
      ...fee,
      chain_id: '8453',
      caller: '0x123',
      claims: [{ ...fee.claims[0], mode: 'sideways' }],
    };
    const p = expectProblem(await call(gw, path, { key, method: 'POST', body }), 400, 'invalid_parameter');
    const byName = Object.fromEntries(p.invalid_parameters.map((i: { name: string }) => [i.name, i]));
    expect(Object.keys(byName).sort()).toEqual(['caller', 'chain_id', 'claims[0].mode']);
    expect(byName['claims[0].mode'].allowed).toEqual(['to_recipient', 'redirect']);
    const many = { ...fee, claims: Array(11).fill(fee.claims[0]) };
    const q = expectProblem(
      await call(gw, path, { key, method: 'POST', body: many }),
      400,
      'invalid_parameter',
    );
    expect(q.invalid_parameters[0]).toMatchObject({ name: 'claims', reason: 'range' });
    expectProblem(
      await call(gw, path, { key, method: 'POST', body: { ...fee, chain_id: 1 } }),
      422,
      'unsupported_chain',
    );
  });

  it('checks a valid body against the deployments: an unknown fee escrow is unsupported_operation', async () => {
    const p = expectProblem(
      await call(gw, path, { key, method: 'POST', body: fee }),
      422,
      'unsupported_operation',
    );
    expect(p.detail).toMatch(/not the fee escrow of a suite/);
  });
});

describe('routes and versioning', () => {
  it('answers unknown routes with not_found', async () => {
    expectProblem(await call(gw, '/v1/nope', { key }), 404, 'not_found');
    expectProblem(await call(gw, '/v2/config?chain_id=8453'), 404, 'not_found');
    expectProblem(await call(gw, '/v1/config', { key, method: 'DELETE' }), 404, 'not_found');
  });

  it('answers the retired claims route with not_found and the focused endpoint', async () => {
    const p = expectProblem(
      await call(gw, '/v1/claims/prepare', { key, method: 'POST', body: { kind: 'fee' } }),
      404,
      'not_found',
    );
    expect(p.suggested_endpoint).toBe('/v1/claims/fees/prepare');
  });

  // method, legacy URL, focused route, and the query the focused route gets from the legacy one
  const legacy: [string, string, string, string?][] = [
    ['GET', '/v1/tokens?q=dog&chain_id=8453', '/v1/tokens/search', '?q=dog&chain_id=8453'],
    [
      'GET',
      '/v1/tokens?creator=0x1111111111111111111111111111111111111111',
      '/v1/creators/0x1111111111111111111111111111111111111111/tokens',
    ],
    [
      'GET',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/activity?kind=trades',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/trades',
    ],
    [
      'GET',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/activity?kind=announcements',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/announcements',
    ],
    [
      'GET',
      '/v1/wallets/0x1111111111111111111111111111111111111111/claims?kind=fee',
      '/v1/wallets/0x1111111111111111111111111111111111111111/fee-claims',
    ],
    [
      'POST',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/profile/prepare',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/document/prepare',
    ],
    [
      'POST',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/prepare',
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/metadata/onchain/prepare',
    ],
  ];

  it.each(legacy)(
    '%s %s is deprecated and answers like its focused route',
    async (method, path, focused, query) => {
      const body = method === 'POST' ? { actor: '0x1111111111111111111111111111111111111111' } : undefined;
      const r = await call(gw, path, { key, method, body });
      expect(r.headers.get('deprecation')).toBe('@1767225600');
      expect(r.headers.get('link')).toBe(
        `<https://docs.example.test/launchpad/api/migration>; rel="deprecation"; type="text/html", <${focused}>; rel="successor-version"`,
      );
      const direct = await call(gw, `${focused}${query ?? ''}`, { key, method, body });
      expect(direct.headers.get('deprecation')).toBeNull();
      expect(r.status).toBe(direct.status);
      expect(r.json.code).toBe(direct.json.code);
    },
  );

  it('answers the deprecated search form with its sort and market like the focused route, not 400', async () => {
    const r = await call(gw, '/v1/tokens?q=dog&sort=trending&market=standard', { key });
    expect(r.status, r.body).not.toBe(400);
    const direct = await call(gw, '/v1/tokens/search?q=dog&sort=trending&market=standard', { key });
    expect(r.status).toBe(direct.status);
    expect(r.headers.get('link')).toContain('</v1/tokens/search>; rel="successor-version"');
  });

  it('does not mark focused or unrelated forms as deprecated', async () => {
    const r = await call(
      gw,
      '/v1/tokens/8453/0x1111111111111111111111111111111111111111/activity?kind=holders',
      { key },
    );
    expectProblem(r, 404, 'not_found');
    expect(r.headers.get('deprecation')).toBeNull();
    expect((await call(gw, chains, { key })).headers.get('deprecation')).toBeNull();
  });

  it('serves the docs pages that problem types and deprecation links point at', async () => {
    const errors = await call(gw, '/launchpad/api/errors-and-limits');
    expect(errors.status).toBe(200);
    expect(errors.body).toContain('id="rate-limit-exceeded"');
    const migration = await call(gw, '/launchpad/api/migration');
    expect(migration.body).toContain('/v1/tokens/search');
  });
});
