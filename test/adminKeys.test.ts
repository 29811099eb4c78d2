// The operator's key routes and `launchpad keys usage`: keys created, limited and revoked through
// /v1/admin/keys (scope admin:keys, never granted by `*`), and usage reported exactly from the limiter's
// own counters after a burst across two replicas sharing Redis, and from a gateway that counts in process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { call, expectProblem, freshPostgres, type Reply, tempDir, UNLIMITED } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';
import { startRedis, type TestRedis } from './support/redis.ts';
import { createKeyWithCli, type Replica, replicaEnv, replicaPool } from './support/replica.ts';

const run = promisify(execFile);
let redis: TestRedis;
let devnet: Devnet;
let env: Record<string, string>;
const replicas = replicaPool(() => env);
let a: Replica;
let b: Replica;
let admin: string;
let tenant: string;

/** `launchpad <args>` against the shared database (and Redis, unless `extra` says otherwise). */
const cli = async (args: string[], extra: Record<string, string> = {}) =>
  run(process.execPath, ['bin/launchpad.js', ...args], {
    env: { ...process.env, ...env, LAUNCHPAD_DATA_DIR: tempDir(), ...extra },
  });

beforeAll(async () => {
  redis = await startRedis();
  const dataDir = tempDir();
  devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  env = replicaEnv(devnet, dataDir, await freshPostgres(inject('postgresUrl')), {
    REDIS_URL: redis.url,
    INDEXER: 'off',
  });
  [a, b] = await Promise.all([replicas.start(), replicas.start()]);
  const made = await cli([
    'keys',
    'create',
    '--plan',
    'partner',
    '--scopes',
    '*,admin:keys',
    '--limits',
    JSON.stringify(UNLIMITED),
    '--json',
  ]);
  admin = JSON.parse(made.stdout).key;
  tenant = await createKeyWithCli(env, 'partner', UNLIMITED);
}, 120_000);
afterAll(async () => {
  replicas.killAll();
  await devnet?.stop();
  await redis?.stop();
});

const adminCall = (r: Replica, path: string, init: { method?: string; body?: unknown } = {}) =>
  call(r, path, { key: admin, ...init });
const keyIdOf = (key: string) => /launch_([0-9a-f]{8})_/.exec(key)?.[1] as string;

/** Waits until at least 5 s remain in this minute, so that a burst falls in one minute window. */
async function minuteStart() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5000) await new Promise((r) => setTimeout(r, left + 50));
}

/** A burst of token-list reads spread over `replicas`; what the answers say was admitted. */
async function burst(key: string, over: Replica[], n: number) {
  const replies: Reply[] = [];
  for (let i = 0; i < n; i++)
    replies.push(await call(over[i % over.length] as Replica, '/v1/tokens?chain_id=8453', { key }));
  const admitted = replies.filter((r) => r.status === 200);
  const refused = replies.filter((r) => r.status === 429);
  expect(admitted.length + refused.length).toBe(n);
  return { admitted: admitted.length, refused: refused.length };
}

