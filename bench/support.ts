// Shared benchmark plumbing: servers in child processes (so the load generator does not share their
// event loop), autocannon runs, and a table printer that reports ratios against a same-run baseline.
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Server {
  url: string;
  stop(): Promise<void>;
}

/** Starts `node <args>` and waits for it to print "ready at <url>". */
export async function startServer(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
}

export async function load(name: string, url: string, headers: Record<string, string> = {}): Promise<Load> {
  // A short warm-up so JIT and caches are in their steady state.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

export function printLoads(title: string, rows: Load[], baseline: Load) {
  console.log(`\n## ${title} (${CONNECTIONS} connections, ${DURATION_S} s each, 127.0.0.1)`);
  console.log('| route | requests/s | p50 ms | p99 ms | non-2xx/errors | ratio to ceiling |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = (r.rps / baseline.rps).toFixed(2);
    console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${ratio} |`);
  }
}
