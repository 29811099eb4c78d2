// launchpad start | keys create|list|revoke | migrate | openapi
import { join } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ChainClients } from './chain/clients.ts';
import { systemClock } from './clock.ts';
import { openLimiter } from './http/limits/limits.ts';
import { PLAN_LIMITS } from './http/limits/plans.ts';
import { type Devnet, startDevnet } from './devnet/devnet.ts';
import { startIndexer } from './indexer/indexer.ts';
import { SaltMiner } from './launchpad/saltMiner.ts';
import { CHAIN_IDS, CHAINS, isChainId } from './launchpad/chains.ts';
import { Deployments } from './launchpad/deployments.ts';
import { DEMO_CHAIN, runDemo } from './demo.ts';
import { checkDeployments, type DeploymentCheck } from './operations/checkDeployment.ts';
import { CliError, holdLock } from './lock.ts';
import { renderOpenapi } from './openapiDocument.ts';
import { buildServer } from './server.ts';
import { servingHeap } from './heap.ts';
import { loadSettings, type Settings, SettingsError } from './settings.ts';
import { watch } from './watch.ts';
import { EventStreamError } from './client/index.ts';
import { ApiKeyStore, KeyOptionError, PLANS, type PlanName } from './store/apiKeys.ts';
import { checkLimitOverrides, keyUsage, keyView } from './operations/adminKeys.ts';
import { ApiError } from './errors.ts';
import { type Database, openDatabase } from './store/db.ts';

const COMMANDS: Record<string, { usage: string; options: ParseArgsConfig['options'] }> = {
  start: {
    usage: `launchpad start
  Runs the gateway (settings from the environment: HOST, PORT, LAUNCHPAD_DATA_DIR, DATABASE_URL,
  RPC_URL_<chain_id>, …; see the README). Without any RPC_URL_<chain_id> it runs the local devnet too.`,
    options: {},
  },
  devnet: {
    usage: `launchpad devnet
  Runs the local devnet alone (one anvil per chain, Uniswap v4, the launchpad suites) until stopped.`,
    options: {},
  },
  indexer: {
    usage: `launchpad indexer
  Runs the chain indexer alone (for gateways started with INDEXER=off); on PostgreSQL several may run,
  one writes each chain.`,
    options: {},
  },
  keys: {
    usage: `launchpad keys create --plan <${PLANS.join('|')}> --scopes <list or '*'> [--origin <url>]...
                     [--expires <iso date>] [--limits '<json>'] [--json]
launchpad keys limits <key_id> '<json>'   per-key overrides of ${Object.keys(PLAN_LIMITS.developer).join(', ')}
launchpad keys list [--json]
launchpad keys revoke <key_id>
launchpad keys usage [<key_id>] [--json] [--base-url <url> --key <admin key>]
  Units used and left this minute, day and month, and requests and 429s per route over 24 h, read from
  the limiter's counters: the shared Redis (REDIS_URL), or, for a gateway that counts in process, its
  GET /v1/admin/keys/{id}/usage through --base-url with a key of scope admin:keys.`,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      plan: { type: 'string' },
      scopes: { type: 'string' },
      origin: { type: 'string', multiple: true },
      expires: { type: 'string' },
      limits: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  },
  demo: {
    usage: `launchpad demo [--chain <8453|4663|143|5042>] [--base-url <url>] [--key <api key>]
  Walks the product against a running devnet gateway with the devnet's accounts, on one chain with its
  own suite, token mode, quote and router: config, launch, index, buy, sell through Permit2, fee claim,
  announcement, trades and holders. Exit 0 only if every step landed on chain. Defaults: chain 8453,
  http://127.0.0.1:$PORT/v1, a new developer key in the data dir's database.`,
    options: { chain: { type: 'string' }, 'base-url': { type: 'string' }, key: { type: 'string' } },
  },
  watch: {
    usage: `launchpad watch [--base-url <url>] [--key <api key>] [--chain <id>] [--types <list>]
                [--token <address>] [--confirmations <n>] [--json]
  Prints the live event feed (GET /v1/events): one readable line an event on a terminal, JSON lines
  otherwise or with --json; resumes by itself after a dropped connection. Types among launch, trade,
  announcement, fee_credit, metadata. Defaults: http://127.0.0.1:$PORT/v1, the key in LAUNCHPAD_API_KEY.`,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      chain: { type: 'string' },
      types: { type: 'string' },
      token: { type: 'string' },
      confirmations: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  },
  doctor: {
    usage: `launchpad doctor [--json]
  Proves the deployment manifests (MANIFESTS_DIR) against every chain with an RPC_URL_<chain_id>: chain
  ids, code at every address, the factory's views, quote registrations, Permit2, the PoolManager,
  StateView and quoter, first blocks, and agreement between providers. Exit 0 only when all hold.`,
    options: { json: { type: 'boolean', default: false } },
  },
  migrate: {
    usage: `launchpad migrate
  Applies the database migrations and exits.`,
    options: {},
  },
  openapi: {
    usage: `launchpad openapi
  Prints the OpenAPI document.`,
    options: {},
  },
};

