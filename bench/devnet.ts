// Devnet boot: four anvils started, Uniswap v4 + Permit2 + the launchpad suites deployed, devnet.json
// and manifests written. Baseline, measured in the same run: starting the four bare anvils alone.
// The first boot of a process also mines the hook salts (memoised afterwards), as `npm start` does.
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil } from '../src/devnet/anvil.ts';
import { startDevnet } from '../src/devnet/devnet.ts';
import { CHAIN_IDS } from '../src/launchpad/chains.ts';
import { median } from './support.ts';
import { freePortRange } from '../test/support/net.ts';

const EIP170_LIMIT = 24_576;

async function bareAnvils(): Promise<number> {
  const port = await freePortRange(4);
  const started = Date.now();
  const nodes = await Promise.all(CHAIN_IDS.map((id, i) => startAnvil(id, port + i)));
  const ms = Date.now() - started;
  await Promise.all(nodes.map((n) => n.stop()));
  return ms;
}

async function boot(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-devnet-'));
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return devnet.bootMs;
}

export async function benchDevnet() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const cold = await boot();
  const warm: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(await bareAnvils());
    warm.push(await boot());
  }
  console.log('\n## Devnet boot (4 chains: anvil + Uniswap v4 + Permit2 + launchpad suites)');
  console.log(`first boot of the process (includes hook salt mining): ${cold} ms (target < 5000 ms)`);
  console.log(`later boots: ${warm.join(', ')} ms; median ${median(warm)} ms`);
  console.log(`baseline, 4 bare anvils: ${bare.join(', ')} ms; median ${median(bare)} ms`);
  console.log(`boot / bare anvils (medians): ${(median(warm) / median(bare)).toFixed(2)}`);
  console.log('\n## Contract sizes (deployed bytes; EIP-170 limit 24,576)');
  const dir = join('contracts', 'artifacts');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const a = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      contractName: string;
      deployedBytes: number;
    };
    const share = ((a.deployedBytes / EIP170_LIMIT) * 100).toFixed(0);
    console.log(
      `${a.contractName.padEnd(22)} ${String(a.deployedBytes).padStart(6)}  (${share}% of the limit)`,
    );
  }
}
