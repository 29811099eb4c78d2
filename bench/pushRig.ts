// What the push benchmarks (events, webhooks) share: PostgreSQL, the devnet, a gateway process woken by
// NOTIFY, the indexer in this process (so that a trade's commit is seen on this process's clock), a
// launched token to trade, and a wait with a bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zeroAddress } from 'viem';
import { ChainClients } from '../src/chain/clients.ts';
import { startDevnet } from '../src/devnet/devnet.ts';
import { startIndexer } from '../src/indexer/indexer.ts';
import { Deployments } from '../src/launchpad/deployments.ts';
import { loadSettings } from '../src/settings.ts';
import { ApiKeyStore } from '../src/store/apiKeys.ts';
import { openDatabase } from '../src/store/db.ts';
import { onJournalGrowth } from '../src/store/wakeups.ts';
import { TestChain } from '../test/support/chain.ts';
import { freePortRange } from '../test/support/net.ts';
import { startPostgresCluster } from '../test/support/postgres.ts';
import { devnetGatewayEnv, type Server, startServer } from './support.ts';

export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

/** Polls `done` every 10 ms for up to 30 s. */
export async function waitFor(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

export interface PushRig {
  clusterUrl: string;
  gateway: Server;
  key: string;
  /** When each transaction's events were committed by the indexer (performance.now()). */
  committed: Map<string, number>;
  /** A small buy of the rig's token; its transaction hash. */
  swap(): Promise<string>;
}

/** Runs `body` with the rig up, and takes it down after (whatever happens). */
export async function withPushRig<T>(gatewayEnv: Record<string, string>, body: (rig: PushRig) => Promise<T>) {
  const cluster = await startPostgresCluster();
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-push-'));
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const env = {
    ...devnetGatewayEnv(devnet, dataDir),
    DATABASE_URL: cluster.url,
    INDEXER: 'off',
    ...gatewayEnv,
  };
  const settings = loadSettings(env);
  const database = await openDatabase(settings);
  const chain = new TestChain(devnet.chains[0] as (typeof devnet.chains)[number]);
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const { key } = await new ApiKeyStore(database, settings.keyPrefix).create({
      plan: 'partner',
      scopes: ['*'],
      origins: [],
      overrides: { webhooks: 1000, streams: 100_000 },
    });
    const gateway = await startServer(['bin/launchpad.js', 'start'], env);
    stops.push(() => gateway.stop());
    // The indexer here announces its commits in this process: each new journal row's commit time.
    const committed = new Map<string, number>();
    let lastSeq = 0;
    let reading = Promise.resolve();
    stops.push(
      onJournalGrowth(database, () => {
        const at = performance.now();
        reading = reading.then(async () => {
          const rows = await database.db
            .selectFrom('index_events')
            .select(['seq', 'tx_hash'])
            .where('chain_id', '=', 8453)
            .where('seq', '>', lastSeq)
            .execute();
          for (const r of rows) {
            lastSeq = Math.max(lastSeq, Number(r.seq));
            if (!committed.has(r.tx_hash)) committed.set(r.tx_hash, at);
          }
        });
      }),
    );
    const indexer = startIndexer({
      database,
      chains: new ChainClients({ 8453: [chain.chain.rpc_url] }, 5000),
      deployments: Deployments.load(settings.manifestsDir),
      chainIds: [8453],
      pollMs: 20,
      marketRefreshMs: 3_600_000,
    });
    stops.push(() => indexer.stop());
    const launched = await chain.launch(chain.account(1));
    await chain.advance(21);
    const swap = async () =>
      (await chain.swap(chain.account(2), launched.key, zeroAddress, 10n ** 14n)).transactionHash;
    return await body({ clusterUrl: cluster.url, gateway, key, committed, swap });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await database.close();
    await devnet.stop();
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