const USAGE = `usage:\n${Object.values(COMMANDS)
  .map((c) => c.usage.replace(/^/gm, '  '))
  .join('\n')}\n  launchpad <command> --help`;

/** A command's flags, strictly: an unknown flag is an error that shows the command's usage. */
function parse(command: string, args: string[]) {
  const spec = COMMANDS[command] as (typeof COMMANDS)[string];
  try {
    return parseArgs({
      args,
      allowPositionals: command === 'keys',
      strict: true,
      options: { ...spec.options, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${spec.usage}`);
  }
}

class UsageError extends Error {}

/**
 * Without any RPC_URL_*, the gateway brings up the local devnet (one anvil per chain, everything
 * deployed) and talks to it; the devnet stops with the gateway.
 */
async function embeddedDevnet(settings: Settings): Promise<{ settings: Settings; devnet?: Devnet }> {
  if (settings.devnet === 'off' || Object.keys(settings.rpcUrls).length > 0) return { settings };
  const devnet = await startDevnet({
    dataDir: settings.dataDir,
    basePort: settings.devnetPort,
    blockTimeS: settings.devnetBlockTimeS,
  });
  const rpcUrls = Object.fromEntries(devnet.chains.map((c) => [c.chain_id, [c.rpc_url]]));
  process.stdout.write(
    `no RPC_URL_* set: devnet ready in ${devnet.bootMs} ms (chains ${devnet.chains
      .map((c) => `${c.chain_id} at ${c.rpc_url}`)
      .join(', ')}); ${join(settings.dataDir, 'devnet.json')} written\n`,
  );
  return { settings: { ...settings, rpcUrls, manifestsDir: join(settings.dataDir, 'deployments') }, devnet };
}

async function start() {
  const loaded = loadSettings();
  holdLock(loaded.dataDir, 'start');
  const { settings, devnet } = await embeddedDevnet(loaded);
  try {
    await serve(settings, devnet);
  } catch (err) {
    await devnet?.stop();
    throw err;
  }
}

async function serve(settings: Settings, devnet: Devnet | undefined) {
  servingHeap();
  const database = await openDatabase(settings);
  const chains = new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs);
  const limiter = await openLimiter(settings, systemClock);
  // Warm the salt-mining worker now, so the first launch does not pay its start-up.
  const saltMiner = new SaltMiner();
  saltMiner.warm();
  const { deployments, deploymentChecks } = await provenDeployments(settings, chains, devnet === undefined);
  const app = await buildServer({
    settings,
    database,
    chains,
    clock: systemClock,
    limiter,
    saltMiner,
    deployments,
    deploymentChecks,
  });
  try {
    // Every database connection opened before the first request, none while requests wait (counted
    // by /metrics, which the server installed).
    await database.warm?.();
    await app.listen({ host: settings.host, port: settings.port });
  } catch (err) {
    await app.close();
    await database.close();
    await limiter.backend.close();
    await saltMiner.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new CliError(
        `cannot listen on ${settings.host}:${settings.port} (${code === 'EADDRINUSE' ? 'the port is in use' : code}); set HOST or PORT`,
      );
    throw err;
  }
  const indexer =
    settings.indexer === 'embedded'
      ? startIndexer({
          database,
          chains,
          deployments,
          chainIds: [...CHAIN_IDS],
          pollMs: settings.indexerPollMs,
          marketRefreshMs: settings.marketRefreshMs,
          eventsRetain: settings.events.retain,
          onError: (err) => app.log.warn({ err }, 'indexer step failed; retrying'),
        })
      : undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, settings.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await indexer?.stop();
      await database.close();
      await limiter.backend.close();
      await devnet?.stop();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const origin = `http://${host}:${port}`;
  const devKey = devnet ? await firstDevKey(database, settings) : undefined;
  process.stdout.write(
    readyBanner({ origin, settings, devnet: devnet !== undefined, devKey, ipfs: app.ipfs.multiaddrs() }),
  );
}

/**
 * The manifests, and in production mode the deployment checks: the manifests proved against the chains
 * (failures are reported by /v1/health and GET /v1/config rather than met by users) and the fields they
 * leave to the factories filled in from the factories' views.
 */
async function provenDeployments(settings: Settings, chains: ChainClients, production: boolean) {
  const loaded = Deployments.load(settings.manifestsDir);
  if (!production) return { deployments: loaded, deploymentChecks: undefined };
  const { checks, resolved } = await checkDeployments({ chains, deployments: loaded }, CHAIN_IDS);
  for (const c of checks.filter((x) => !x.ok))
    process.stderr.write(
      `deployment check failed: chain ${c.chain_id} ${c.check}: expected ${c.expected}, found ${c.found}\n`,
    );
  for (const r of resolved)
    process.stdout.write(
      `chain ${r.chainId} suite ${r.suiteId}: ${r.field} read from the factory: ${r.address}\n`,
    );
  return { deployments: loaded.withResolved(resolved), deploymentChecks: checks };
}

/** On the devnet only: a development key made on the first start (when the database has no key). */
async function firstDevKey(database: Database, settings: Settings): Promise<string | undefined> {
  const store = new ApiKeyStore(database, settings.keyPrefix);
  if ((await store.list()).length > 0) return undefined;
  const { key } = await store.create({ plan: 'developer', scopes: ['*'], origins: [] });
  return key;
}

/** What a first run needs to know: where the API and its docs are, the state, the chains, a key. */
function readyBanner(o: {
  origin: string;
  settings: Settings;
  devnet: boolean;
  devKey?: string;
  ipfs: string[];
}): string {
  const chains = CHAIN_IDS.map((id) => {
    const urls = o.settings.rpcUrls[id] ?? [];
    return `    ${String(id).padEnd(5)} ${CHAINS[id].name.padEnd(16)} ${urls.length ? urls.join(', ') : '(no RPC_URL_' + id + ')'}`;
  });
  const key = o.devKey
    ? [
        `  API key   ${o.devKey}`,
        '            (devnet only: a development key made on this first start; it is shown once)',
      ]
    : [
        "  API key   npx launchpad keys create --plan developer --scopes '*'",
        `            (same LAUNCHPAD_DATA_DIR${o.settings.databaseUrl ? ' and DATABASE_URL' : ''})`,
      ];
  return [
    `launchpad gateway ready at ${o.origin}/v1`,
    `  docs      ${o.origin}/docs`,
    `  data dir  ${o.settings.dataDir}${o.settings.databaseUrl ? ' (database: PostgreSQL)' : ''}`,
    `  ipfs      ${o.ipfs[0] ?? '(not listening)'} (IPFS_NETWORK=${o.settings.ipfsNetwork})`,
    `  chains${o.devnet ? '    (local devnet)' : ''}`,
    ...chains,
    ...key,
    `  try       curl -H "x-api-key: <key>" '${o.origin}/v1/config?chain_id=8453&include=chains'`,
    o.devnet ? '  demo      npm run demo   (walks launch, swaps, claims on the devnet)' : '',
  ]
    .filter((l) => l !== '')
    .map((l) => `${l}\n`)
    .join('');
}

/** `launchpad doctor`: the deployment checks as a table (or JSON); exit 1 when one fails. */
async function doctor(json: boolean) {
  const settings = loadSettings();
  if (Object.keys(settings.rpcUrls).length === 0)
    throw new SettingsError('launchpad doctor needs RPC_URL_<chain_id> for the chains it checks');
  const deps = {
    chains: new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs),
    deployments: Deployments.load(settings.manifestsDir),
  };
  const started = performance.now();
  const { checks } = await checkDeployments(deps, CHAIN_IDS);
  const failed = checks.filter((c) => !c.ok).length;
  if (json) process.stdout.write(`${JSON.stringify({ ok: failed === 0, checks })}\n`);
  else {
    process.stdout.write(table(checks));
    process.stdout.write(
      `${checks.length - failed} of ${checks.length} checks hold${failed ? `; ${failed} failed` : ''} (${Math.round(performance.now() - started)} ms)\n`,
    );
  }
  if (failed > 0) process.exitCode = 1;
}

/** The checks as an aligned text table; long values are shortened in the middle. */
function table(checks: DeploymentCheck[]): string {
  const cut = (v: string, n: number) => (v.length <= n ? v : `${v.slice(0, n - 12)}…${v.slice(-11)}`);
  const rows = [
    ['chain', 'check', 'expected', 'found', 'ok'],
    ...checks.map((c) => [
      String(c.chain_id),
      c.check,
      cut(c.expected, 44),
      cut(c.found, 44),
      c.ok ? 'ok' : 'FAIL',
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] as string).length))) ?? [];
  return rows
    .map(
      (r) =>
        `${r
          .map((v, i) => v.padEnd(widths[i] as number))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** `launchpad demo`: the product walked against a running devnet gateway. */
async function demo(flags: { chain?: string; 'base-url'?: string; key?: string }) {
  const chainId = flags.chain === undefined ? DEMO_CHAIN : Number(flags.chain);
  if (!isChainId(chainId))
    throw new UsageError(`--chain must be one of ${CHAIN_IDS.join(', ')}, got "${flags.chain}"`);
  const settings = loadSettings();
  const baseUrl = flags['base-url'] ?? `http://127.0.0.1:${settings.port}/v1`;
  let key = flags.key ?? process.env.LAUNCHPAD_API_KEY;
  if (!key) {
    const database = await openDatabase(settings);
    try {
      const made = await new ApiKeyStore(database, settings.keyPrefix).create({
        plan: 'developer',
        scopes: ['*'],
        origins: [],
      });
      key = made.key;
    } finally {
      await database.close();
    }
  }
  await runDemo({ baseUrl, apiKey: key, dataDir: settings.dataDir, chainId });
}

interface WatchFlags {
  'base-url'?: string;
  key?: string;
  chain?: string;
  types?: string;
  token?: string;
  confirmations?: string;
  json: boolean;
}

/** `launchpad watch`: the event feed until Ctrl-C. */
async function watchFeed(flags: WatchFlags) {
  const settings = loadSettings();
  const apiKey = flags.key ?? process.env.LAUNCHPAD_API_KEY;
  if (!apiKey)
    throw new UsageError(`launchpad watch needs --key or LAUNCHPAD_API_KEY\nusage: ${COMMANDS.watch?.usage}`);
  const whole = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  await watch({
    baseUrl: flags['base-url'] ?? `http://127.0.0.1:${settings.port}/v1`,
    apiKey,
    chainId: whole('chain', flags.chain),
    types: flags.types?.split(','),
    tokenAddress: flags.token,
    confirmations: whole('confirmations', flags.confirmations),
    json: flags.json || !process.stdout.isTTY,
    write: (line) => process.stdout.write(`${line}\n`),
    signal: stop.signal,
  }).catch((err: unknown) => {
    if (err instanceof EventStreamError) throw new CliError(`launchpad watch: ${err.message}`);
    throw err;
  });
}

/** Per-key limit overrides from the command line's JSON. */
function parseOverrides(json: string): Record<string, number> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new KeyOptionError('limits must be a JSON object');
  }
  return checkLimitOverrides(value);
}

