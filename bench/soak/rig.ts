// What the soak runs, on 127.0.0.1 only, as the README's production-like setup describes: PostgreSQL,
// Redis (with its append-only file, as a production Redis keeps its counters across a restart), the
// shared IPFS node (its own process, the replicas' pinning service), the four-chain devnet, two gateway
// replicas (INDEXER=off) and one `launchpad indexer` process. Every part can be killed and started again
// in place (same ports, same data), which is what the fault schedule does.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { type Devnet, devnetEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { launchVested } from '../../src/devnet/launchpad.ts';
import { ChainWriter } from '../../src/devnet/writer.ts';
import { freePortRange } from '../../test/support/net.ts';
import { startPostgresCluster } from '../../test/support/postgres.ts';
import { type RpcProxy, startRpcProxy } from '../../test/support/rpcProxy.ts';

/** A child process that can be killed and started again with the same arguments. */
export interface Restartable {
  name: string;
  pid(): number;
  /** Starts it again after a kill (waits until it is ready). */
  start(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The tail of what it printed, for a failure's report. */
  tail(): string;
}

/** Spawns `command args` and waits for `ready` in its output. */
function restartable(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  opts: { uid?: number; gid?: number } = {},
): Restartable & { output: () => string } {
  let child: ChildProcess | undefined;
  let out = '';
  const start = async () => {
    out = '';
    const c = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...opts,
    });
    child = c;
    await new Promise<void>((resolve, reject) => {
      const seen = (d: Buffer) => {
        out = (out + d).slice(-20_000);
        if (ready.test(out)) resolve();
      };
      c.stdout?.on('data', seen);
      c.stderr?.on('data', seen);
      c.once('exit', (code) =>
        reject(new Error(`${name} exited ${code} while starting: ${out.slice(-2000)}`)),
      );
    });
  };
  return {
    name,
    pid: () => child?.pid ?? 0,
    start,
    async kill(signal = 'SIGKILL') {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
    tail: () => out.slice(-2000),
    output: () => out,
  };
}

export interface Rig {
  dir: string;
  devnet: Devnet;
  databaseUrl: string;
  redisUrl: string;
  ipfsHttp: string;
  replicas: (Restartable & { origin: string })[];
  indexer: Restartable;
  redis: Restartable;
  ipfs: Restartable;
  postgres: { restart(): Promise<void> };
  /** The proxy in front of chain 8453 that the second replica reads through (garbage on demand). */
  proxy: RpcProxy;
  /** The anvil process of a chain (for SIGSTOP). */
  anvilPid(chainId: number): number;
  /** Environment of a replica or of the CLI against the shared stores. */
  env: Record<string, string>;
  /** On 8453, the token whose vested allocations unlock during the run (see `startRig`). */
  vesting: { token: Address; vault: Address };
  stop(): Promise<void>;
}

/** Vested allocations that unlock during the run: one per beneficiary, a step every `everyS`. */
export interface VestingDuringRun {
  beneficiaries: Address[];
  everyS: number;
}

const DAY = 86_400;

const PINNING_TOKEN = 'soak-pinning-token';

/**
 * Starts everything; `stop` takes it all down and removes its files. The chains are deployed a day in
 * the past (a vesting step unlocks a day after its launch at the earliest), the vested token of
 * `vesting` launched then, and the clocks caught up with the wall clock before the gateways start.
 */
