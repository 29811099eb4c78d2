// A real redis-server on 127.0.0.1 (a free port, no persistence) for one test file.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './net.ts';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A redis-server; `port` starts it again where a stopped one was. */
export async function startRedis(port?: number): Promise<TestRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('error', (err) =>
      reject(new Error(`redis-server could not start (install redis-server): ${err.message}`)),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
