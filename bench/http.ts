// Transport benchmark: a bare fastify hello route (the ceiling) against GET /v1/health and the
// authenticated GET /v1/config?include=chains, all started in this run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, printLoads, startServer } from './support.ts';

export async function benchHttp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
  const env = { LAUNCHPAD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  const hello = await startServer(['bin/run-ts.js', 'bench/helloServer.ts']);
  const ceiling = await load('bare fastify hello (ceiling)', `${hello.url}/hello`);
  await hello.stop();

  const key = JSON.parse(
    execFileSync(
      process.execPath,
      ['bin/launchpad.js', 'keys', 'create', '--plan', 'builder', '--scopes', '*', '--json'],
      {
        env: { ...process.env, ...env },
      },
    ).toString(),
  ).key as string;
  const gateway = await startServer(['bin/launchpad.js', 'start'], env);
  const health = await load('GET /v1/health', `${gateway.url}/v1/health`);
  const config = await load(
    'GET /v1/config?chain_id=8453&include=chains (keyed)',
    `${gateway.url}/v1/config?chain_id=8453&include=chains`,
    {
      'x-api-key': key,
    },
  );
  await gateway.stop();
  rmSync(dataDir, { recursive: true, force: true });

  printLoads('HTTP transport', [ceiling, health, config], ceiling);
  const ratio = config.rps / ceiling.rps;
  console.log(
    `\nauthenticated / ceiling = ${ratio.toFixed(2)} (target >= 0.50): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
}
