// The OpenAPI document: every spec route, every error, the security scheme, generated from the routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, ERRORS } from '../src/errors.ts';
import { call, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is inspected field by field
let doc: any;

beforeAll(async () => {
  gw = await startGateway();
  const r = await call(gw, '/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json;
});
afterAll(() => gw.close());

// Routes the spec names with method and path, plus the operations it names in the units table.
const SPEC_ROUTES = [
  'get /v1/config',
  'get /v1/health',
  'get /v1/tokens',
  'get /v1/tokens/search',
  'get /v1/creators/{address}/tokens',
  'get /v1/tokens/{chain_id}/{token_address}',
  'get /v1/tokens/{chain_id}/{token_address}/trades',
  'get /v1/tokens/{chain_id}/{token_address}/announcements',
  'get /v1/tokens/{chain_id}/{token_address}/holders',
  'get /v1/wallets/{address}',
  'get /v1/wallets/{address}/activity',
  'get /v1/wallets/{address}/fee-claims',
  'get /v1/transactions/{chain_id}/{tx_hash}',
  'post /v1/swaps/quote',
  'post /v1/swaps/prepare',
  'post /v1/launches/prepare',
  'post /v1/claims/vesting/prepare',
  'post /v1/claims/fees/prepare',
  'post /v1/tokens/{chain_id}/{token_address}/metadata/document/prepare',
  'post /v1/tokens/{chain_id}/{token_address}/metadata/onchain/prepare',
  'post /v1/tokens/{chain_id}/{token_address}/announcements/prepare',
];

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1 and lists every route of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    const present = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((method) => `${method} ${path}`),
    );
    for (const route of SPEC_ROUTES) expect(present).toContain(route);
  });

  it('carries the one error table, all 37 codes', () => {
    expect(ERROR_CODES).toHaveLength(37);
    expect(doc['x-lp-errors']).toHaveLength(37);
    for (const entry of doc['x-lp-errors']) {
      const spec = ERRORS[entry.code as keyof typeof ERRORS];
      expect(entry).toMatchObject({ status: spec.status, title: spec.title, action: spec.action });
    }
    expect(doc.components.schemas.Problem.properties.code.enum).toEqual(ERROR_CODES);
    expect(doc.components.schemas.Problem.required).toEqual([
      'type',
      'title',
      'status',
      'code',
      'detail',
      'action',
      'instance',
      'request_id',
    ]);
  });

  it('documents the key scheme, each route scope and every problem response', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    // Every scope is listed, the event stream's too.
    expect(doc['x-lp-scopes']).toContain('events:read');
    expect(doc.components.securitySchemes.ApiKey.description).toContain('events:read');
    const config = doc.paths['/v1/config'].get;
    expect(config.security).toEqual([{ ApiKey: [] }]);
    expect(config['x-lp-scope']).toBe('config:read');
    // The event stream: text/event-stream, its data schema, Last-Event-ID, its scope.
    const events = doc.paths['/v1/events'].get;
    expect(events['x-lp-scope']).toBe('events:read');
    expect(events.responses['200'].content['text/event-stream']['x-lp-event-data']).toEqual({
      $ref: '#/components/schemas/EventData',
    });
    expect(
      doc.components.schemas.EventData.properties.type.anyOf.map((t: { enum: string[] }) => t.enum[0]),
    ).toEqual(['launch', 'trade', 'announcement', 'fee_credit', 'metadata']);
    expect(events.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['chain_id', 'types', 'token_address', 'confirmations', 'Last-Event-ID']),
    );
    for (const status of [
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '422',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]) {
      expect(config.responses[status].content['application/problem+json'].schema).toEqual({
        $ref: '#/components/schemas/Problem',
      });
    }
    expect(config.responses['429'].description).toContain('rate_limit_exceeded');
    expect(doc.paths['/v1/health'].get.security).toEqual([]);
    expect(doc.paths['/v1/health'].get.responses['401']).toBeUndefined();
  });

  it('describes the config query and the envelope from the route schemas', () => {
    const params = doc.paths['/v1/config'].get.parameters;
    const byName = Object.fromEntries(params.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual([
      'active_only',
      'chain_id',
      'include',
      'launch_product',
      'market',
    ]);
    expect(byName.chain_id.required).toBe(true);
    expect(byName.chain_id.schema.enum).toEqual([8453, 4663, 143, 5042]);
    expect(byName.market.schema.default).toBe('all');
    // Parameters with a default are optional for the caller.
    for (const name of ['market', 'launch_product', 'include', 'active_only'])
      expect(byName[name].required, name).toBe(false);
    const ok = doc.paths['/v1/config'].get.responses['200'].content['application/json'].schema;
    expect(ok.required).toEqual(['data', 'meta']);
  });

  it('marks operations this version does not serve yet, and records its decisions', () => {
    // Every spec route is served now: nothing is marked planned.
    expect(
      Object.values(doc.paths)
        .flatMap((p) => Object.values(p as object))
        .filter((op) => (op as Record<string, unknown>)['x-lp-availability'] === 'planned'),
    ).toEqual([]);
    expect(
      doc.paths['/v1/tokens/{chain_id}/{token_address}/holders'].get['x-lp-availability'],
    ).toBeUndefined();
    expect(doc.paths['/v1/tokens'].get['x-lp-availability']).toBeUndefined();
    for (const served of [
      '/v1/launches/prepare',
      '/v1/swaps/quote',
      '/v1/swaps/prepare',
      '/v1/claims/fees/prepare',
    ]) {
      expect(doc.paths[served].post['x-lp-availability']).toBeUndefined();
      expect(doc.paths[served].post.requestBody).toBeDefined();
    }
    expect(doc.paths['/v1/config'].get['x-lp-availability']).toBeUndefined();
    expect(doc['x-lp-plan-vocabulary'].issue_codes.insufficient_balance.severity).toBe('blocking');
    expect(doc['x-lp-revert-codes'].StaleConfig).toBe('stale_plan');
    expect(doc.paths['/v1/claims/fees/prepare'].post.requestBody).toBeDefined();
    expect(doc['x-lp-route-replacements'].length).toBe(9);
    expect(doc['x-lp-decisions'].every((d: object) => 'rationale' in d)).toBe(true);
  });
});

describe('limits in the OpenAPI document', () => {
  it('publishes the units table, plans, ceilings and the rate headers', () => {
    expect(doc['x-lp-units'].launch_prepare).toEqual({ base: 20 });
    expect(doc['x-lp-units'].holder_snapshot).toEqual({ base: 10, perRows: 50 });
    expect(doc['x-lp-plans'].developer).toEqual({
      unitsPerMinute: 300,
      burstPerSecond: 20,
      daily: 25000,
      monthly: 500000,
      maxPage: 100,
      streams: 5,
      webhooks: 5,
    });
    expect(doc['x-lp-ceilings'].counters.map((c: { name: string }) => c.name)).toContain(
      'swap-quote-wallet-minute',
    );
    expect(doc.components.headers['RateLimit-Policy'].description).toContain('lp-unit="units"');
    const ok = doc.paths['/v1/config'].get.responses['200'];
    expect(ok.headers.RateLimit).toEqual({ $ref: '#/components/headers/RateLimit' });
    expect(
      doc.paths['/v1/launches/prepare'].post.responses['200'].headers['Idempotent-Replayed'],
    ).toBeDefined();
  });
});
