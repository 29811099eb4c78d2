// Starts a real gateway on 127.0.0.1 (a random port) for a test, with a manual clock and its own data dir.
import type { IpfsNode } from '../../src/pinning/ipfsNode.ts';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { ChainClients } from '../../src/chain/clients.ts';
import { ManualClock } from '../../src/clock.ts';
import { type Limiter, openLimiter } from '../../src/http/limits/limits.ts';
import { buildServer, type ServerDeps } from '../../src/server.ts';
import { loadSettings, type Settings } from '../../src/settings.ts';
import { ApiKeyStore, type NewKeyOptions } from '../../src/store/apiKeys.ts';
import { type Database, openDatabase } from '../../src/store/db.ts';
import { expectDocumented } from './documented.ts';
import { tempDir } from './tempDir.ts';

export { tempDir };

/** Per-key overrides that keep the key windows out of the way of tests about other behaviour. */
export const UNLIMITED = { burstPerSecond: 1e9, unitsPerMinute: 1e9, daily: 1e9, monthly: 1e9 };

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  origin: string;
  settings: Settings;
  database: Database;
  keys: ApiKeyStore;
  clock: ManualClock;
  limiter: Limiter;
  /** The gateway's IPFS node (multiaddrs for a test's own IPFS node to dial). */
  ipfs: IpfsNode;
  createKey(options?: Partial<NewKeyOptions>): Promise<string>;
  close(): Promise<void>;
}

/** A fresh, empty PostgreSQL database on the test cluster. */
export async function freshPostgres(clusterUrl: string): Promise<string> {
  const name = `lp_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startGateway(
  env: Record<string, string> = {},
  extraRoutes?: ServerDeps['extraRoutes'],
): Promise<TestGateway> {
  const dataDir = tempDir();
  const settings = loadSettings({ LAUNCHPAD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env });
  const database = await openDatabase(settings);
  const clock = new ManualClock(Date.now());
  const limiter = await openLimiter(settings, clock);
  const app = await buildServer({
    extraRoutes,
    limiter,
    settings,
    database,
    chains: new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs),
    clock,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const keys = new ApiKeyStore(database, settings.keyPrefix);
  return {
    origin: `http://127.0.0.1:${port}`,
    settings,
    database,
    keys,
    clock,
    limiter,
    ipfs: app.ipfs,
    async createKey(options = {}) {
      const { key } = await keys.create(
        { plan: 'developer', scopes: ['*'], origins: [], overrides: UNLIMITED, ...options },
        new Date(clock.now()),
      );
      return key;
    },
    async close() {
      await app.close();
      await database.close().catch(() => {});
      await limiter.backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test responses are inspected field by field
  json: any;
}

export async function call(
  gateway: { origin: string },
  path: string,
  init: {
    key?: string;
    method?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers['x-api-key'] = init.key;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${gateway.origin}${path}`, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  // Every successful answer of a documented operation matches the schema the OpenAPI document publishes.
  if (res.status === 200 && json !== undefined) expectDocumented(path, json, init.method ?? 'GET');
  return { status: res.status, headers: res.headers, body: text, json };
}

/** Asserts the spec's problem shape and returns the body. */
export function expectProblem(reply: Reply, status: number, code: string) {
  const problem = reply.json;
  const where = `${reply.status} ${reply.body}`;
  if (reply.status !== status) throw new Error(`expected ${status} ${code}, got ${where}`);
  if (!reply.headers.get('content-type')?.startsWith('application/problem+json')) {
    throw new Error(`expected problem+json, got ${reply.headers.get('content-type')}`);
  }
  for (const member of ['type', 'title', 'status', 'code', 'detail', 'action', 'instance', 'request_id']) {
    if (problem?.[member] === undefined) throw new Error(`problem lacks ${member}: ${where}`);
  }
  if (problem.code !== code) throw new Error(`expected code ${code}, got ${where}`);
  if (problem.status !== status) throw new Error(`problem status ${problem.status} != ${status}`);
  if (problem.request_id !== reply.headers.get('x-request-id')) throw new Error('request_id != X-Request-Id');
  if (problem.instance !== `urn:request:${problem.request_id}`)
    throw new Error('instance is not the request URN');
  if (!String(problem.type).endsWith(`/launchpad/api/errors-and-limits#${code.replaceAll('_', '-')}`)) {
    throw new Error(`bad type ${problem.type}`);
  }
  return problem;
}

/** The secret part of an API key (`<prefix>launch_<key id>_<secret>`; the secret may contain `_`). */
export function keySecret(key: string): string {
  return key.replace(/^.*?launch_[0-9a-f]{8}_/, '');
}
