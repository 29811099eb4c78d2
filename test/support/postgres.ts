// vitest global setup: a private PostgreSQL cluster (initdb in a temp dir, 127.0.0.1, a free port) for
// the storage tests, unless TEST_DATABASE_URL points at one already. Stopped and removed after the run.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './net.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** The `-c name=value` settings of a server's command line (a compose file's `command`), in order. */
export function settingsOf(command: string[]): [name: string, value: string][] {
  return command
    .filter((_, i) => command[i - 1] === '-c')
    .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]);
}

/** PostgreSQL's program `name`: on the PATH, or the newest of the Debian packages'. */
export function findBin(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, name))) return join(dir, name);
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    for (const version of readdirSync(root).sort().reverse()) {
      const bin = join(root, version, 'bin', name);
      if (existsSync(bin)) return bin;
    }
  }
  throw new Error(`PostgreSQL's ${name} was not found: install postgresql or set TEST_DATABASE_URL`);
}

function systemUser(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`running as root needs a "${name}" system user for PostgreSQL`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * A private PostgreSQL cluster on 127.0.0.1 (also used by the benchmarks); `restart` stops the server
 * and starts it again on the same port and data, `stop` removes it. With `keep`, the cluster lives in
 * that folder (made on first use) and `stop` leaves it there for the next run; `settings` are the
 * server's own (`-c name=value`), `env` its environment's additions.
 */
export async function startPostgresCluster(
  opts: { keep?: string; settings?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<{
  url: string;
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}> {
  const dir = opts.keep ?? mkdtempSync(join(tmpdir(), 'launchpad-pg-'));
  mkdirSync(dir, { recursive: true });
  // PostgreSQL refuses to run as root: run the cluster as the postgres system user when we are root.
  const owner = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const user = owner ?? {};
  if (!existsSync(join(dir, 'data', 'PG_VERSION')))
    execFileSync(
      findBin('initdb'),
      ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8'],
      { stdio: 'ignore', ...user },
    );
  const port = await freePort();
  const launch = (): ChildProcess =>
    spawn(
      findBin('postgres'),
      [
        '-D',
        join(dir, 'data'),
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        ...Object.entries(opts.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      { stdio: 'ignore', env: { ...process.env, ...opts.env }, ...user },
    );
  const pgIsReady = findBin('pg_isready');
  const ready = async (server: ChildProcess) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        execFileSync(pgIsReady, ['-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
        return;
      } catch {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error('PostgreSQL did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  let server = launch();
  await ready(server);
  const halt = async () => {
    if (server.exitCode !== null) return;
    server.kill('SIGINT'); // fast shutdown: open connections are terminated
    await new Promise((r) => server.once('exit', r));
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs = 0) {
      await halt();
      await new Promise((r) => setTimeout(r, downMs));
      server = launch();
      await ready(server);
    },
    async stop() {
      await halt();
      if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgresUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