interface KeyFlags {
  'base-url'?: string;
  key?: string;
  plan?: string;
  scopes?: string;
  origin?: string[];
  expires?: string;
  limits?: string;
  json?: boolean;
}

async function keys(values: KeyFlags, positionals: string[]) {
  const settings = loadSettings();
  const database = await openDatabase(settings);
  const store = new ApiKeyStore(database, settings.keyPrefix);
  try {
    const [action, id] = positionals;
    if (action === 'create') {
      if (!values.plan) throw new KeyOptionError('--plan is required');
      if (values.scopes === undefined)
        throw new KeyOptionError("--scopes is required (a comma list, or '*')");
      const expiresAt = values.expires ? new Date(values.expires) : undefined;
      if (expiresAt && Number.isNaN(expiresAt.getTime()))
        throw new KeyOptionError('--expires must be an ISO date');
      if (expiresAt && expiresAt.getTime() <= Date.now())
        throw new KeyOptionError(`--expires ${values.expires} is in the past`);
      const scopes = values.scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const { key, record } = await store.create({
        plan: values.plan as PlanName,
        scopes,
        origins: values.origin ?? [],
        expiresAt,
        overrides: values.limits === undefined ? {} : parseOverrides(values.limits),
      });
      if (values.json) process.stdout.write(`${JSON.stringify({ key, key_id: record.keyId })}\n`);
      else
        process.stdout.write(
          `key_id ${record.keyId}\nkey    ${key}\n(the key is shown once; store it now)\n`,
        );
    } else if (action === 'list') {
      const now = Date.now();
      const all = (await store.list()).map((r) => keyView(r, now));
      if (values.json) process.stdout.write(`${JSON.stringify(all)}\n`);
      else
        for (const k of all)
          process.stdout.write(
            `${k.key_id}  ${k.status.padEnd(7)}  ${k.plan.padEnd(10)}  ${k.scopes.join(',')}${k.expires_at ? `  expires ${k.expires_at}` : ''}\n`,
          );
    } else if (action === 'limits') {
      const json = positionals[2];
      if (!id || !/^[0-9a-f]{8}$/.test(id) || json === undefined) {
        throw new KeyOptionError(
          'keys limits needs a key id and a JSON object, e.g. \'{"unitsPerMinute":5000}\'',
        );
      }
      if (!(await store.setOverrides(id, parseOverrides(json)))) throw new KeyOptionError(`no key ${id}`);
      process.stdout.write(`limits of ${id} set (in effect within 5 s)\n`);
    } else if (action === 'revoke') {
      if (!id || !/^[0-9a-f]{8}$/.test(id))
        throw new KeyOptionError('keys revoke needs a key id (8 hex characters)');
      if (!(await store.revoke(id))) throw new KeyOptionError(`no key ${id}`);
      process.stdout.write(`revoked ${id}\n`);
    } else if (action === 'usage') {
      if (id !== undefined && !/^[0-9a-f]{8}$/.test(id))
        throw new KeyOptionError('keys usage takes a key id (8 hex characters) or none for every key');
      const ids = id ? [id] : (await store.list()).filter((r) => r.status === 'active').map((r) => r.keyId);
      const reports = await keysUsage(settings, store, values, ids);
      if (values.json) process.stdout.write(`${JSON.stringify(id ? reports[0] : reports)}\n`);
      else for (const r of reports) process.stdout.write(usageText(r));
    } else {
      throw new UsageError(`usage: ${COMMANDS.keys?.usage}`);
    }
  } finally {
    await database.close();
  }
}

