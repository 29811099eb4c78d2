// A gateway as its own process (`launchpad start`), as an operator runs replicas: it answers once its
// ready line names its address. Tests kill it (SIGKILL) or stop it (SIGTERM) themselves.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { type Devnet, devnetEnv } from '../../src/devnet/devnet.ts';
import { tempDir } from './tempDir.ts';

export interface Replica {
  origin: string;
  child: ChildProcess;
}

/** `launchpad start` with `env` (a data dir of its own unless it names one). */
export async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, ['bin/launchpad.js', 'start'], {
    env: { ...process.env, LAUNCHPAD_DATA_DIR: tempDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d) => (out += d));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /ready at (http:\/\/[^\s]+)\/v1/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`replica exited ${code}: ${out}`)));
  });
  return { origin, child };
}

/** A key made with `launchpad keys create` against `env`'s database (every scope, `limits` overrides). */
export async function createKeyWithCli(
  env: Record<string, string>,
  plan: string,
  limits: object = {},
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      'bin/launchpad.js',
      'keys',
      'create',
      '--plan',
      plan,
      '--scopes',
      '*',
      '--limits',
      JSON.stringify(limits),
      '--json',
    ],
    { env: { ...process.env, ...env, LAUNCHPAD_DATA_DIR: tempDir() } },
  );
  return JSON.parse(stdout).key as string;
}

/** Replicas of one environment, remembered so that a suite kills them all at its end. */
export function replicaPool(env: () => Record<string, string>) {
  const all: Replica[] = [];
  return {
    all,
    async start(extra: Record<string, string> = {}): Promise<Replica> {
      const r = await startReplica({ ...env(), ...extra });
      all.push(r);
      return r;
    },
    killAll(): void {
      for (const r of all) r.child.kill('SIGKILL');
    },
  };
}

/** What every replica of a devnet shares: its RPCs and manifests, one PostgreSQL database, quiet logs. */
export function replicaEnv(
  devnet: Devnet,
  dataDir: string,
  databaseUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...devnetEnv(devnet, dataDir),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DEVNET: 'off',
    ...extra,
  };
}
