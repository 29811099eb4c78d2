// launchpad doctor and the production-mode start checks, against the devnet with its manifests copied to
// a temp folder and broken one way at a time: each break is one failing row and a non-zero exit.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, devnetEnv, startDevnet } from '../src/devnet/devnet.ts';
import { call, tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';

const run = promisify(execFile);
let devnet: Devnet;
let devnetDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  devnetDir = tempDir();
  devnet = await startDevnet({ dataDir: devnetDir, basePort: await freePortRange(4) });
}, 60_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => devnet?.stop());

type Manifest = {
  chain_id: number;
  suites: { id: string; contracts: Record<string, string> }[];
  quotes: Record<string, unknown>[];
};

/** A copy of the devnet's manifests, changed by `edit`; returns the env that points doctor at it. */
function manifests(edit: (byChain: Record<number, Manifest>) => void = () => {}) {
  const dir = tempDir();
  cpSync(join(devnetDir, 'deployments'), dir, { recursive: true });
  const byChain: Record<number, Manifest> = {};
  for (const c of devnet.chains)
    byChain[c.chain_id] = JSON.parse(readFileSync(join(dir, `devnet-${c.chain_id}.json`), 'utf8'));
  edit(byChain);
  for (const [id, m] of Object.entries(byChain))
    writeFileSync(join(dir, `devnet-${id}.json`), JSON.stringify(m, null, 2));
  return { ...devnetEnv(devnet, devnetDir), MANIFESTS_DIR: dir, LAUNCHPAD_DATA_DIR: tempDir() };
}

interface Row {
  chain_id: number;
  check: string;
  expected: string;
  found: string;
  ok: boolean;
}

async function doctor(env: Record<string, string>, json = true) {
  const r = await run(process.execPath, ['bin/launchpad.js', 'doctor', ...(json ? ['--json'] : [])], {
    env: { ...process.env, ...env },
  }).then(
    (x) => ({ code: 0, stdout: x.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return { ...r, report: json ? (JSON.parse(r.stdout) as { ok: boolean; checks: Row[] }) : undefined };
}

const failing = (rows: Row[]) => rows.filter((r) => !r.ok);
const current = (m: Manifest | undefined) => m?.suites[0] as Manifest['suites'][number];

describe('launchpad doctor', () => {
  it('passes on the devnet: every chain, address, view, quote, Permit2, Uniswap contract and first block', async () => {
    const started = Date.now();
    const { code, stdout } = await doctor(manifests(), false);
    expect(code, stdout).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    for (const id of [8453, 4663, 143, 5042])
      expect(stdout).toMatch(new RegExp(`^${id} +rpc eth_chainId`, 'm'));
    expect(stdout).toMatch(/^8453 +Permit2 DOMAIN_SEPARATOR\(\) .* ok$/m);
    expect(stdout).toMatch(/^(\d+) of \1 checks hold/m);
    expect(stdout).not.toContain('FAIL');
  });

  it('reads a from_factory field from the factory and checks it there', async () => {
    let registry = '';
    const { code, report } = await doctor(
      manifests((m) => {
        const c = current(m[143]).contracts;
        registry = c.announcement_registry as string;
        c.announcement_registry = 'from_factory';
        c.token_deployer = 'from_factory';
      }),
    );
    expect(code).toBe(0);
    expect(report?.checks).toContainEqual(
      expect.objectContaining({
        chain_id: 143,
        check: expect.stringContaining('factory.announcementRegistry()'),
        expected: 'read from the factory',
        found: registry,
        ok: true,
      }),
    );
  });

  it('fails when the hook is another contract', async () => {
    const { code, report } = await doctor(
      manifests((m) => {
        const c = current(m[8453]).contracts;
        c.hook = c.fee_escrow as string;
      }),
    );
    expect(code).toBe(1);
    expect(failing(report?.checks ?? [])).toEqual([
      expect.objectContaining({
        chain_id: 8453,
        check: expect.stringContaining('factory.hook()'),
        ok: false,
      }),
    ]);
  });

  it('fails when an address has no code', async () => {
    const { code, report } = await doctor(
      manifests((m) => {
        current(m[4663]).contracts.state_view = '0x000000000000000000000000000000000000bEEF';
      }),
    );
    expect(code).toBe(1);
    const rows = failing(report?.checks ?? []);
    expect(rows.map((r) => r.check)).toEqual(
      expect.arrayContaining([expect.stringContaining('.state_view'), 'StateView poolManager()']),
    );
    expect(rows.find((r) => r.check.endsWith('.state_view'))?.found).toBe('no code');
  });

  it("fails when a manifest's chain differs from the RPC's", async () => {
    const env = manifests();
    const { code, report } = await doctor({ ...env, RPC_URL_4663: devnet.chains[0]?.rpc_url as string });
    expect(code).toBe(1);
    expect(failing(report?.checks ?? [])).toEqual([
      { chain_id: 4663, check: 'rpc eth_chainId', expected: '4663', found: '8453', ok: false },
    ]);
  });

  it('fails when a manifest quote is not registered on the factory', async () => {
    // WETH exists on the Arc devnet (for the router), but Arc registers only its USDC.
    const weth = devnet.chains[3]?.uniswap.weth;
    expect(weth).toMatch(/^0x/);
    const { code, report } = await doctor(
      manifests((m) => {
        const arc = m[5042] as Manifest;
        arc.quotes.push({ ...arc.quotes[0], address: weth, symbol: 'WETH', decimals: 18 });
      }),
    );
    expect(code).toBe(1);
    expect(failing(report?.checks ?? [])).toEqual([
      expect.objectContaining({
        chain_id: 5042,
        check: expect.stringContaining('quoteConfig(WETH)'),
        found: 'not registered',
      }),
    ]);
  });
});

describe('production-mode start', () => {
  it('reports a failing deployment check in /v1/health and in the config warnings of that chain', async () => {
    const env = manifests((m) => {
      const c = current(m[8453]).contracts;
      c.hook = c.fee_escrow as string;
    });
    const child = spawn(process.execPath, ['bin/launchpad.js', 'start'], {
      env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'warn', INDEXER: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stderr?.on('data', (d) => (out += d));
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (d) => {
        out += d;
        const m = /ready at (http:\/\/[^\s]+)\/v1/.exec(out);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
    });
    expect(out).toMatch(/deployment check failed: chain 8453 .*factory\.hook\(\)/);
    const health = await call({ origin: base }, '/v1/health');
    expect(health.status).toBe(200);
    expect(health.json.data.status).toBe('degraded');
    expect(health.json.data.deployment).toMatchObject({
      status: 'failing',
      failing: [
        expect.objectContaining({ chain_id: 8453, check: expect.stringContaining('factory.hook()') }),
      ],
    });
    const { stdout } = await run(
      process.execPath,
      ['bin/launchpad.js', 'keys', 'create', '--plan', 'developer', '--scopes', '*', '--json'],
      { env: { ...process.env, ...env } },
    );
    const key = JSON.parse(stdout).key as string;
    const config = await call({ origin: base }, '/v1/config?chain_id=8453&include=chains', { key });
    expect(config.json.meta.warnings).toEqual([
      expect.stringMatching(/^deployment check failed: .*factory\.hook\(\)/),
    ]);
    const other = await call({ origin: base }, '/v1/config?chain_id=4663&include=chains', { key });
    expect(other.json.meta.warnings).toEqual([]);
  }, 60_000);
});
