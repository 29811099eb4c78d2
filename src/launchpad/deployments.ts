// The deployment manifests the gateway serves: one per chain, from MANIFESTS_DIR (the production ones in
// deployments/, or the devnet's when it is embedded). A chain without a manifest has no suites.
import { existsSync } from 'node:fs';
import type { ChainId } from './chains.ts';
import { type ChainManifest, loadManifests } from './manifest.ts';

export class Deployments {
  private readonly byChain = new Map<ChainId, ChainManifest>();
  private quotes: Map<string, ChainManifest['quotes'][number]> | undefined;

  constructor(manifests: ChainManifest[]) {
    for (const m of manifests) {
      if (this.byChain.has(m.chain_id as ChainId)) throw new Error(`two manifests for chain ${m.chain_id}`);
      this.byChain.set(m.chain_id as ChainId, m);
    }
  }

  static load(dir: string): Deployments {
    return new Deployments(existsSync(dir) ? loadManifests(dir) : []);
  }

  /** A copy with contract fields of suites filled in (the ones marked from_factory, read at start). */
  withResolved(
    resolved: { chainId: ChainId; suiteId: string; field: string; address: string }[],
  ): Deployments {
    const manifests = [...this.byChain.values()].map((m) => structuredClone(m));
    for (const r of resolved) {
      const suite = manifests.find((m) => m.chain_id === r.chainId)?.suites.find((s) => s.id === r.suiteId);
      if (suite) (suite.contracts as Record<string, string>)[r.field] = r.address;
    }
    return new Deployments(manifests);
  }

  get(chainId: ChainId): ChainManifest | undefined {
    return this.byChain.get(chainId);
  }

  /** A suite's quote entry by address (quotes are listed per suite); looked up by map, it is on every read path. */
  quote(chainId: ChainId, suiteId: string, address: string): ChainManifest['quotes'][number] | undefined {
    if (!this.quotes) {
      this.quotes = new Map();
      for (const [id, m] of this.byChain)
        for (const q of m.quotes) this.quotes.set(`${id}:${q.suite_id}:${q.address.toLowerCase()}`, q);
    }
    return this.quotes.get(`${chainId}:${suiteId}:${address.toLowerCase()}`);
  }
}
