// One viem client per configured RPC URL of each chain (RPC_URL_<chain_id>, comma-separated).
import { createPublicClient, http, type PublicClient } from 'viem';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Settings } from '../settings.ts';

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
  private readonly clients = new Map<ChainId, PublicClient[]>();

  constructor(rpcUrls: Settings['rpcUrls'], timeoutMs: number) {
    for (const chainId of CHAIN_IDS) {
      const urls = rpcUrls[chainId] ?? [];
      if (urls.length === 0) continue;
      this.clients.set(
        chainId,
        urls.map((url) =>
          createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) }),
        ),
      );
    }
  }

  isConfigured(chainId: ChainId): boolean {
    return this.clients.has(chainId);
  }

  /** Asks every provider of the chain for its head block; the chain is ok when one answers. */
  async probe(chainId: ChainId): Promise<ChainProbe> {
    const clients = this.clients.get(chainId) ?? [];
    if (clients.length === 0) {
      return { chain_id: chainId, rpc: 'not_configured', providers_ok: 0, providers: 0, head_block: null };
    }
    const results = await Promise.allSettled(clients.map((c) => c.getBlockNumber({ cacheTime: 0 })));
    const heads = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const head = heads.reduce<bigint | null>((max, h) => (max === null || h > max ? h : max), null);
    return {
      chain_id: chainId,
      rpc: heads.length > 0 ? 'ok' : 'down',
      providers_ok: heads.length,
      providers: clients.length,
      head_block: head === null ? null : head.toString(),
    };
  }
}
