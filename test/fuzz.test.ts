// Property-based fuzzing of every route, generated from the gateway's own OpenAPI document: valid,
// boundary and hostile values, random bytes, huge and deep bodies, bad headers. Properties: no 5xx; every
// error is problem+json with a code of the table and its status; every 200 matches the document's schema;
// memory stays bounded; the gateway stays up. A fixed seed and FUZZ_RUNS requests per database (default
// 3000); FUZZ_RUNS=50000 FUZZ_SEED=… for a longer run.
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { type Address, getAddress, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import { TestChain } from './support/chain.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';
import { freshPostgres } from './support/gateway.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** RSS may grow this much over a whole run (caches, JIT, pools); a leak per request would pass it. */
const RSS_BUDGET = 400 * 1024 * 1024;

type Schema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  default?: unknown;
};
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  ok?: ValidateFunction;
}

/** Hostile strings and values that the generated ones are mixed with. */
const HOSTILE_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\u202eevil',
  '\u2066x\u2069',
  '\ud800',
  '\t\n\r',
  '%00',
  '../../etc/passwd',
  "'; drop table tokens; --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  '0x',
  '0xZZ',
  '-1',
  '1e309',
  'NaN',
  '８４５３',
  '9'.repeat(100),
  'x'.repeat(5000),
  '\uFFFF\uFFFE',
  '🚀'.repeat(40),
];

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE),
  fc.bigInt({ min: -(2n ** 260n), max: 2n ** 260n }).map(String),
  fc.object({ maxDepth: 2, maxKeys: 4 }),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 4 }),
);

