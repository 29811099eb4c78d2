// The RPC endpoints of each chain (RPC_URL_<chain_id>, comma-separated, or the embedded devnet).
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Settings } from '../settings.ts';
import { RpcEndpoint } from './rpc.ts';

export type RpcStatus = 'ok' | 'down' | 'not_configured';

export class ChainClients {
  private readonly byChain = new Map<ChainId, RpcEndpoint[]>();

  constructor(
    private readonly rpcUrls: Settings['rpcUrls'],
    private readonly timeoutMs: number,
  ) {
    for (const chainId of CHAIN_IDS) {
      const urls = rpcUrls[chainId] ?? [];
      if (urls.length > 0)
        this.byChain.set(
          chainId,
          urls.map((url) => new RpcEndpoint(url, timeoutMs, chainId)),
        );
    }
  }

  /** The same providers with connections (and round-trip counts) of their own, e.g. for background probes. */
  fresh(): ChainClients {
    return new ChainClients(this.rpcUrls, this.timeoutMs);
  }

  isConfigured(chainId: ChainId): boolean {
    return this.byChain.has(chainId);
  }

  endpoints(chainId: ChainId): RpcEndpoint[] {
    return this.byChain.get(chainId) ?? [];
  }
}
