// The RPC endpoints of each chain (RPC_URL_<chain_id>, comma-separated, or the embedded devnet).
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Settings } from '../settings.ts';
import { RpcEndpoint } from './rpc.ts';

export type RpcStatus = 'ok' | 'down' | 'not_configured';

export interface ChainProbe {
  chain_id: ChainId;
  rpc: RpcStatus;
  /** Providers that answered, of those configured. */
  providers_ok: number;
  providers: number;
  head_block: string | null;
}

export class ChainClients {
  private readonly byChain = new Map<ChainId, RpcEndpoint[]>();

  constructor(rpcUrls: Settings['rpcUrls'], timeoutMs: number) {
    for (const chainId of CHAIN_IDS) {
      const urls = rpcUrls[chainId] ?? [];
      if (urls.length > 0)
        this.byChain.set(
          chainId,
          urls.map((url) => new RpcEndpoint(url, timeoutMs)),
        );
    }
  }

  isConfigured(chainId: ChainId): boolean {
    return this.byChain.has(chainId);
  }

  endpoints(chainId: ChainId): RpcEndpoint[] {
    return this.byChain.get(chainId) ?? [];
  }

  /** Asks every provider of the chain for its head block; the chain is ok when one answers. */
  async probe(chainId: ChainId): Promise<ChainProbe> {
    const endpoints = this.endpoints(chainId);
    if (endpoints.length === 0) {
      return { chain_id: chainId, rpc: 'not_configured', providers_ok: 0, providers: 0, head_block: null };
    }
    const results = await Promise.allSettled(endpoints.map((e) => e.request('eth_blockNumber', [])));
    const heads = results.flatMap((r) =>
      r.status === 'fulfilled' &&
      r.value.ok &&
      typeof r.value.result === 'string' &&
      /^0x[0-9a-f]+$/i.test(r.value.result)
        ? [BigInt(r.value.result)]
        : [],
    );
    const head = heads.reduce<bigint | null>((max, h) => (max === null || h > max ? h : max), null);
    return {
      chain_id: chainId,
      rpc: heads.length > 0 ? 'ok' : 'down',
      providers_ok: heads.length,
      providers: endpoints.length,
      head_block: head === null ? null : head.toString(),
    };
  }
}