describe.each(['sqlite', 'postgres'] as const)(
  'fuzzing every route from the OpenAPI document, on %s',
  (kind) => {
    let env: DevnetGateway;
    let operations: Operation[];
    let known: Address[];
    const statuses = new Map<number, number>();
    const codes = new Map<string, number>();

    beforeAll(async () => {
      // No webhook deliveries: a generated endpoint may name any address, and nothing leaves this machine.
      env = await startDevnetGateway({
        WEBHOOKS: 'off',
        ...(kind === 'postgres' ? { DATABASE_URL: await freshPostgres(inject('postgresUrl')) } : {}),
      });
      const chain = new TestChain(env.devnet.chains[0] as DevnetGateway['devnet']['chains'][number]);
      const launch = await chain.launch(chain.account(1), { name: 'Fuzz Target', symbol: 'FUZZ' });
      const c = chain.current;
      known = [
        ...chain.chain.accounts.slice(0, 4),
        launch.token,
        chain.quote('USDC'),
        zeroAddress,
        c.factory,
        c.hook,
        c.fee_escrow,
        c.announcement_registry,
      ].map((a) => getAddress(a));

      const doc = (await (await fetch(`${env.gw.origin}/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, Record<string, unknown>>>;
      };
      const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
      operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => {
          const content = (r: unknown) =>
            ((r as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.[
              'application/json'
            ]?.schema ?? undefined) as Schema | undefined;
          const ok = content((op.responses as Record<string, unknown>)['200']);
          return {
            method: method.toUpperCase(),
            path,
            parameters: (op.parameters ?? []) as Parameter[],
            body: content(op.requestBody),
            ok: ok && path !== '/v1/openapi.json' ? ajv.compile(ok) : undefined,
          };
        }),
      );
    }, 120_000);
    afterAll(async () => {
      const hist = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
      const top = [...codes].sort(([, a], [, b]) => b - a).map(([c, n]) => `${c} ${n}`);
      // The figures for the notes: how the generated requests were answered.
      console.log(
        `fuzz on ${kind}: ${RUNS} requests (seed ${SEED}); statuses ${hist.join(', ')}; codes ${top.join(', ')}`,
      );
      await env?.close();
    });

    /** An address: a known one in any valid case, or random hex, or a wrong checksum. */
    const address = () =>
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...known) },
        { weight: 2, arbitrary: fc.constantFrom(...known).map((a) => a.toLowerCase()) },
        {
          weight: 1,
          arbitrary: fc
            .uint8Array({ minLength: 20, maxLength: 20 })
            .map((b) => `0x${Buffer.from(b).toString('hex')}`),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(...known).map((a) => a.replace(/[a-f]/, (x) => x.toUpperCase())),
        },
      );

    /** Values for a schema: mostly what it asks for (edges included), sometimes something hostile. */
    function value(schema: Schema, name: string, depth = 0): fc.Arbitrary<unknown> {
      return fc.oneof(
        { weight: 8, arbitrary: fitting(schema, name, depth) },
        { weight: 1, arbitrary: hostile },
      );
    }

    function fitting(schema: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
      if (schema.enum) return fc.constantFrom(...schema.enum);
      const union = schema.anyOf ?? schema.oneOf;
      if (union) return fc.oneof(...union.map((s) => fitting(s, name, depth)));
      const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
      if (depth > 4) return fc.constant(null);
      switch (type) {
        case 'object': {
          const props = Object.entries(schema.properties ?? {});
          if (props.length === 0) return fc.object({ maxDepth: 1, maxKeys: 3 });
          const required = new Set(schema.required ?? []);
          return fc
            .record(Object.fromEntries(props.map(([k, s]) => [k, value(s, k, depth + 1)])), {
              requiredKeys: props.map(([k]) => k).filter((k) => required.has(k) || Math.random() < 0),
            })
            .chain((obj) =>
              fc.oneof(
                { weight: 9, arbitrary: fc.constant(obj) },
                { weight: 1, arbitrary: fc.constant({ ...obj, unexpected_field: 1 }) },
              ),
            );
        }
        case 'array':
          return fc.array(value(schema.items ?? {}, name, depth + 1), {
            maxLength: Math.min(schema.maxItems ?? 4, 12),
          });
        case 'integer':
          return fc.oneof(
            fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 1_000_000 }),
            fc.constantFrom(
              schema.minimum ?? 0,
              schema.maximum ?? 0,
              (schema.minimum ?? 0) - 1,
              (schema.maximum ?? 0) + 1,
            ),
          );
        case 'number':
          return fc.double({ noNaN: true });
        case 'boolean':
          return fc.boolean();
        case 'string': {
          const p = schema.pattern ?? '';
          if (p.includes('{40}') || schema.format === 'lp-address') return address();
          if (p.includes('{64}'))
            return fc
              .uint8Array({ minLength: 32, maxLength: 32 })
              .map((b) => `0x${Buffer.from(b).toString('hex')}`);
          if (p.startsWith('^(0|[1-9][0-9]*)$') || name.endsWith('_raw'))
            return fc.oneof(
              fc.bigInt({ min: 0n, max: 2n ** 130n }).map(String),
              fc.constantFrom('0', '1', (2n ** 128n - 1n).toString(), (2n ** 256n).toString()),
            );
          if (name.includes('image_base64'))
            return fc.constantFrom(
              'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
              'AAAA',
              '====',
            );
          if (['website', 'x', 'telegram', 'uri', 'image_uri'].includes(name))
            return fc.constantFrom(
              'https://example.org',
              'https://x.com/a',
              'https://t.me/a',
              'ipfs://bafy',
              'javascript:alert(1)',
              '',
            );
          return fc.string({
            maxLength: Math.min(schema.maxLength ?? 40, 80),
            minLength: schema.minLength ?? 0,
          });
        }
        default:
          return fc.anything({ maxDepth: 1 });
      }
    }

    /** A whole request for an operation: path, query, headers and body, some of them broken on purpose. */
    const request = () =>
      fc.nat(operations.length - 1).chain((index) => {
        const op = operations[index] as Operation;
        return fc.record({
          op: fc.constant(index),
          path: fc.record(
            Object.fromEntries(
              op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, value(p.schema, p.name)]),
            ),
          ),
          query: fc.record(
            Object.fromEntries(
              op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, value(p.schema, p.name)]),
            ),
            { requiredKeys: [] },
          ),
          extraQuery: fc.oneof(
            { weight: 9, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom('&zzz=1', '&limit=1&limit=2', '&%00=1', '&a[b]=c') },
          ),
          body: op.body
            ? fc.oneof(
                { weight: 12, arbitrary: value(op.body, '').map((v) => JSON.stringify(v)) },
                {
                  weight: 1,
                  arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b).toString('latin1')),
                },
                {
                  weight: 1,
                  arbitrary: fc.constantFrom(
                    '{',
                    '[]',
                    'null',
                    '"x"',
                    '{"a":' + '['.repeat(60) + ']'.repeat(60) + '}',
                  ),
                },
                {
                  weight: 1,
                  arbitrary: fc
                    .integer({ min: 1, max: 30_000 })
                    .map((n) => JSON.stringify({ filler: 'x'.repeat(n * 50) })),
                },
              )
            : fc.constant(undefined),
          key: fc.oneof(
            { weight: 12, arbitrary: fc.constant('valid') },
            { weight: 1, arbitrary: fc.constantFrom('none', 'garbage', 'lp_launch_00000000_x') },
          ),
          contentType: fc.oneof(
            { weight: 12, arbitrary: fc.constant('application/json') },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                'text/plain',
                'application/json; charset=utf-16',
                'application/x-www-form-urlencoded',
                '',
              ),
            },
          ),
          encoding: fc.oneof(
            { weight: 15, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'identity') },
          ),
          idempotency: fc.oneof(
            { weight: 8, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(300), '"quoted"') },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        });
      });

    /** Percent-encoding that also takes what encodeURIComponent refuses (lone surrogates). */
    const encode = (v: unknown) => {
      const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
      try {
        return encodeURIComponent(text);
      } catch {
        return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
      }
    };

    it(`answers ${RUNS} generated requests without a 5xx, with problem+json and documented 200s`, async () => {
      const apiKey = env.key;
      const rssBefore = process.memoryUsage().rss;
      await fc.assert(
        fc.asyncProperty(request(), async (r) => {
          const op = operations[r.op] as Operation;
          let path = op.path;
          for (const [name, v] of Object.entries(r.path)) path = path.replace(`{${name}}`, encode(String(v)));
          const query = Object.entries(r.query)
            .map(([k, v]) => `${encode(k)}=${encode(v)}`)
            .join('&');
          const headers: Record<string, string> = {};
          if (r.key === 'valid') headers['x-api-key'] = apiKey;
          else if (r.key !== 'none') headers['x-api-key'] = r.key;
          if (r.body !== undefined && r.contentType) headers['content-type'] = r.contentType;
          if (r.encoding) headers['content-encoding'] = r.encoding;
          if (r.idempotency !== undefined) headers['idempotency-key'] = r.idempotency;
          const abort = new AbortController();
          const res = await fetch(`${env.gw.origin}${path}?${query}${r.extraQuery}`, {
            method: op.method,
            headers,
            body: op.method === 'POST' ? (r.body ?? '') : undefined,
            signal: abort.signal,
          });
          // An event stream answers for as long as it is open: its first bytes say what it is, then it is closed.
          const stream =
            res.status === 200 && res.headers.get('content-type')?.startsWith('text/event-stream');
          const text = stream
            ? new TextDecoder().decode(
                (await (res.body as ReadableStream<Uint8Array>).getReader().read()).value,
              )
            : await res.text();
          if (stream) {
            abort.abort();
            expect(text).toMatch(/^retry: \d+\n\n/);
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const where = `${op.method} ${path} → ${res.status} ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.headers.get('content-type'), where).toMatch(/^application\/problem\+json/);
            const problem = JSON.parse(text) as { code: keyof typeof ERRORS; status: number };
            codes.set(problem.code, (codes.get(problem.code) ?? 0) + 1);
            expect(ERRORS[problem.code], where).toBeDefined();
            expect(problem.status, where).toBe(res.status);
            const allowed = problem.code === 'invalid_request' ? [400, 413] : [ERRORS[problem.code].status];
            expect(allowed, where).toContain(res.status);
            expect(text.length, where).toBeLessThan(8_000); // bounded answers
          } else if (res.status === 200 && op.ok && !path.endsWith('/')) {
            // (An empty last path parameter reaches the parent route, /v1/webhooks/ the list: not this one.)
            const ok = op.ok(JSON.parse(text));
            expect(ok, `${where}\n${JSON.stringify(op.ok.errors)}`).toBe(true);
          }
          // A plan for a launch moves the gateway's per-minute ceilings: keep the clock moving.
          env.gw.clock.advance(1_000);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(RSS_BUDGET);
      expect((await fetch(`${env.gw.origin}/v1/health`)).status).toBe(200);
    }, 600_000);
  },
);