describe('operator key routes', () => {
  it('need admin:keys, which `*` does not grant', async () => {
    expectProblem(await call(a, '/v1/admin/keys', { key: tenant }), 403, 'insufficient_scope');
    expectProblem(await call(a, '/v1/admin/keys'), 401, 'missing_api_key');
    const list = await adminCall(b, '/v1/admin/keys');
    expect(list.status, list.body).toBe(200);
    const ids = list.json.data.map((k: { key_id: string }) => k.key_id);
    expect(ids).toEqual(expect.arrayContaining([keyIdOf(admin), keyIdOf(tenant)]));
    // Nothing secret is listed.
    expect(list.body).not.toContain('secret');
    expect(list.body).not.toContain(admin.slice(-20));
  });

  it('create, limit and revoke a key, in effect on the other replica', async () => {
    const created = await adminCall(a, '/v1/admin/keys', {
      method: 'POST',
      body: { plan: 'developer', scopes: ['tokens:read'], limits: { unitsPerMinute: 4 } },
    });
    expect(created.status, created.body).toBe(200);
    const { key, key_id: id } = created.json.data;
    expect(created.json.data).toMatchObject({
      plan: 'developer',
      status: 'active',
      limits: { unitsPerMinute: 4 },
    });
    expect(keyIdOf(key)).toBe(id);
    await minuteStart();
    // Its scopes hold (a refusal still charges the key's 1-unit base: spec metering rule 3).
    expectProblem(await call(b, '/v1/config?chain_id=8453', { key }), 403, 'insufficient_scope');
    expect((await call(b, '/v1/tokens?chain_id=8453', { key })).status).toBe(200);
    expectProblem(await call(b, '/v1/tokens?chain_id=8453', { key }), 429, 'rate_limit_exceeded');

    const raised = await adminCall(b, `/v1/admin/keys/${id}`, {
      method: 'PATCH',
      body: { limits: { unitsPerMinute: 1000 } },
    });
    expect(raised.status, raised.body).toBe(200);
    expect(raised.json.data.limits).toEqual({ unitsPerMinute: 1000 });
    expect(raised.body).not.toContain(key);
    await expect
      .poll(async () => (await call(a, '/v1/tokens?chain_id=8453', { key })).status, {
        timeout: 8000,
        interval: 250,
      })
      .toBe(200);

    const revoked = await adminCall(a, `/v1/admin/keys/${id}`, { method: 'DELETE' });
    expect(revoked.status, revoked.body).toBe(200);
    expect(revoked.json.data.status).toBe('revoked');
    await expect
      .poll(async () => (await call(b, '/v1/tokens?chain_id=8453', { key })).json?.code, {
        timeout: 8000,
        interval: 250,
      })
      .toBe('invalid_api_key');
    expect((await adminCall(b, `/v1/admin/keys/${id}`)).json.data.status).toBe('revoked');
  });

  it('refuse bad input with the right problem', async () => {
    const create = (body: unknown) => adminCall(a, '/v1/admin/keys', { method: 'POST', body });
    expectProblem(await create({ plan: 'developer', scopes: ['nope:read'] }), 400, 'invalid_parameter');
    const origin = expectProblem(
      await create({ plan: 'developer', scopes: [], origins: ['ftp://x'] }),
      400,
      'invalid_parameter',
    );
    expect(origin.invalid_parameters[0].name).toBe('origins');
    expectProblem(await create({ plan: 'gold', scopes: [] }), 400, 'invalid_parameter');
    expectProblem(await create({ plan: 'developer', scopes: [], extra: 1 }), 400, 'unknown_parameter');
    expectProblem(
      await create({ plan: 'developer', scopes: [], limits: { perHour: 5 } }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await create({ plan: 'developer', scopes: [], limits: { daily: 0 } }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await create({ plan: 'developer', scopes: [], expires_at: '2001-01-01T00:00:00Z' }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await create({ plan: 'developer', scopes: [], expires_at: 'tomorrow' }),
      400,
      'invalid_parameter',
    );
    expectProblem(await adminCall(a, '/v1/admin/keys/ffffffff/usage'), 404, 'not_found');
    expectProblem(await adminCall(a, '/v1/admin/keys/ffffffff', { method: 'DELETE' }), 404, 'not_found');
    expectProblem(await adminCall(a, '/v1/admin/keys/XYZ/usage'), 400, 'invalid_parameter');
    expectProblem(
      await adminCall(a, `/v1/admin/keys/${keyIdOf(tenant)}`, { method: 'PATCH', body: {} }),
      400,
      'invalid_parameter',
    );
  });
});

/** A new read key made through `replica`'s admin route, with `perMinute` units a minute. */
const readKey = async (replica: Replica, perMinute: number) =>
  (
    await adminCall(replica, '/v1/admin/keys', {
      method: 'POST',
      body: {
        plan: 'developer',
        scopes: ['tokens:read'],
        limits: { unitsPerMinute: perMinute, burstPerSecond: 1000 },
      },
    })
  ).json.data as { key: string; key_id: string };

describe('usage', () => {
  it('is exact after a burst across two replicas, through the route and `launchpad keys usage`', async () => {
    const { key, key_id: id } = await readKey(a, 40);
    await minuteStart();
    const seen = await burst(key, [a, b], 30);
    // The default page of the token list costs 2 units: 20 admitted, 10 refused.
    expect(seen).toEqual({ admitted: 20, refused: 10 });

    const usage = await adminCall(b, `/v1/admin/keys/${id}/usage`);
    expect(usage.status, usage.body).toBe(200);
    const windows = Object.fromEntries(usage.json.data.windows.map((w: { window: string }) => [w.window, w]));
    expect(windows.minute).toMatchObject({ limit: 40, used: 40, remaining: 0 });
    expect(windows.day).toMatchObject({ used: 40 });
    expect(windows.month).toMatchObject({ used: 40 });
    expect(Date.parse(windows.minute.resets_at) % 60_000).toBe(0);
    expect(usage.json.data.operations).toEqual([{ operation: 'token_list', requests: 30, rejected: 10 }]);

    // The CLI reads the same counters from Redis.
    const out = await cli(['keys', 'usage', id, '--json']);
    const report = JSON.parse(out.stdout);
    expect(report.windows).toEqual(usage.json.data.windows);
    expect(report.operations).toEqual(usage.json.data.operations);
    const text = (await cli(['keys', 'usage'])).stdout;
    expect(text).toContain(`${id}  developer   minute 40/40 (0 left)`);
    expect(text).toMatch(/token_list\s+30 requests {2}10 × 429/);
  });

  it('of a gateway that counts in process: through its route, also for the CLI', async () => {
    const solo = await replicas.start({ REDIS_URL: '' });
    const { key, key_id: id } = await readKey(solo, 10);
    await minuteStart();
    expect(await burst(key, [solo], 7)).toEqual({ admitted: 5, refused: 2 });
    const noRedis = await cli(['keys', 'usage', id], { REDIS_URL: '' }).catch((err) => err);
    expect(noRedis.code).toBe(2);
    expect(noRedis.stderr).toContain('--base-url');
    const out = await cli(['keys', 'usage', id, '--json', '--base-url', solo.origin, '--key', admin], {
      REDIS_URL: '',
    });
    const report = JSON.parse(out.stdout);
    expect(report.windows.find((w: { window: string }) => w.window === 'minute')).toMatchObject({
      used: 10,
      remaining: 0,
    });
    expect(report.operations).toEqual([{ operation: 'token_list', requests: 7, rejected: 2 }]);
  });
});