type UsageReport = Awaited<ReturnType<typeof keyUsage>>;

/** Usage of each key: from the shared Redis directly, else from a running gateway's admin route. */
async function keysUsage(
  settings: ReturnType<typeof loadSettings>,
  store: ApiKeyStore,
  flags: KeyFlags,
  ids: string[],
): Promise<UsageReport[]> {
  const reports: UsageReport[] = [];
  if (flags['base-url']) {
    const key = flags.key ?? process.env.LAUNCHPAD_API_KEY;
    if (!key)
      throw new UsageError('keys usage --base-url needs --key (scope admin:keys) or LAUNCHPAD_API_KEY');
    const base = flags['base-url'].replace(/\/+$/, '');
    for (const id of ids) {
      const res = await fetch(`${base}/v1/admin/keys/${id}/usage`, { headers: { 'x-api-key': key } });
      const body = (await res.json().catch(() => ({}))) as { data?: UsageReport; detail?: string };
      if (!res.ok || !body.data)
        throw new CliError(`usage of ${id}: ${res.status} ${body.detail ?? ''}`.trim());
      reports.push(body.data);
    }
    return reports;
  }
  if (!settings.redisUrl || settings.limitsOff)
    throw new UsageError(
      'without REDIS_URL the counters live in the gateway process: pass --base-url <gateway> --key <admin key>',
    );
  const limiter = await openLimiter(settings, systemClock);
  try {
    for (const id of ids) reports.push(await keyUsage({ store, limiter, clock: systemClock }, { id }));
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(err.message);
    throw err;
  } finally {
    await limiter.backend.close();
  }
  return reports;
}

