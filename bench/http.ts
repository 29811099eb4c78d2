// Transport benchmark: a bare fastify hello route (the ceiling) against GET /v1/health and the
// authenticated GET /v1/config?include=chains. All servers run at once and are measured in interleaved
// rounds, so machine noise hits each alike; ratios are per round, and the median is reported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createBenchKey,
  type Load,
  type Server,
  load,
  median,
  printLoads,
  ROUNDS,
  startServer,
  target,
  warmUp,
} from './support.ts';

// Rounds of a few seconds swing by ±30 % on a shared 2-core machine: at least 7, for a steadier median.
const HTTP_ROUNDS = Math.max(ROUNDS, 7);

export async function benchHttp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-'));
  // Request logging off (warn) in the gateway, as the ceiling has no logger at all.
  // The IPFS node stays off the public network: this machine has none, and its retries would cost CPU.
  const env = {
    LAUNCHPAD_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DEVNET: 'off',
    IPFS_NETWORK: 'off',
  };
  const key = createBenchKey(env, dataDir);
  const gateway = await startServer(['bin/launchpad.js', 'start'], env);
  const configUrl = `${gateway.url}/v1/config?chain_id=8453&include=chains`;
  let hello: Server | undefined;
  const rounds: { ceiling: Load; shaped: Load; health: Load; config: Load }[] = [];
  let body: string | undefined;
  try {
    // For reference (no target): the keyed answer's own headers and body, served by bare fastify.
    const sample = await fetch(configUrl, { headers: { 'x-api-key': key } });
    body = await sample.text();
    const shape = {
      body,
      headers: {
        ...Object.fromEntries(
          [...sample.headers].filter(([name]) => name.startsWith('x-') || name.startsWith('ratelimit')),
        ),
        'content-type': 'application/json; charset=utf-8',
      },
    };
    hello = await startServer(['bin/run-ts.js', 'bench/helloServer.ts'], {
      HELLO_SHAPE: JSON.stringify(shape),
    });
    await warmUp(`${hello.url}/hello`);
    await warmUp(`${hello.url}/shaped`);
    await warmUp(`${gateway.url}/v1/health`);
    await warmUp(configUrl, { 'x-api-key': key });
    for (let i = 0; i < HTTP_ROUNDS; i++) {
      rounds.push({
        ceiling: await load('bare fastify hello (ceiling)', `${hello.url}/hello`, {}, hello),
        shaped: await load(
          'bare fastify answering the keyed bytes (reference)',
          `${hello.url}/shaped`,
          {},
          hello,
        ),
        health: await load('GET /v1/health', `${gateway.url}/v1/health`, {}, gateway),
        config: await load(
          'GET /v1/config?chain_id=8453&include=chains (keyed)',
          configUrl,
          { 'x-api-key': key },
          gateway,
        ),
      });
    }
  } finally {
    await hello?.stop();
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  rounds.forEach((r, i) => {
    printLoads(`HTTP transport, round ${i + 1}`, [r.ceiling, r.shaped, r.health, r.config], r.ceiling);
  });
  const ratio = median(rounds.map((r) => r.config.rps / r.ceiling.rps));
  const healthRatio = median(rounds.map((r) => r.health.rps / r.ceiling.rps));
  const cpuRatio = median(rounds.map((r) => r.ceiling.cpuUs / r.config.cpuUs));
  const shapedRatio = median(rounds.map((r) => r.shaped.rps / r.ceiling.rps));
  console.log(
    `\nmedian over ${HTTP_ROUNDS} rounds: authenticated config / ceiling by server CPU per request = ${cpuRatio.toFixed(2)}`,
  );
  console.log(
    `median over ${HTTP_ROUNDS} rounds: the keyed answer's bytes alone (${body?.length ?? 0} B body, its rate headers) / ceiling = ${shapedRatio.toFixed(2)}`,
  );
  target('keyed GET /v1/config?include=chains >= 0.50 of bare fastify', ratio.toFixed(2), ratio >= 0.5);
  target('GET /v1/health >= 0.70 of bare fastify', healthRatio.toFixed(2), healthRatio >= 0.7);
}