export async function startRig(vesting: VestingDuringRun): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-soak-'));
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pg = await startPostgresCluster({ settings: { max_connections: '300' } });
    stops.push(() => pg.stop());

    const redisPort = await freePortRange(1);
    mkdirSync(join(dir, 'redis'));
    // Counters survive a restart as in production: every write goes to the append-only file.
    const redisArgs = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
    const redis = restartable(
      'redis',
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', join(dir, 'redis'), ...redisArgs],
      {},
      /Ready to accept connections/,
    );
    await redis.start();
    stops.push(() => redis.kill('SIGTERM'));

    const [ipfsHttpPort, ipfsP2pPort] = [await freePortRange(1), await freePortRange(1)];
    const ipfs = restartable(
      'ipfs node',
      process.execPath,
      ['bin/run-ts.js', 'bench/soak/ipfsNode.ts'],
      {
        SOAK_IPFS_DIR: join(dir, 'ipfs'),
        SOAK_IPFS_HTTP_PORT: String(ipfsHttpPort),
        SOAK_IPFS_P2P_PORT: String(ipfsP2pPort),
        SOAK_IPFS_TOKEN: PINNING_TOKEN,
      },
      /ipfs node ready \S+/,
    );
    await ipfs.start();
    stops.push(() => ipfs.kill('SIGKILL'));
    const ipfsAddr = /ipfs node ready ([^,\s]+)/.exec(ipfs.output())?.[1] as string;

    const devnet = await startDevnet({
      dataDir: join(dir, 'devnet'),
      basePort: await freePortRange(4),
      behindS: DAY,
      // The fresh index at the end reads each launch at its block: every state of the run is kept.
      keepStates: 100_000,
    });
    stops.push(() => devnet.stop());
    const base = devnet.chains.find((c) => c.chain_id === 8453) as Devnet['chains'][number];
    const vested = await launchVestedDuringRun(base, vesting);
    await devnet.catchUpClock();
    const proxy = await startRpcProxy(base.rpc_url);
    stops.push(() => proxy.close());

    const env: Record<string, string> = {
      ...devnetEnv(devnet, join(dir, 'devnet')),
      DATABASE_URL: pg.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DEVNET: 'off',
      LOG_LEVEL: 'warn',
      INDEXER: 'off',
      IPFS_NETWORK: 'off',
      IPFS_PEERS: ipfsAddr,
      PINNING_URL: `http://127.0.0.1:${ipfsHttpPort}`,
      PINNING_TOKEN,
      WEBHOOKS_ALLOW_LOCAL: 'on',
      WEBHOOK_RETRY_BASE_MS: '500',
    };
    const replicas: Rig['replicas'] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePortRange(1);
      const replica = Object.assign(
        restartable(
          `replica ${i + 1}`,
          process.execPath,
          ['bin/launchpad.js', 'start'],
          {
            ...env,
            PORT: String(port),
            LAUNCHPAD_DATA_DIR: join(dir, `replica-${i + 1}`),
            // The second replica reads chain 8453 through the proxy that can answer garbage.
            ...(i === 1 ? { RPC_URL_8453: proxy.url } : {}),
          },
          /ready at http/,
        ),
        { origin: `http://127.0.0.1:${port}` },
      );
      await replica.start();
      stops.push(() => replica.kill('SIGTERM'));
      replicas.push(replica);
    }
    const indexer = restartable(
      'indexer',
      process.execPath,
      ['bin/launchpad.js', 'indexer'],
      { ...env, INDEXER_POLL_MS: '250', MARKET_REFRESH_S: '10', LAUNCHPAD_DATA_DIR: join(dir, 'indexer') },
      /indexer running/,
    );
    await indexer.start();
    stops.push(() => indexer.kill('SIGTERM'));

    const ports = new Map(devnet.chains.map((c) => [c.chain_id as number, new URL(c.rpc_url).port]));
    return {
      dir,
      devnet,
      databaseUrl: pg.url,
      redisUrl: env.REDIS_URL as string,
      ipfsHttp: `http://127.0.0.1:${ipfsHttpPort}`,
      replicas,
      indexer,
      redis: redis,
      ipfs,
      postgres: { restart: () => pg.restart(500) },
      proxy,
      anvilPid: (chainId) => anvilPid(ports.get(chainId) as string),
      env,
      vesting: vested,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** On the historical suite: each beneficiary's steps unlock one every `everyS`, the first at once. */
async function launchVestedDuringRun(chain: Devnet['chains'][number], opts: VestingDuringRun) {
  const suite = chain.suites.find((s) => s.contracts.vesting_vault)?.contracts;
  if (!suite?.vesting_vault) throw new Error('the devnet has no vesting vault on 8453');
  // The factory allows 128 steps per launch, 24 per allocation.
  const n = Math.min(24, Math.floor(128 / opts.beneficiaries.length));
  const token = await launchVested(new ChainWriter(chain.rpc_url, chain.accounts[0] as Address), {
    factory: suite.factory,
    tokenDeployer: suite.token_deployer,
    name: 'Soak Vested',
    symbol: 'SOAKV',
    vested: opts.beneficiaries.map((beneficiary) => ({
      beneficiary,
      amount: BigInt(n) * 10n ** 21n,
      steps: Array.from({ length: n }, (_, k) => ({
        delay: DAY + k * opts.everyS,
        cumulativeBps: k === n - 1 ? 10_000 : Math.floor(((k + 1) * 10_000) / n),
      })),
    })),
  });
  return { token, vault: suite.vesting_vault };
}

/** The pid of the anvil listening on `port` (the devnet runs it under a small sh guard). */
function anvilPid(port: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (/anvil$/.test(args[0] ?? '') && args[args.indexOf('--port') + 1] === port) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no anvil on port ${port}`);
}
