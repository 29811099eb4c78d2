// Chain status for /v1/health from a background probe per chain, so health answers at once whatever the
// chains do: every HEALTH_PROBE_MS each provider is asked for its head; the last answer, the age of the
// head and the last error are kept.
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { ChainClients, RpcStatus } from './clients.ts';

export interface ChainStatus {
  chain_id: ChainId;
  rpc: RpcStatus | 'unknown';
  /** Providers that answered the last probe, of those configured. */
  providers_ok: number;
  providers: number;
  head_block: string | null;
  /** Milliseconds since the head last moved (a growing age is a stalled chain); null before a head. */
  head_age_ms: number | null;
  last_error: string | null;
  checked_at: string | null;
}

export class ChainMonitor {
  private readonly state = new Map<ChainId, ChainStatus & { headSeenAt: number | null }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Resolves when every configured chain has been probed once. */
  readonly first: Promise<void>;
  /** Whether `first` has resolved (so health need not wait for it). */
  probed = false;
  /** Counts the probes that have finished: a status read after the same count (and millisecond) is the same. */
  probes = 0;

  constructor(
    private readonly chains: ChainClients,
    private readonly intervalMs: number,
  ) {
    for (const chain_id of CHAIN_IDS) {
      const providers = chains.endpoints(chain_id).length;
      this.state.set(chain_id, {
        chain_id,
        rpc: providers === 0 ? 'not_configured' : 'unknown',
        providers_ok: 0,
        providers,
        head_block: null,
        head_age_ms: null,
        last_error: null,
        checked_at: null,
        headSeenAt: null,
      });
    }
    this.first = Promise.all(
      CHAIN_IDS.filter((id) => chains.isConfigured(id)).map((id) => this.loop(id)),
    ).then(() => {
      this.probed = true;
    });
  }

  /** Probes a chain now, then every interval until stopped; resolves after the first probe. */
  private async loop(chainId: ChainId): Promise<void> {
    await this.probe(chainId);
    const next = () => {
      if (this.stopped) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.probe(chainId).then(next);
      }, this.intervalMs);
      timer.unref();
      this.timers.add(timer);
    };
    next();
  }

  private async probe(chainId: ChainId): Promise<void> {
    const endpoints = this.chains.endpoints(chainId);
    const errors: string[] = [];
    const heads = (
      await Promise.all(
        endpoints.map((e) =>
          e.request('eth_blockNumber', []).then(
            (r) => {
              if (r.ok && typeof r.result === 'string' && /^0x[0-9a-f]+$/i.test(r.result))
                return BigInt(r.result);
              errors.push(r.ok ? 'malformed eth_blockNumber answer' : r.error.message);
              return undefined;
            },
            (err: unknown) => {
              errors.push((err as Error).message);
              return undefined;
            },
          ),
        ),
      )
    ).filter((h): h is bigint => h !== undefined);
    const s = this.state.get(chainId);
    if (!s) return;
    const head = heads.reduce<bigint | null>((max, h) => (max === null || h > max ? h : max), null);
    const now = Date.now();
    if (head !== null && head.toString() !== s.head_block) s.headSeenAt = now;
    s.rpc = heads.length > 0 ? 'ok' : 'down';
    s.providers_ok = heads.length;
    s.head_block = head === null ? s.head_block : head.toString();
    s.last_error = errors[0] ?? null;
    s.checked_at = new Date(now).toISOString();
    this.probes++;
  }

  /** Every chain's last known status. */
  status(now = Date.now()): ChainStatus[] {
    return [...this.state.values()].map(({ headSeenAt, ...s }) => ({
      ...s,
      head_age_ms: headSeenAt === null ? null : now - headSeenAt,
    }));
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
