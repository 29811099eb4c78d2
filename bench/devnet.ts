// Devnet boot: four anvils started and Uniswap v4 + Permit2 deployed, from nothing to devnet.json.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet } from '../src/devnet/devnet.ts';
import { median } from './support.ts';

export async function benchDevnet() {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-devnet-'));
    const devnet = await startDevnet({ dataDir, basePort: 38_545 });
    times.push(devnet.bootMs);
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\n## Devnet boot (4 chains: anvil + Uniswap v4 + Permit2)');
  console.log(`boot ms per run: ${times.join(', ')}; median ${median(times)} ms (target < 5000 ms)`);
}
