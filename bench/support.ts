// Shared benchmark plumbing: servers in child processes (so the load generator does not share their
// event loop), autocannon runs, and a table printer that reports ratios against a same-run baseline.
import { type Devnet, devnetEnv } from '../src/devnet/devnet.ts';
import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import { join } from 'node:path';
import { constants } from 'node:os';
import Sqlite from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Every target a section measured, for the summary `npm run bench` prints last. */
export const targets: { name: string; value: string; met: boolean | null }[] = [];

/** Prints and records one target: `met`, `NOT met`, or `not measured` (null) when no bench measures it. */
export function target(name: string, value: string, met: boolean | null): void {
  targets.push({ name, value, met });
  console.log(`target ${name}: ${value}: ${met === null ? 'not measured' : met ? 'met' : 'NOT met'}`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Children started in a session of their own: each is then its own scheduling group (Linux autogroup),
 * as a deployment's services are (a container's or a unit's cgroup), rather than one group with every
 * other process of the bench. No terminal's signal reaches them, so they are stopped when this process
 * ends, however it ends (its SIGINT and SIGTERM handlers, set with the first, exit through 'exit').
 */
const ownSessions = new Set<ChildProcess>();
let stoppedOnExit = false;

/** The processes whose arguments include `args` in a row (a node started with `--port N`). */
export function processesWith(args: string[]): number[] {
  const wanted = `\0${args.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/cmdline`, 'utf8')}`.includes(wanted)) found.push(Number(entry));
    } catch {
      // (It ended meanwhile.)
    }
  }
  return found;
}

/** `spawn`, in a session of its own, the child stopped with this process (see ownSessions). */
export function spawnInOwnSession(command: string, args: string[], options: SpawnOptions): ChildProcess {
  if (!stoppedOnExit) {
    stoppedOnExit = true;
    process.once('exit', () => {
      for (const child of ownSessions) child.kill('SIGTERM');
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
  const child = spawn(command, args, { ...options, detached: true });
  ownSessions.add(child);
  child.once('exit', () => ownSessions.delete(child));
  return child;
}

/** Starts `node <args>` and waits for it to print "ready at <url>" (`ownSession`: see ownSessions). */
export async function startServer(
  args: string[],
  env: Record<string, string> = {},
  { ownSession = false } = {},
): Promise<Server> {
  const options: SpawnOptions = { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] };
  const child = ownSession
    ? spawnInOwnSession(process.execPath, args, options)
    : spawn(process.execPath, args, options);
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /ready at (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve((m[1] as string).replace(/\/v1$/, ''));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return {
    url,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Load {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time per request (µs), from /proc: unlike requests/s it barely moves with machine noise. */
  cpuUs: number;
}

/** User + system CPU time of a process, in µs (Linux /proc; 0 elsewhere). */
function cpuTimeUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return (ticks * 1e6) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/**
 * Loads a URL until the server's JIT has settled. Measured on the gateway: CPU per request falls from
 * about 180 to about 55 µs over the first 4 s of load at 50 connections, so 1 s is not enough.
 */
export async function warmUp(url: string, headers: Record<string, string> = {}, seconds = 6): Promise<void> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
}

export async function load(
  name: string,
  url: string,
  headers: Record<string, string> = {},
  server?: { pid: number },
): Promise<Load> {
  // A short warm-up so JIT and caches are in their steady state.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 });
  const cpuBefore = server ? cpuTimeUs(server.pid) : 0;
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  const cpuAfter = server ? cpuTimeUs(server.pid) : 0;
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    cpuUs: r.requests.total > 0 ? (cpuAfter - cpuBefore) / r.requests.total : 0,
  };
}

export function printLoads(title: string, rows: Load[], baseline: Load) {
  console.log(`\n## ${title} (${CONNECTIONS} connections, ${DURATION_S} s each, 127.0.0.1)`);
  console.log(
    '| route | requests/s | p50 ms | p99 ms | non-2xx/errors | server CPU µs/request | ratio to baseline (requests/s) | ratio to baseline (CPU) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = (r.rps / baseline.rps).toFixed(2);
    const cpu = r.cpuUs > 0 ? (baseline.cpuUs / r.cpuUs).toFixed(2) : 'n/a';
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.cpuUs.toFixed(1)} | ${ratio} | ${cpu} |`,
    );
  }
}

/**
 * Creates a key with the CLI in `dataDir` and lifts its plan windows, so a load test measures the
 * gateway rather than the 429s of a rate limit.
 */
export function createBenchKey(env: Record<string, string>, dataDir: string): string {
  const key = JSON.parse(
    execFileSync(
      process.execPath,
      ['bin/launchpad.js', 'keys', 'create', '--plan', 'partner', '--scopes', '*', '--json'],
      { env: { ...process.env, ...env } },
    ).toString(),
  ).key as string;
  // 1e9, not more: still far beyond any run, and within the small integers production limits are.
  const lifted = JSON.stringify({ burstPerSecond: 1e9, unitsPerMinute: 1e9, daily: 1e9, monthly: 1e9 });
  const db = new Sqlite(join(dataDir, 'launchpad.sqlite'));
  db.prepare('update api_keys set overrides = ? where key_id = ?').run(lifted, key.split('_')[2]);
  db.close();
  return key;
}

/**
 * Environment of a gateway process measured against a devnet: its RPCs and manifests, request logging
 * off, and limits off (the live-read ceilings would otherwise refuse a load test).
 */
export function devnetGatewayEnv(devnet: Devnet, dataDir: string): Record<string, string> {
  return {
    LAUNCHPAD_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    LIMITS: 'off',
    ...devnetEnv(devnet, dataDir),
  };
}
