// A devnet and an in-process gateway on it, for the end-to-end route tests.
import { type Devnet, devnetEnv, startDevnet } from '../../src/devnet/devnet.ts';
import type { PublicClient } from 'viem';
import { ChainClients } from '../../src/chain/clients.ts';
import { startIndexer } from '../../src/indexer/indexer.ts';
import type { ChainId } from '../../src/launchpad/chains.ts';
import { Deployments } from '../../src/launchpad/deployments.ts';
import { randomUUID } from 'node:crypto';
import { call, type Reply, startGateway, type TestGateway, tempDir } from './gateway.ts';
import { freePortRange } from './net.ts';

export interface DevnetGateway {
  devnet: Devnet;
  dataDir: string;
  gw: TestGateway;
  key: string;
  close(): Promise<void>;
}

export async function startDevnetGateway(env: Record<string, string> = {}): Promise<DevnetGateway> {
  const dataDir = tempDir();
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const gw = await startGateway({ ...devnetEnv(devnet, dataDir), ...env });
  return {
    devnet,
    dataDir,
    gw,
    key: await gw.createKey(),
    async close() {
      await gw.close();
      await devnet.stop();
    },
  };
}

/** An indexer on a test gateway's database for some devnet chains (polls every 20 ms). */
export function startTestIndexer(
  gw: TestGateway,
  devnet: Devnet,
  chainIds: ChainId[] = [8453],
  marketRefreshMs = 100,
): ReturnType<typeof startIndexer> {
  const rpc = (id: ChainId) => devnet.chains.find((c) => c.chain_id === id)?.rpc_url as string;
  return startIndexer({
    database: gw.database,
    chains: new ChainClients(Object.fromEntries(chainIds.map((id) => [id, [rpc(id)]])), 5000),
    deployments: Deployments.load(gw.settings.manifestsDir),
    chainIds,
    pollMs: 20,
    marketRefreshMs,
  });
}

/** Waits until a gateway's index has reached the chain's head (for an indexer polling every few ms). */
export async function waitIndexed(
  gw: { origin: string },
  key: string,
  client: PublicClient,
  get: (path: string) => Promise<Reply> = (path) => call(gw, path, { key }),
): Promise<void> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  for (let i = 0; i < 500; i++) {
    const r = await get('/v1/tokens?chain_id=8453&limit=1');
    if (BigInt(r.json.meta.indexed_through_block ?? -1) >= head) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error('the index did not reach the head');
}

/**
 * POSTs as a new request would: a fresh Idempotency-Key, with the gateway clock a minute on so the
 * per-minute ceilings of earlier requests are out of the way.
 */
export function postFresh(env: DevnetGateway, path: string, body: unknown): Promise<Reply> {
  env.gw.clock.advance(61_000);
  return call(env.gw, path, {
    key: env.key,
    method: 'POST',
    body,
    headers: { 'idempotency-key': randomUUID() },
  });
}
