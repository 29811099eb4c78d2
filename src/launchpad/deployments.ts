// The deployment manifests the gateway serves: one per chain, from MANIFESTS_DIR (the production ones in
// deployments/, or the devnet's when it is embedded). A chain without a manifest has no suites.
import { getAddress } from 'viem';
import { existsSync } from 'node:fs';
import type { ChainId } from './chains.ts';
import { type ChainManifest, loadManifests } from './manifest.ts';

export class Deployments {
  private readonly byChain = new Map<ChainId, ChainManifest>();

  constructor(manifests: ChainManifest[]) {
    for (const m of manifests) {
      if (this.byChain.has(m.chain_id as ChainId)) throw new Error(`two manifests for chain ${m.chain_id}`);
      this.byChain.set(m.chain_id as ChainId, m);
    }
  }

  static load(dir: string): Deployments {
    return new Deployments(existsSync(dir) ? loadManifests(dir) : []);
  }

  get(chainId: ChainId): ChainManifest | undefined {
    return this.byChain.get(chainId);
  }

  /** A suite's quote entry by address (quotes are listed per suite). */
  quote(chainId: ChainId, suiteId: string, address: string): ChainManifest['quotes'][number] | undefined {
    const want = getAddress(address);
    return this.get(chainId)?.quotes.find((q) => q.suite_id === suiteId && getAddress(q.address) === want);
  }
}
