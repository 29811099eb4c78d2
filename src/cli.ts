// launchpad start | keys create|list|revoke | migrate | openapi
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ChainClients } from './chain/clients.ts';
import { systemClock } from './clock.ts';
import { MemoryBackend } from './http/limits/backend.ts';
import { Limiter, openLimiter } from './http/limits/limits.ts';
import { PLAN_LIMITS } from './http/limits/plans.ts';
import { type Devnet, startDevnet } from './devnet/devnet.ts';
import { startIndexer } from './indexer/indexer.ts';
import { SaltMiner } from './launchpad/saltMiner.ts';
import { CHAIN_IDS } from './launchpad/chains.ts';
import { Deployments } from './launchpad/deployments.ts';
import { buildServer } from './server.ts';
import { loadSettings, type Settings, SettingsError } from './settings.ts';
import { ApiKeyStore, describeKey, KeyOptionError, PLANS, type PlanName } from './store/apiKeys.ts';
import { openDatabase } from './store/db.ts';

const USAGE = `usage:
  launchpad start                     run the gateway (HOST, PORT, LAUNCHPAD_DATA_DIR, DATABASE_URL, RPC_URL_<id>, …);
                                      without any RPC_URL_<id> it runs the local devnet too
  launchpad keys create --plan <${PLANS.join('|')}> --scopes <list or '*'> [--origin <url>]... [--expires <iso>]
                        [--limits '<json>'] [--json]
  launchpad keys limits <key_id> '<json>'  per-key overrides of unitsPerMinute, burstPerSecond, daily, monthly, maxPage
  launchpad keys list [--json]
  launchpad keys revoke <key_id>
  launchpad devnet                    run the local devnet alone (anvil per chain, Uniswap v4, launchpad suites) until stopped
  launchpad indexer                   run the chain indexer alone (with INDEXER=off on the gateways); on PostgreSQL
                                      several may run, one writes each chain
  launchpad migrate                   apply database migrations and exit
  launchpad openapi                   print the OpenAPI document`;

/**
 * Without any RPC_URL_*, the gateway brings up the local devnet (one anvil per chain, everything
 * deployed) and talks to it; the devnet stops with the gateway.
 */
async function embeddedDevnet(settings: Settings): Promise<{ settings: Settings; devnet?: Devnet }> {
  if (settings.devnet === 'off' || Object.keys(settings.rpcUrls).length > 0) return { settings };
  const devnet = await startDevnet({ dataDir: settings.dataDir, basePort: settings.devnetPort });
  const rpcUrls = Object.fromEntries(devnet.chains.map((c) => [c.chain_id, [c.rpc_url]]));
  process.stdout.write(
    `no RPC_URL_* set: devnet ready in ${devnet.bootMs} ms (chains ${devnet.chains
      .map((c) => `${c.chain_id} at ${c.rpc_url}`)
      .join(', ')}); ${join(settings.dataDir, 'devnet.json')} written\n`,
  );
  return { settings: { ...settings, rpcUrls, manifestsDir: join(settings.dataDir, 'deployments') }, devnet };
}

async function start() {
  const { settings, devnet } = await embeddedDevnet(loadSettings());
  try {
    await serve(settings, devnet);
  } catch (err) {
    await devnet?.stop();
    throw err;
  }
}

async function serve(settings: Settings, devnet: Devnet | undefined) {
  const database = await openDatabase(settings);
  const chains = new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs);
  const limiter = await openLimiter(settings, systemClock);
  // Warm the salt-mining worker now, so the first launch does not pay its start-up.
  const saltMiner = new SaltMiner();
  saltMiner.warm();
  const app = await buildServer({ settings, database, chains, clock: systemClock, limiter, saltMiner });
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
  const indexer =
    settings.indexer === 'embedded'
      ? startIndexer({
          database,
          chains,
          deployments: Deployments.load(settings.manifestsDir),
          chainIds: [...CHAIN_IDS],
          pollMs: settings.indexerPollMs,
          marketRefreshMs: settings.marketRefreshMs,
          onError: (err) => app.log.warn({ err }, 'indexer step failed; retrying'),
        })
      : undefined;
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ host: settings.host, port: settings.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  process.stdout.write(`launchpad gateway ready at http://${host}:${port}/v1\n`);
}

/** Per-key limit overrides: positive whole numbers for the plan fields only. */
function parseOverrides(json: string): Record<string, number> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new KeyOptionError('limits must be a JSON object');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new KeyOptionError('limits must be a JSON object');
  const allowed = Object.keys(PLAN_LIMITS.developer);
  for (const [field, n] of Object.entries(value)) {
    if (!allowed.includes(field))
      throw new KeyOptionError(`unknown limit ${field} (known: ${allowed.join(', ')})`);
    if (!Number.isInteger(n) || (n as number) <= 0)
      throw new KeyOptionError(`${field} must be a positive whole number`);
  }
  return value as Record<string, number>;
}

async function keys(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      scopes: { type: 'string' },
      origin: { type: 'string', multiple: true },
      expires: { type: 'string' },
      limits: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
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
      const all = (await store.list()).map(describeKey);
      if (values.json) process.stdout.write(`${JSON.stringify(all)}\n`);
      else
        for (const k of all)
          process.stdout.write(
            `${k.key_id}  ${k.status.padEnd(7)}  ${k.plan.padEnd(10)}  ${k.scopes.join(',')}\n`,
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
    } else {
      throw new KeyOptionError(USAGE);
    }
  } finally {
    await database.close();
  }
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return start();
    case 'keys':
      return keys(rest);
    case 'devnet': {
      const settings = loadSettings();
      const devnet = await startDevnet({ dataDir: settings.dataDir, basePort: settings.devnetPort });
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
      const database = await openDatabase(settings);
      const indexer = startIndexer({
        database,
        chains: new ChainClients(settings.rpcUrls, settings.rpcTimeoutMs),
        deployments: Deployments.load(settings.manifestsDir),
        chainIds: [...CHAIN_IDS],
        pollMs: settings.indexerPollMs,
        marketRefreshMs: settings.marketRefreshMs,
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
      const settings = loadSettings();
      const database = await openDatabase(settings);
      const app = await buildServer({
        settings,
        database,
        chains: new ChainClients({}, settings.rpcTimeoutMs),
        clock: systemClock,
        limiter: new Limiter(new MemoryBackend(), systemClock),
        logger: false,
      });
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      process.stdout.write(`${res.body}\n`);
      await app.close();
      await database.close();
      return;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof SettingsError ||
    err instanceof KeyOptionError ||
    (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    process.stderr.write(`launchpad: ${(err as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`launchpad: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
