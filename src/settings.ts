// Environment -> typed settings, in one place. Nothing else reads process.env.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHAIN_IDS, type ChainId } from './launchpad/chains.ts';

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  /** postgres://… or undefined for the SQLite file in the data dir. */
  databaseUrl: string | undefined;
  /**
   * PostgreSQL: `on` sends reads as named prepared statements; `off` sends every statement unnamed (for a
   * transaction-mode pooler that does not track prepared statements).
   */
  databasePrepared: 'on' | 'off';
  keyPrefix: string;
  /** Public base of the gateway (no trailing slash), used for docs links when DOCS_URL is unset. */
  publicUrl: string;
  docsUrl: string;
  bodyLimitBytes: number;
  rpcUrls: Partial<Record<ChainId, string[]>>;
  rpcTimeoutMs: number;
  logLevel: string;
  shutdownTimeoutMs: number;
  /** Proxies (IPs or CIDRs) whose X-Forwarded-For is believed for the client address. */
  trustedProxies: string[];
  /** redis://… for limits shared by every replica; unset = in-process limits. */
  redisUrl: string | undefined;
  /** First port of the local devnet (`launchpad devnet`): chains 8453, 4663, 143, 5042 on +0..3. */
  devnetPort: number;
  /** Seconds between the devnet's empty blocks while idle (0: blocks only for transactions). */
  devnetBlockTimeS: number;
  /** `auto`: run the embedded devnet when no RPC_URL_* is set; `off`: never (chains without RPC stay unavailable). */
  devnet: 'auto' | 'off';
  /** Deployment manifests (one JSON per chain): the production ones, or the devnet's when it is embedded. */
  manifestsDir: string;
  /** `embedded`: `launchpad start` runs the chain indexer in process; `off`: another process indexes. */
  indexer: 'embedded' | 'off';
  indexerPollMs: number;
  /** How often the indexer refreshes market data; values older than twice this are served as `stale`. */
  marketRefreshMs: number;
  /** How long identical list requests share one read (0: every request reads); see operations/sharedPages. */
  pageShareMs: number;
  /** HMAC secret of quote ids; unset = generated once in the data dir. Never logged. */
  quoteSecret?: string;
  /** Bearer token of /metrics; unset = no metrics endpoint. */
  metricsToken?: string;
  /** How often each chain's RPC is probed for /v1/health. */
  healthProbeMs: number;
  /** The QUOTE_SECRET before a rotation: still accepted for the quote lifetime after start. */
  quoteSecretPrevious?: string;
  /** How long a prepared plan stays valid: launch, claim and metadata plans, and swap plans. */
  planLifetimeMs: { default: number; swap: number };
  /** LIMITS=off disables rate limits and quotas entirely. */
  limitsOff: boolean;
  /** `on`: the IPFS node joins the public network and announces pins; `off`: loopback and IPFS_PEERS only. */
  ipfsNetwork: 'on' | 'off';
  ipfsListen: string[];
  ipfsPeers: string[];
  ipfsGatewayUrl: string | undefined;
  /** How long a document (or image) not pinned here is looked for on IPFS. */
  ipfsFetchTimeoutMs: number;
  /** The operator's IPFS Pinning Service API endpoint; the token is never logged. */
  pinning: { url: string; token: string; timeoutMs: number } | undefined;
  /** The event stream (GET /v1/events): see README, "Events". */
  events: {
    /** Streams open at once across the service (per key: the plan's). */
    maxStreams: number;
    /** A comment line to every stream this often. */
    heartbeatMs: number;
    /** The journal is read this often besides its wake-ups. */
    pollMs: number;
    /** Bytes a client may leave unread before its stream is ended. */
    maxBufferedBytes: number;
    /** Journal rows kept per chain (resume points older than that are cursor_stale). */
    retain: number;
  };
  /** Webhook deliveries: see README, "Webhooks". */
  webhooks: {
    /** `off`: this process delivers nothing (another replica does); endpoints can still be managed. */
    dispatcher: 'on' | 'off';
    /** http:// and loopback receivers allowed (on by default on the devnet only). */
    allowLocal: boolean;
    pollMs: number;
    retryBaseMs: number;
    retryWindowMs: number;
  };
}

export class SettingsError extends Error {}

/** The committed production manifests. */
export const PRODUCTION_MANIFESTS = fileURLToPath(new URL('../deployments', import.meta.url));

