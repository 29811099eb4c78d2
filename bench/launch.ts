// Launch prepare against the devnet with a 100 KB PNG: p50/p99 and where the time goes (Server-Timing:
// pinning, chain reads, salt mining, simulation). Salt mining speed against a baseline measured in the
// same run: raw keccak256 of the same two hashes a candidate needs (scoped salt, then CREATE2 address).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { zeroAddress } from 'viem';
import { mineCreate2Salt, wasmKeccak } from '../src/chain/create2.ts';
import { startDevnet } from '../src/devnet/devnet.ts';
import { createBenchKey, median, ROUNDS, startServer, devnetGatewayEnv, target } from './support.ts';
import { freePortRange } from '../test/support/net.ts';

const REQUESTS = 40;

/** A real PNG of random RGB pixels, about 100 KB (random pixels do not compress). */
function png100k(): Buffer {
  const side = 185;
  const rows = Buffer.concat(
    Array.from({ length: side }, () => Buffer.concat([Buffer.from([0]), randomBytes(side * 3)])),
  );
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;

/** Candidates/s of the miner with the worker's WebAssembly keccak, and that keccak's raw rate for the same two hashes. */
async function miningSpeed(): Promise<{ candidates: number; raw: number; viem: number }> {
  const keccak = await wasmKeccak();
  const tries = 200_000;
  const deployer = '0x553BED26A78b94862e53945941e4ad6E4F2497da';
  const hash = `0x${'11'.repeat(32)}` as const;
  let t = performance.now();
  try {
    mineCreate2Salt({
      deployer,
      initCodeHash: hash,
      scope: new Uint8Array(32),
      accept: () => false,
      maxTries: tries,
      keccak,
    });
  } catch {
    // no salt accepted, by design: every candidate is tried
  }
  const candidates = tries / ((performance.now() - t) / 1000);
  // The JavaScript keccak the miner used before, for the before/after ratio.
  t = performance.now();
  try {
    mineCreate2Salt({
      deployer,
      initCodeHash: hash,
      scope: new Uint8Array(32),
      accept: () => false,
      maxTries: tries / 10,
    });
  } catch {
    // as above
  }
  const viem = tries / 10 / ((performance.now() - t) / 1000);
  const a = new Uint8Array(64);
  const b = new Uint8Array(85);
  t = performance.now();
  for (let i = 0; i < tries; i++) {
    a[63] = i & 0xff;
    keccak(a);
    b[84] = i & 0xff;
    keccak(b);
  }
  const raw = tries / ((performance.now() - t) / 1000);
  return { candidates, raw, viem };
}

export async function benchLaunch() {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-launch-'));
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const env = devnetGatewayEnv(devnet, dataDir);
  const key = createBenchKey(env, dataDir);
  const gateway = await startServer(['bin/launchpad.js', 'start'], env);
  const image = png100k().toString('base64');
  // Robinhood chain (4663): an ERC-20-mode suite, so mining is the worker's CREATE2 search (Base's devnet
  // suite is B20, where mining is batched getB20Address calls to the node).
  const creator = devnet.chains[1]?.accounts[1] as string;
  try {
    const once = async (i: number) => {
      const started = performance.now();
      const r = await fetch(`${gateway.url}/v1/launches/prepare`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({
          chain_id: 4663,
          creator,
          market: 'standard',
          quote_address: zeroAddress,
          token: { name: `Bench ${i}`, symbol: 'BNCH', image_base64: image, image_type: 'image/png' },
        }),
      });
      await r.text();
      if (r.status !== 200) throw new Error(`launch prepare answered ${r.status}`);
      const parts = Object.fromEntries(
        (r.headers.get('server-timing') ?? '').split(', ').map((p) => {
          const [name, dur] = p.split(';dur=');
          return [name, Number(dur)];
        }),
      ) as Record<string, number>;
      return { ms: performance.now() - started, parts };
    };
    for (let i = 0; i < 5; i++) await once(-i); // warm-up
    console.log(
      `\n## Launch prepare with a ${((image.length * 0.75) / 1024).toFixed(0)} KB PNG on the devnet (sequential, ${REQUESTS} requests per round)`,
    );
    console.log(
      '| round | p50 ms | p99 ms | pin | chain reads | mining | simulation | other (HTTP, validation, JSON) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    const miningShares: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs: Awaited<ReturnType<typeof once>>[] = [];
      for (let i = 0; i < REQUESTS; i++) runs.push(await once(round * REQUESTS + i));
      const sorted = runs.map((r) => r.ms).sort((x, y) => x - y);
      const total = runs.reduce((s, r) => s + r.ms, 0);
      const share = (name: string) =>
        `${((runs.reduce((s, r) => s + (r.parts[name] ?? 0), 0) / total) * 100).toFixed(0)}%`;
      const known = ['pin', 'rpc', 'mine', 'simulate'].reduce(
        (s, n) => s + runs.reduce((t, r) => t + (r.parts[n] ?? 0), 0),
        0,
      );
      miningShares.push(runs.reduce((s, r) => s + (r.parts.mine ?? 0), 0) / total);
      console.log(
        `| ${round + 1} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} | ${share('pin')} | ${share('rpc')} | ${share('mine')} | ${share('simulate')} | ${(((total - known) / total) * 100).toFixed(0)}% |`,
      );
    }
    const share = median(miningShares);
    target(
      'salt mining <= 10% of a launch prepare (median of rounds)',
      `${(share * 100).toFixed(1)}%`,
      share <= 0.1,
    );
  } finally {
    await gateway.stop();
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\n## Salt mining speed (one core)');
  const speeds: { candidates: number; raw: number; viem: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { candidates, raw, viem } = await miningSpeed();
    speeds.push({ candidates, raw, viem });
    console.log(
      `round ${round + 1}: ${candidates.toFixed(0)} candidates/s with WebAssembly keccak (${(candidates / viem).toFixed(1)}× the ${viem.toFixed(0)}/s of viem's JavaScript keccak, target >= 5); raw WebAssembly keccak256 of the same two hashes: ${raw.toFixed(0)}/s; ratio ${(candidates / raw).toFixed(2)} (target >= 0.50)`,
    );
  }
  const speedup = median(speeds.map((x) => x.candidates / x.viem));
  const ofRaw = median(speeds.map((x) => x.candidates / x.raw));
  target("salt mining >= 5x viem's JavaScript keccak (median)", `${speedup.toFixed(1)}x`, speedup >= 5);
  target('salt mining >= 0.50 of the raw WebAssembly hash rate (median)', ofRaw.toFixed(2), ofRaw >= 0.5);
}
