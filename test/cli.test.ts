// The launchpad command as a user runs it: start, keys against a running server, graceful shutdown.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, http } from 'viem';
import { parseManifest } from '../src/launchpad/manifest.ts';
import { ApiKeyStore } from '../src/store/apiKeys.ts';
import { sql } from 'kysely';
import { openDatabase } from '../src/store/db.ts';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startFakeRpc } from './support/fakeRpc.ts';
import { call, freshPostgres, tempDir, keySecret } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';

const run = promisify(execFile);
const BIN = 'bin/launchpad.js';
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

async function startProcess(env: Record<string, string>) {
  // Without RPC_URL_* the gateway runs its own devnet: give it ports of its own.
  const devnetPort = String(await freePortRange(4));
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', DEVNET_PORT: devnetPort, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /ready at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { child, base, origin: base.replace(/\/v1$/, ''), output: () => out };
}

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
}

describe('launchpad start', () => {
  it('without RPC_URL_* runs the devnet with everything deployed, and stops it on SIGTERM', async () => {
    const dataDir = tempDir();
    const gw = await startProcess({ LAUNCHPAD_DATA_DIR: dataDir });
    expect(gw.output()).toMatch(/devnet ready in \d+ ms/);
    const written = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as {
      chains: { chain_id: number; rpc_url: string; manifest_path: string }[];
    };
    expect(written.chains.map((c) => c.chain_id)).toEqual([8453, 4663, 143, 5042]);
    for (const chain of written.chains) {
      const manifest = parseManifest(JSON.parse(readFileSync(chain.manifest_path, 'utf8')));
      const factory = manifest.suites[0]?.contracts.factory as `0x${string}`;
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      expect(await client.getChainId()).toBe(chain.chain_id);
      expect(((await client.getCode({ address: factory })) ?? '0x').length).toBeGreaterThan(2);
    }
    const health = (await (await fetch(`${gw.base}/health`)).json()) as {
      data: { chains: { rpc: string }[] };
    };
    expect(health.data.chains.map((c) => c.rpc)).toEqual(['ok', 'ok', 'ok', 'ok']);
    // The first run says where everything is, and hands out a development key on the devnet.
    const banner = gw.output();
    expect(banner).toContain(`docs      ${gw.origin}/docs`);
    expect(banner).toContain(`data dir  ${dataDir}`);
    for (const chain of written.chains) expect(banner).toContain(chain.rpc_url);
    const devKey = /API key {3}(\S+)/.exec(banner)?.[1] as string;
    expect((await call(gw, '/v1/config?chain_id=8453&include=chains', { key: devKey })).status).toBe(200);

    // A second gateway on the same data dir refuses in one line, naming the holder.
    const second = await cli(['start'], { LAUNCHPAD_DATA_DIR: dataDir }).catch((e: unknown) => e);
    expect(second).toMatchObject({ code: 1 });
    const refusal = (second as { stderr: string }).stderr.trim();
    expect(refusal).toMatch(new RegExp(`in use by launchpad start \\(pid ${gw.child.pid},`));
    expect(refusal.split('\n')).toHaveLength(1);

    // `launchpad watch` follows the feed meanwhile: JSON lines when its output is not a terminal.
    const watching = spawn(
      process.execPath,
      [
        'bin/launchpad.js',
        'watch',
        '--base-url',
        gw.base,
        '--key',
        devKey,
        '--chain',
        '8453',
        '--types',
        'launch',
      ],
      { env: { ...process.env, LAUNCHPAD_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let watched = '';
    watching.stdout?.on('data', (d) => (watched += d));
    // The demo walks the product against it: every step must land on chain. On 8453 (B20 tokens, the
    // native quote), and at once on 4663 (ERC-20 tokens, native ETH) and 5042 (no native quote: USDC
    // through Permit2, the chain's own swap router).
    // Each walk its own Developer key (the other two make theirs): one key's burst is 20 a second.
    const demoOn = (chain: number, key?: string) =>
      cli(['demo', '--chain', String(chain), '--base-url', gw.base, ...(key ? ['--key', key] : [])], {
        LAUNCHPAD_DATA_DIR: dataDir,
      });
    const [demo, robinhood, arc] = await Promise.all([demoOn(8453, devKey), demoOn(4663), demoOn(5042)]);
    for (const walk of [demo, robinhood, arc]) {
      for (const step of [
        'config',
        'launch',
        'index',
        'buy',
        'sell',
        'fee claim',
        'announce',
        'trades',
        'stream',
      ])
        expect(walk.stdout).toMatch(new RegExp(`^${step} `, 'm'));
      expect(walk.stdout).toMatch(/^stream .*\btrade\b.*\bbuy\b/m); // the trades, as they were indexed
      expect(walk.stdout).toContain('demo: every step landed on chain');
    }
    expect(demo.stdout).toMatch(/^config .*chain 8453 .*\(b20 tokens\), quote ETH/m);
    expect(robinhood.stdout).toMatch(/^config .*chain 4663 .*\(erc20 tokens\), quote ETH/m);
    expect(arc.stdout).toMatch(/^config .*chain 5042 .*quote USDC/m);
    expect(arc.stdout).toMatch(/^buy .*steps approve-permit2, permit2-signature/m);
    await expect(cli(['demo', '--chain', '1'], { LAUNCHPAD_DATA_DIR: dataDir })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--chain must be one of 8453, 4663, 143, 5042'),
    });
    const lines = watched
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.event === 'launch' && l.data.record.token.symbol === 'DEMO')).toMatchObject({
      id: expect.any(String),
      data: { type: 'launch', chain_id: 8453 },
    });
    watching.kill('SIGINT');
    expect((await once(watching, 'exit'))[0]).toBe(0);

    gw.child.kill('SIGTERM');
    const [code] = await once(gw.child, 'exit');
    expect(code).toBe(0);
    // The anvils went with it.
    for (const chain of written.chains) {
      await expect(fetch(chain.rpc_url, { method: 'POST', body: '{}' })).rejects.toThrow();
    }
    // The demo waits out the launch's anti-snipe window (about 20 s) before it buys.
  }, 150_000);

  it('prints the base URL once ready; keys made by the CLI work against the running server', async () => {
    const env = { LAUNCHPAD_DATA_DIR: tempDir() };
    const gw = await startProcess(env);
    expect(gw.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const created = await cli(
      ['keys', 'create', '--plan', 'developer', '--scopes', 'config:read', '--json'],
      env,
    );
    const { key, key_id } = JSON.parse(created.stdout) as { key: string; key_id: string };
    expect(key).toMatch(new RegExp(`^lp_launch_${key_id}_`));
    expect((await call(gw, '/v1/config?chain_id=8453&include=chains', { key })).status).toBe(200);

    const browser = await cli(
      ['keys', 'create', '--plan', 'builder', '--scopes', '*', '--origin', 'https://app.example', '--json'],
      env,
    );
    const browserKey = JSON.parse(browser.stdout).key as string;
    expect(
      (
        await call(gw, '/v1/config?chain_id=8453&include=chains', {
          key: browserKey,
          headers: { origin: 'https://app.example' },
        })
      ).status,
    ).toBe(200);

    const listed = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout) as {
      key_id: string;
      scopes: string[];
    }[];
    expect(listed.map((k) => k.key_id)).toContain(key_id);
    expect(JSON.stringify(listed)).not.toContain(keySecret(key));
    expect((await cli(['keys', 'revoke', key_id], env)).stdout).toContain(`revoked ${key_id}`);
    const after = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout) as {
      key_id: string;
      status: string;
    }[];
    expect(after.find((k) => k.key_id === key_id)?.status).toBe('revoked');

    await expect(cli(['keys', 'create', '--plan', 'gold', '--scopes', '*'], env)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown plan'),
    });
    gw.child.kill('SIGTERM');
    const [code] = await once(gw.child, 'exit');
    expect(code).toBe(0);
    // The key never reaches the logs.
    expect(gw.output()).not.toContain(keySecret(key));
  });

  it('sets per-key limits from the CLI', async () => {
    const env = { LAUNCHPAD_DATA_DIR: tempDir() };
    const gw = await startProcess(env);
    const made = await cli(
      ['keys', 'create', '--plan', 'partner', '--scopes', '*', '--limits', '{"daily":2}', '--json'],
      env,
    );
    const { key, key_id } = JSON.parse(made.stdout) as { key: string; key_id: string };
    const path = '/v1/config?chain_id=8453&include=chains';
    expect((await call(gw, path, { key })).headers.get('ratelimit-policy')).toContain('"day";q=2;w=86400');
    expect((await call(gw, path, { key })).status).toBe(200);
    expect((await call(gw, path, { key })).json.code).toBe('rate_limit_exceeded');
    // Changed limits apply to a key the gateway has not cached yet at once (else within 5 s).
    const other = JSON.parse(
      (await cli(['keys', 'create', '--plan', 'playground', '--scopes', '*', '--json'], env)).stdout,
    ) as { key: string; key_id: string };
    await cli(['keys', 'limits', other.key_id, '{"unitsPerMinute":7}'], env);
    expect((await call(gw, path, { key: other.key })).headers.get('ratelimit-policy')).toContain(
      '"minute";q=7;w=60',
    );
    await expect(cli(['keys', 'limits', key_id, '{"perHour":1}'], env)).rejects.toMatchObject({ code: 2 });
  });

  it('uses PostgreSQL when DATABASE_URL is set, its connections opened at start and kept', async () => {
    const env = { LAUNCHPAD_DATA_DIR: tempDir(), DATABASE_URL: await freshPostgres(inject('postgresUrl')) };
    const gw = await startProcess({ ...env, METRICS_TOKEN: 'cli-metrics' });
    const opened = async () => {
      const r = await call(gw, '/metrics', { headers: { authorization: 'Bearer cli-metrics' } });
      return Number(/^launchpad_db_connections_opened_total (\d+)$/m.exec(r.body)?.[1]);
    };
    // The pool's ten open before the first request (and the connection that listens for the index's
    // commits): no request waits for one.
    const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: tempDir() });
    try {
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`.execute(database.db);
      expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(10);
    } finally {
      await database.close();
    }
    const atStart = await opened();
    const { key } = JSON.parse(
      (await cli(['keys', 'create', '--plan', 'partner', '--scopes', '*', '--json'], env)).stdout,
    );
    expect((await call(gw, '/v1/config?chain_id=5042&include=chains', { key })).json.data.chain.name).toBe(
      'Arc',
    );
    expect((await call(gw, '/v1/health')).json.data.database.kind).toBe('postgres');
    const reads = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(gw, `/v1/tokens?chain_id=8453&limit=${i + 1}`, { key })),
    );
    expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
    expect(await opened()).toBe(atStart);
  });

  it('refuses bad settings with a clear message', async () => {
    await expect(cli(['start'], { PORT: 'eighty' })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT must be a whole number'),
    });
    await expect(cli(['start'], { DATABASE_URL: 'mysql://x' })).rejects.toMatchObject({ code: 2 });
  });

  it('on SIGTERM finishes in-flight requests, refuses new work and exits 0', async () => {
    const slow = await startFakeRpc({ head: 7n, delayMs: 1500 });
    try {
      const dataDir = tempDir();
      const gw = await startProcess({
        LAUNCHPAD_DATA_DIR: dataDir,
        RPC_URL_8453: slow.url,
        RPC_TIMEOUT_MS: '10000',
      });
      // A request that waits on the RPC (health does not: it reads the background probe). Production
      // mode checked the deployment against the RPC before it was ready.
      const { stdout } = await cli(['keys', 'create', '--plan', 'developer', '--scopes', '*', '--json'], {
        LAUNCHPAD_DATA_DIR: dataDir,
      });
      const key = JSON.parse(stdout).key as string;
      const before = slow.requests;
      const inflight = call(gw, '/v1/transactions/8453/0x' + '11'.repeat(32), { key });
      await expect.poll(() => slow.requests).toBeGreaterThan(before); // the request is waiting on the RPC
      gw.child.kill('SIGTERM');
      const exited = once(gw.child, 'exit');
      // New connections are refused while the in-flight request is still being served.
      const refused = () =>
        fetch(`${gw.base}/health`, { headers: { connection: 'close' } }).then(
          () => false,
          () => true,
        );
      await expect.poll(refused, { timeout: 1000 }).toBe(true);
      const r = await inflight;
      expect(r.status, r.body).toBe(200);
      expect(r.json.data).toMatchObject({ chain_id: 8453, status: 'not_found' });
      const [code] = await exited;
      expect(code).toBe(0);
      await expect(fetch(`${gw.base}/health`)).rejects.toThrow();
    } finally {
      await slow.close();
    }
  });
});

describe('launchpad commands', () => {
  it('answer --help with their usage, exit 0 and start nothing; unknown flags are usage errors', async () => {
    const dataDir = join(tempDir(), 'never-made');
    for (const command of ['start', 'devnet', 'indexer', 'keys', 'demo', 'migrate', 'openapi']) {
      const { stdout } = await cli([command, '--help'], { LAUNCHPAD_DATA_DIR: dataDir });
      expect(stdout).toContain(`usage: launchpad ${command}`);
      const bad = await cli([command, '--frobnicate'], { LAUNCHPAD_DATA_DIR: dataDir }).catch((e) => e);
      expect(bad).toMatchObject({ code: 2 });
      expect(bad.stderr).toContain("Unknown option '--frobnicate'");
      expect(bad.stderr).toContain(`usage: launchpad ${command}`);
    }
    expect((await cli(['--help'], {})).stdout).toContain('launchpad keys create');
    await expect(cli(['frobnicate'], {})).rejects.toMatchObject({ code: 2 });
    expect(existsSync(dataDir)).toBe(false);
    // (Sixteen processes, one after another: a loaded CI machine took over 30 s; nothing here is timed.)
  }, 120_000);

  it('refuses a busy port in one line', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await cli(['start'], {
        LAUNCHPAD_DATA_DIR: tempDir(),
        PORT: String(port),
        DEVNET: 'off',
        LOG_LEVEL: 'silent',
      }).catch((e) => e);
      expect(r).toMatchObject({ code: 1 });
      expect(r.stderr.trim()).toBe(
        `launchpad: cannot listen on 127.0.0.1:${port} (the port is in use); set HOST or PORT`,
      );
    } finally {
      server.close();
    }
  });

  it('shows expired keys as expired and refuses an expiry in the past', async () => {
    const env = { LAUNCHPAD_DATA_DIR: tempDir() };
    const past = await cli(
      ['keys', 'create', '--plan', 'developer', '--scopes', '*', '--expires', '2020-01-01T00:00:00Z'],
      env,
    ).catch((e) => e);
    expect(past).toMatchObject({ code: 2 });
    expect(past.stderr).toContain('--expires 2020-01-01T00:00:00Z is in the past');
    // A key that expires while it exists (made with a clock in the past).
    const database = await openDatabase({ dataDir: env.LAUNCHPAD_DATA_DIR });
    const { record } = await new ApiKeyStore(database, 'lp_').create(
      { plan: 'developer', scopes: ['*'], origins: [], expiresAt: new Date('2021-01-01T00:00:00Z') },
      new Date('2020-06-01T00:00:00Z'),
    );
    await database.close();
    const listed = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout) as {
      key_id: string;
      status: string;
    }[];
    expect(listed.find((k) => k.key_id === record.keyId)?.status).toBe('expired');
    expect((await cli(['keys', 'list'], env)).stdout).toMatch(
      new RegExp(`^${record.keyId} {2}expired .*expires 2021-01-01T00:00:00.000Z$`, 'm'),
    );
  });
});

describe('launchpad migrate', () => {
  it('lets several processes start on one fresh SQLite file at once', async () => {
    for (let round = 0; round < 3; round++) {
      const env = { LAUNCHPAD_DATA_DIR: tempDir() };
      const runs = await Promise.allSettled(Array.from({ length: 4 }, () => cli(['migrate'], env)));
      const failures = runs.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
    }
  }, 90_000); // twelve node processes on two cores, some of them waiting out the others' locks
});

describe('launchpad openapi', () => {
  it('prints the document', async () => {
    const { stdout } = await cli(['openapi'], { LAUNCHPAD_DATA_DIR: tempDir() });
    expect(JSON.parse(stdout).paths['/v1/config']).toBeDefined();
  });
});