function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new SettingsError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new SettingsError(`${name} must be between ${min} and ${max}`);
  return value;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 8080, 0, 65535);
  const keyPrefix = env.KEY_PREFIX ?? 'lp_';
  if (!/^[a-z0-9]{0,16}_?$/.test(keyPrefix)) {
    throw new SettingsError(
      'KEY_PREFIX must be up to 16 lowercase letters or digits, optionally ending in "_"',
    );
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new SettingsError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  const rpcUrls: Settings['rpcUrls'] = {};
  for (const chainId of CHAIN_IDS) {
    const raw = env[`RPC_URL_${chainId}`];
    if (!raw) continue;
    const urls = raw
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    for (const url of urls) {
      if (!/^(https?|wss?):\/\//.test(url)) throw new SettingsError(`RPC_URL_${chainId} has an invalid URL`);
    }
    rpcUrls[chainId] = urls;
  }
  const pinningUrl = env.PINNING_URL || undefined;
  if (pinningUrl && !/^https?:\/\//.test(pinningUrl))
    throw new SettingsError('PINNING_URL must be an http(s) URL');
  if (pinningUrl && !env.PINNING_TOKEN) throw new SettingsError('PINNING_URL needs PINNING_TOKEN');
  const ipfsGatewayUrl = env.IPFS_GATEWAY_URL || undefined;
  if (ipfsGatewayUrl && !/^https?:\/\//.test(ipfsGatewayUrl)) {
    throw new SettingsError('IPFS_GATEWAY_URL must be an http(s) URL');
  }
  const manifestsDir = resolve(env.MANIFESTS_DIR || PRODUCTION_MANIFESTS);
  const devnet = devnetMode(env.DEVNET);
  // The devnet's content is of no use to the world: there the node stays off the public network by default.
  const onDevnet =
    manifestsDir !== PRODUCTION_MANIFESTS || (devnet === 'auto' && Object.keys(rpcUrls).length === 0);
  const ipfsNetwork = onOff(env, 'IPFS_NETWORK', onDevnet ? 'off' : 'on');
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = trimSlash(env.PUBLIC_URL || `http://${displayHost}:${port}`);
  return {
    host,
    port,
    dataDir: resolve(env.LAUNCHPAD_DATA_DIR || './.launchpad'),
    databaseUrl,
    databasePrepared: onOff(env, 'DATABASE_PREPARED', 'on'),
    keyPrefix,
    publicUrl,
    docsUrl: trimSlash(env.DOCS_URL || publicUrl),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 4 * 1024 * 1024, 1024),
    rpcUrls,
    rpcTimeoutMs: int(env, 'RPC_TIMEOUT_MS', 5000, 1),
    logLevel: env.LOG_LEVEL || 'info',
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 1),
    trustedProxies: list(env.TRUSTED_PROXIES) ?? [],
    redisUrl: env.REDIS_URL || undefined,
    limitsOff: env.LIMITS === 'off',
    devnetPort: int(env, 'DEVNET_PORT', 8545, 1, 65532),
    devnetBlockTimeS: int(env, 'DEVNET_BLOCK_TIME_S', 2, 0, 60),
    devnet,
    manifestsDir,
    ipfsNetwork,
    ipfsListen: list(env.IPFS_LISTEN) ?? [
      ipfsNetwork === 'on' ? '/ip4/0.0.0.0/tcp/4001' : '/ip4/127.0.0.1/tcp/0',
    ],
    ipfsPeers: list(env.IPFS_PEERS) ?? [],
    ipfsGatewayUrl: ipfsGatewayUrl && trimSlash(ipfsGatewayUrl),
    ipfsFetchTimeoutMs: int(env, 'IPFS_FETCH_TIMEOUT_MS', 5000, 10, 120_000),
    pinning: pinningUrl
      ? {
          url: trimSlash(pinningUrl),
          token: env.PINNING_TOKEN as string,
          timeoutMs: int(env, 'PINNING_TIMEOUT_MS', 60_000, 100, 600_000),
        }
      : undefined,
    quoteSecret: env.QUOTE_SECRET || undefined,
    healthProbeMs: int(env, 'HEALTH_PROBE_MS', 2000, 50, 3_600_000),
    metricsToken: env.METRICS_TOKEN || undefined,
    quoteSecretPrevious: env.QUOTE_SECRET_PREVIOUS || undefined,
    indexer: env.INDEXER === 'off' ? 'off' : 'embedded',
    indexerPollMs: int(env, 'INDEXER_POLL_MS', 1000, 10, 60_000),
    marketRefreshMs: int(env, 'MARKET_REFRESH_S', 30, 1, 3600) * 1000,
    pageShareMs: int(env, 'PAGE_SHARE_MS', 250, 0, 1000),
    planLifetimeMs: {
      default: int(env, 'PLAN_LIFETIME_S', 900, 10, 86_400) * 1000,
      swap: int(env, 'SWAP_PLAN_LIFETIME_S', 120, 10, 3600) * 1000,
    },
    events: {
      maxStreams: int(env, 'EVENTS_MAX_STREAMS', 10_000, 1, 1_000_000),
      heartbeatMs: int(env, 'EVENTS_HEARTBEAT_MS', 15_000, 100, 300_000),
      pollMs: int(env, 'EVENTS_POLL_MS', 1000, 10, 60_000),
      maxBufferedBytes: int(env, 'EVENTS_MAX_BUFFER_BYTES', 1024 * 1024, 4096, 1024 ** 3),
      retain: int(env, 'EVENTS_RETAIN', 500_000, 1000),
    },
    webhooks: {
      dispatcher: onOff(env, 'WEBHOOKS', 'on'),
      allowLocal: onOff(env, 'WEBHOOKS_ALLOW_LOCAL', onDevnet ? 'on' : 'off') === 'on',
      pollMs: int(env, 'WEBHOOK_POLL_MS', 500, 10, 60_000),
      retryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
      retryWindowMs: int(env, 'WEBHOOK_RETRY_WINDOW_S', 86_400, 1, 30 * 86_400) * 1000,
    },
  };
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: 'on' | 'off'): 'on' | 'off' {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (value === 'on' || value === 'off') return value;
  throw new SettingsError(`${name} must be on or off`);
}

/** A comma-separated list, or undefined when unset. */
function list(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

function devnetMode(value: string | undefined): 'auto' | 'off' {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'off') return 'off';
  throw new SettingsError('DEVNET must be auto or off');
}
