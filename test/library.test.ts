// The engine in-process, without HTTP: a bot imports the operations from the package, builds their deps
// from its own RPC endpoints, and gets the same plans the routes serve. No fastify is started here.
import { join } from 'node:path';
import { type Address, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChainClients,
  Deployments,
  getConfig,
  IpfsPinStore,
  loadSettings,
  openDatabase,
  prepareLaunch,
  prepareSwap,
  QuoteSigner,
  quoteSwap,
  SaltMiner,
  startIpfsNode,
  systemClock,
} from 'launchpad-gateway';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { ERC20, TestChain } from './support/chain.ts';
import { tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
let devnet: Devnet;
let chain: TestChain;
let saltMiner: SaltMiner;

beforeAll(async () => {
  const dataDir = tempDir();
  devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  chain = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
  saltMiner = new SaltMiner();
}, 60_000);
afterAll(async () => {
  await saltMiner?.close();
  await devnet?.stop();
});

describe("import { prepareLaunch, quoteSwap, prepareSwap } from 'launchpad-gateway'", () => {
  it('prepares a launch and a buy in-process whose plans really execute', async () => {
    const dataDir = tempDir();
    const settings = loadSettings({ LAUNCHPAD_DATA_DIR: dataDir, IPFS_NETWORK: 'off' });
    const database = await openDatabase(settings);
    const ipfs = await startIpfsNode(database, settings);
    const deps = {
      settings,
      chains: new ChainClients({ 8453: [chain.chain.rpc_url] }, 5000),
      clock: systemClock,
      deployments: Deployments.load(join(devnet.chains[0]?.manifest_path as string, '..')),
      pins: new IpfsPinStore(database, ipfs),
      saltMiner,
    };
    const { config } = await getConfig(deps, {
      chain_id: 8453,
      include: 'suites',
      market: 'all',
      launch_product: 'non-tax',
      active_only: true,
    });
    const suites = (config as { suites?: { creation_available: boolean }[] }).suites;
    expect(suites?.[0]?.creation_available).toBe(true);

    const creator = chain.account(1);
    const launch = await prepareLaunch(deps, {
      origin: 'http://127.0.0.1:8080',
      body: {
        chain_id: 8453,
        creator,
        market: 'standard',
        quote_address: zeroAddress,
        token: { name: 'In Process', symbol: 'INP', image_base64: PNG, image_type: 'image/png' },
      },
    });
    expect(launch.issues).toEqual([]);
    for (const step of launch.steps) {
      const tx = (step as { transaction: { to: Address; data: `0x${string}`; value: string } }).transaction;
      await chain.send(creator, tx.to, tx.data, BigInt(tx.value));
    }
    const token = launch.predicted_token_address as Address;
    expect(await chain.read<string>(token, ERC20, 'symbol')).toBe('INP');

    const trader = chain.account(2);
    const swapDeps = { ...deps, quotes: new QuoteSigner(Buffer.alloc(32, 7)) };
    const quote = await quoteSwap(swapDeps, {
      chain_id: 8453,
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: (10n ** 16n).toString(),
      slippage_bps: 100,
    });
    const prepared = await prepareSwap(swapDeps, { quote_id: quote.quote_id, wallet: trader });
    const tx = (prepared.steps[0] as { transaction: { to: Address; data: `0x${string}`; value: string } })
      .transaction;
    await chain.send(trader, tx.to, tx.data, BigInt(tx.value));
    expect(await chain.balance(token, trader)).toBeGreaterThanOrEqual(BigInt(quote.minimum_out_raw));
    await ipfs.stop();
    await database.close();
  }, 60_000);
});
