// The webhook dispatcher alone on SQLite, against a local receiver: a delivery that keeps failing past the
// retry window disables its endpoint with the reason; a redirect is not followed (a failure, retried);
// an answer past 64 KB is cut short and still counts by its status. Without an enabled endpoint, a
// wake-up reads the endpoints and nothing more.
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/clock.ts';
import { Cursors } from '../src/cursor.ts';
import { type DispatcherOptions, WebhookDispatcher } from '../src/operations/webhookDispatcher.ts';
import { createWebhook, getWebhook, listWebhookDeliveries, testWebhook } from '../src/operations/webhooks.ts';
import { loadSettings } from '../src/settings.ts';
import { type Database, openDatabase } from '../src/store/db.ts';
import { SecretBox } from '../src/webhooks/sealed.ts';
import { tempDir } from './support/tempDir.ts';

let dir: string;
let database: Database;
let receiver: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  dir = tempDir();
  database = await openDatabase({ dataDir: dir });
  receiver = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    if (req.url === '/fail') return res.writeHead(500).end();
    if (req.url === '/redirect') return res.writeHead(307, { location: '/ok' }).end();
    if (req.url === '/big') return res.writeHead(200).end('x'.repeat(1024 * 1024));
    res.writeHead(200).end();
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the webhook operations and the dispatcher need, on `db`. */
const depsOf = (db: Database) => ({
  database: db,
  clock: systemClock,
  secrets: new SecretBox(Buffer.alloc(32, 1)),
  cursors: new Cursors(Buffer.alloc(32, 2)),
  policy: { allowLocal: true },
});

/** A dispatcher on `deps` whose only wake-ups are its polls. */
const dispatcherOf = (deps: ReturnType<typeof depsOf>, dataDir: string, options: DispatcherOptions) =>
  new WebhookDispatcher(
    {
      ...deps,
      settings: loadSettings({ LAUNCHPAD_DATA_DIR: dataDir }),
      onGrowth: () => async () => {},
    } as never,
    options,
  );

describe('the webhook dispatcher', () => {
  it('opens no transaction while no endpoint is enabled, and delivers once one is', async () => {
    const own = tempDir();
    const db = await openDatabase({ dataDir: own });
    try {
      let transactions = 0;
      let reads = 0;
      const counted = new Proxy(db.db, {
        get(target, prop) {
          if (prop === 'transaction') transactions++;
          if (prop === 'selectFrom') reads++;
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const deps = depsOf({ ...db, db: counted } as Database);
      const dispatcher = dispatcherOf(deps, own, { pollMs: 10, retryBaseMs: 10, retryWindowMs: 60_000 });
      dispatcher.start();
      try {
        await new Promise((r) => setTimeout(r, 200));
        expect(reads).toBeGreaterThan(5);
        expect(transactions).toBe(0);
        const e = await createWebhook(deps, { url: `${base}/quiet`, keyId: 'k2', maxEndpoints: 10 });
        await testWebhook(deps, { keyId: 'k2', id: e.id });
        for (let i = 0; i < 100 && !hits.includes('/quiet'); i++) await new Promise((r) => setTimeout(r, 20));
      } finally {
        await dispatcher.stop();
      }
      expect(hits).toContain('/quiet');
      expect(transactions).toBeGreaterThan(0);
    } finally {
      await db.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('disables an endpoint whose deliveries fail past the retry window; follows no redirect; reads at most 64 KB', async () => {
    const deps = depsOf(database);
    const make = (path: string) =>
      createWebhook(deps, { url: `${base}${path}`, keyId: 'k1', maxEndpoints: 10 });
    const [failing, redirecting, big] = await Promise.all([make('/fail'), make('/redirect'), make('/big')]);
    for (const e of [failing, redirecting, big]) await testWebhook(deps, { keyId: 'k1', id: e.id });
    const dispatcher = dispatcherOf(deps, dir, { pollMs: 20, retryBaseMs: 10, retryWindowMs: 300 });
    dispatcher.start();
    try {
      for (let i = 0; i < 300 && !(await getWebhook(deps, { keyId: 'k1', id: failing.id })).disabled; i++)
        await new Promise((r) => setTimeout(r, 20));
    } finally {
      await dispatcher.stop();
    }
    const failed = await getWebhook(deps, { keyId: 'k1', id: failing.id });
    expect(failed.disabled).toBe(true);
    expect(failed.disabled_reason).toMatch(/deliveries failed .*HTTP 500/);
    const log = await listWebhookDeliveries(deps, { keyId: 'k1', id: failing.id, limit: 10 });
    expect(log.items[0]).toMatchObject({ state: 'failed', last_status: 500, event: 'ping' });
    expect(log.items[0]?.attempts).toBeGreaterThan(1);
    // The redirect was never followed: /ok was never asked; the attempt failed as a 307.
    expect(hits).not.toContain('/ok');
    const redirected = await listWebhookDeliveries(deps, { keyId: 'k1', id: redirecting.id, limit: 10 });
    expect(redirected.items[0]?.last_status).toBe(307);
    // A 1 MB answer: delivered by its 200, its body cut short.
    const bigLog = await listWebhookDeliveries(deps, { keyId: 'k1', id: big.id, limit: 10 });
    expect(bigLog.items[0]).toMatchObject({ state: 'delivered', last_status: 200 });
  });
});