function usageText(r: UsageReport): string {
  const windows = r.windows.map((w) => `${w.window} ${w.used}/${w.limit} (${w.remaining} left)`).join('  ');
  const routes = r.operations.map(
    (o) => `    ${o.operation.padEnd(28)} ${String(o.requests).padStart(8)} requests  ${o.rejected} × 429\n`,
  );
  return `${r.key_id}  ${r.plan.padEnd(10)}  ${windows}\n${routes.join('')}`;
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  if (!(command in COMMANDS)) throw new UsageError(`unknown command ${command}\n${USAGE}`);
  const { values, positionals } = parse(command, rest);
  if (values.help) {
    process.stdout.write(`usage: ${COMMANDS[command]?.usage}\n`);
    return;
  }
  switch (command) {
    case 'start':
      return start();
    case 'keys':
      return keys(values as KeyFlags, positionals);
    case 'demo':
      return demo(values as { chain?: string; 'base-url'?: string; key?: string });
    case 'doctor':
      return doctor(Boolean((values as { json?: boolean }).json));
    case 'watch':
      return watchFeed(values as unknown as WatchFlags);
    case 'devnet': {
      const settings = loadSettings();
      holdLock(settings.dataDir, 'devnet');
      const devnet = await startDevnet({
        dataDir: settings.dataDir,
        basePort: settings.devnetPort,
        blockTimeS: settings.devnetBlockTimeS,
      });
      for (const c of devnet.chains) process.stdout.write(`chain ${c.chain_id} at ${c.rpc_url}\n`);
      process.stdout.write(`devnet ready in ${devnet.bootMs} ms; ${settings.dataDir}/devnet.json written\n`);
      const stop = () => void devnet.stop().then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      return;
    }
    case 'indexer': {
      const settings = loadSettings();
      if (Object.keys(settings.rpcUrls).length === 0) {
        throw new SettingsError('launchpad indexer needs RPC_URL_<chain_id> for the chains it indexes');
      }
      holdLock(settings.dataDir, 'indexer');
      const database = await openDatabase(settings);
      const chains = new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs);
      const { deployments } = await provenDeployments(settings, chains, true);
      const indexer = startIndexer({
        database,
        chains,
        deployments,
        chainIds: [...CHAIN_IDS],
        pollMs: settings.indexerPollMs,
        marketRefreshMs: settings.marketRefreshMs,
        eventsRetain: settings.events.retain,
        onError: (err) => process.stderr.write(`indexer step failed, retrying: ${(err as Error).message}\n`),
      });
      process.stdout.write(
        `indexer running for chains ${indexer.indexers.map((i) => i.chainId).join(', ')}\n`,
      );
      const stop = () =>
        void indexer
          .stop()
          .then(() => database.close())
          .then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      return;
    }
    case 'migrate': {
      const database = await openDatabase(loadSettings());
      await database.close();
      process.stdout.write('migrations applied\n');
      return;
    }
    case 'openapi': {
      process.stdout.write(`${await renderOpenapi(loadSettings())}\n`);
      return;
    }
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof SettingsError ||
    err instanceof KeyOptionError ||
    err instanceof UsageError ||
    (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    process.stderr.write(`launchpad: ${(err as Error).message}\n`);
    process.exit(2);
  }
  if (err instanceof CliError) {
    process.stderr.write(`launchpad: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`launchpad: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
