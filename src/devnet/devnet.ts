// The local devnet: one anvil per supported chain id (DEVNET_PORT + 0..3, in the order 8453, 4663, 143,
// 5042), each with Uniswap v4 (PoolManager, StateView, V4Quoter, PositionManager, UniversalRouter), WETH,
// Permit2 at its canonical address, quote tokens minted to the first accounts, the current launchpad
// suite, and on 8453 a historical suite with a vesting vault. Writes <data dir>/devnet.json and one
// deployment manifest per chain in the production format (<data dir>/deployments/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Abi, type Address, getAddress, type Hex, zeroAddress, zeroHash } from 'viem';
import { CHAIN_IDS, CHAINS, type ChainId } from '../launchpad/chains.ts';
import { type ChainManifest, parseManifest } from '../launchpad/manifest.ts';
import { QuoteTokenAbi, QuoteTokenBytecode } from '../../contracts/artifacts/index.ts';
import { type AnvilNode, startAnvil } from './anvil.ts';
import {
  deployB20Emulation,
  deployCurrentSuite,
  deployMulticall3,
  deployHistoricalSuite,
  deployTaxSuite,
  type QuoteRegistration,
  type SuiteContracts,
  type VestingFixture,
  ARTIFACTS,
} from './launchpad.ts';
import { PERMIT2_ADDRESS, permit2RuntimeCode, UNISWAP } from '../chain/uniswap.ts';
import { ChainWriter } from './writer.ts';

type AssetType = 'stablecoin' | 'wrapped_crypto' | 'tokenized_security';

export interface DevnetQuote {
  symbol: string;
  address: Address;
  decimals: number;
  asset_type: AssetType | 'native';
}

interface QuoteSpec {
  name: string;
  symbol: string;
  decimals: number;
  asset_type: AssetType;
  route: 'standard' | 'rwa';
  /** The registered start tick (token0 frame); absent = deployed and funded, not registered. */
  startTick?: number;
}

// Start ticks (token0 frame) give a launch a market cap of a few thousand dollars, as in production
// (REFERENCE §4.9: ETH −202200, USDC −400600); the stock tokens are priced at about $200.
const NATIVE_START_TICK = -202_200;
const USD6 = { decimals: 6, asset_type: 'stablecoin', route: 'standard', startTick: -400_600 } as const;
const QUOTES: Record<ChainId, QuoteSpec[]> = {
  8453: [
    { name: 'USD Coin', symbol: 'USDC', ...USD6 },
    {
      name: 'Devnet Stock',
      symbol: 'DSTK',
      decimals: 8,
      asset_type: 'tokenized_security',
      route: 'rwa',
      startTick: -407_400,
    },
  ],
  4663: [
    { name: 'Global Dollar', symbol: 'USDG', ...USD6 },
    {
      name: 'Devnet Stock',
      symbol: 'DSTK',
      decimals: 18,
      asset_type: 'tokenized_security',
      route: 'rwa',
      startTick: -177_400,
    },
  ],
  143: [{ name: 'USD Coin', symbol: 'USDC', ...USD6 }],
  5042: [{ name: 'USD Coin', symbol: 'USDC', ...USD6 }],
};
/** Native launch fees (REFERENCE §4.9); Monad's is unknown, so its devnet launches are free. */
const NATIVE_LAUNCH_FEE: Record<ChainId, bigint> = {
  8453: 10n ** 15n,
  4663: 10n ** 15n,
  143: 0n,
  5042: 2n * 10n ** 18n,
};
/** Arc registers its USDC ERC-20 only; the other chains also take the native currency and WETH. */
/** The devnet's USD price of each native currency (whole dollars). */
const NATIVE_USD: Record<ChainId, bigint> = { 8453: 3000n, 4663: 3000n, 143: 2n, 5042: 1n };
const NATIVE_AND_WETH_QUOTES: Record<ChainId, boolean> = { 8453: true, 4663: true, 143: true, 5042: false };
const SLUG: Record<ChainId, string> = { 8453: 'base', 4663: 'robinhood', 143: 'monad', 5042: 'arc' };

/** Accounts funded with every quote token (whole tokens each). */
const FUNDED_ACCOUNTS = 5;
const FUNDING_TOKENS = 1_000_000n;
/** The anvil account that receives platform fees and launch fees. */
const TREASURY_ACCOUNT = 9;

export interface DevnetChain {
  chain_id: ChainId;
  rpc_url: string;
  /** anvil's funded, unlocked accounts (the first deploys and owns the suites). */
  accounts: Address[];
  /** The deployment manifest of this chain (production format). */
  manifest_path: string;
  uniswap: {
    pool_manager: Address;
    state_view: Address;
    quoter: Address;
    position_manager: Address;
    universal_router: Address;
    /** Arc (5042) only: a second Universal Router exposed as the suite's dedicated swap router. */
    swap_router?: Address;
    permit2: Address;
    weth: Address;
  };
  quotes: DevnetQuote[];
  suites: {
    id: string;
    status: 'current' | 'historical';
    token_mode: 'erc20' | 'b20';
    launch_fee?: 'native' | 'erc20';
    /** `tax`: the reference inclusive tax suite (every chain has one, listed last). */
    launch_product?: 'non-tax' | 'tax';
    contracts: SuiteContracts;
  }[];
  /** The native currency's USD price feed (its owner, the first account, can move the answer). */
  native_usd_feed?: Address;
  /** On 8453: the historical suite's launch with vested allocations. */
  vesting_launch?: VestingFixture;
}

export interface Devnet {
  chains: DevnetChain[];
  /** Milliseconds from start to every chain deployed. */
  bootMs: number;
  /** Stamps a block on every chain with the wall clock (after a start with `behindS`). */
  catchUpClock(): Promise<void>;
  stop(): Promise<void>;
}

async function deployUniswap(w: ChainWriter, chainId: ChainId) {
  await w.client.request({
    method: 'anvil_setCode',
    params: [PERMIT2_ADDRESS, permit2RuntimeCode()],
  } as never);
  const poolManager = await w.deploy(UNISWAP.PoolManager(), [w.from]);
  const stateView = await w.deploy(UNISWAP.StateView(), [poolManager]);
  const quoter = await w.deploy(UNISWAP.V4Quoter(), [poolManager]);
  const weth = await w.deploy(UNISWAP.WETH());
  const positionManager = await w.deploy(UNISWAP.PositionManager(), [
    poolManager,
    PERMIT2_ADDRESS,
    300_000n,
    zeroAddress,
    weth,
  ]);
  const routerParams = {
    permit2: PERMIT2_ADDRESS,
    weth9: weth,
    v2Factory: zeroAddress,
    v3Factory: zeroAddress,
    pairInitCodeHash: zeroHash,
    poolInitCodeHash: zeroHash,
    v4PoolManager: poolManager,
    v3NFTPositionManager: zeroAddress,
    v4PositionManager: positionManager,
    spokePool: zeroAddress,
  };
  const universalRouter = await w.deploy(UNISWAP.UniversalRouter(), [routerParams]);
  // Arc's suite lists a dedicated swap router; on the devnet it is a second Universal Router
  // (REFERENCE §7 #7: its production calldata format is unknown, the UR format is what is encoded).
  const swapRouter = chainId === 5042 ? await w.deploy(UNISWAP.UniversalRouter(), [routerParams]) : undefined;
  return {
    ...(swapRouter ? { swap_router: swapRouter } : {}),
    pool_manager: poolManager,
    state_view: stateView,
    quoter,
    position_manager: positionManager,
    universal_router: universalRouter,
    permit2: PERMIT2_ADDRESS as Address,
    weth,
  };
}

async function deployChain(node: AnvilNode, dataDir: string): Promise<DevnetChain> {
  const chainId = node.chainId as ChainId;
  const probe = new ChainWriter(node.rpcUrl, zeroAddress);
  const accounts = ((await probe.client.request({ method: 'eth_accounts' } as never)) as Address[]).map((a) =>
    getAddress(a),
  );
  const w = new ChainWriter(node.rpcUrl, accounts[0] as Address);
  const uniswap = await deployUniswap(w, chainId);
  // Every chain deploys Uniswap from the same account in the same order, so the PoolManager, and with
  // it the hook's init code and mined salt, is the same on every chain.
  const treasury = accounts[TREASURY_ACCOUNT] as Address;
  const firstBlock = Number(await w.client.getBlockNumber()) + 1;

  const quotes: (DevnetQuote & { route: 'standard' | 'rwa'; startTick?: number; name: string })[] = [];
  if (NATIVE_AND_WETH_QUOTES[chainId]) {
    const native = CHAINS[chainId].native_currency;
    quotes.push(
      {
        symbol: native.symbol,
        name: native.symbol,
        address: zeroAddress,
        decimals: 18,
        asset_type: 'native',
        route: 'standard',
        startTick: NATIVE_START_TICK,
      },
      {
        symbol: 'WETH',
        name: 'Wrapped Ether',
        address: uniswap.weth,
        decimals: 18,
        asset_type: 'wrapped_crypto',
        route: 'standard',
        startTick: NATIVE_START_TICK,
      },
    );
  }
  const quoteArtifact = { abi: QuoteTokenAbi as Abi, bytecode: QuoteTokenBytecode as Hex };
  const pending: QuoteSpec[] = QUOTES[chainId];
  const tokenQuotes = [];
  for (const q of pending) {
    const address = await w.deploy(quoteArtifact, [q.name, q.symbol, q.decimals]);
    for (const account of accounts.slice(0, FUNDED_ACCOUNTS)) {
      await w.write(address, quoteArtifact.abi, 'mint', [
        account,
        FUNDING_TOKENS * 10n ** BigInt(q.decimals),
      ]);
    }
    tokenQuotes.push({ ...q, address });
  }
  quotes.push(...tokenQuotes);

  const registrations: QuoteRegistration[] = quotes
    .filter((q) => q.startTick !== undefined)
    .map((q) => ({ quote: q.address, startTickToken0Frame: q.startTick as number }));
  // Base launches B20 assets, as in production; the devnet emulates the precompiles.
  const tokenMode = chainId === 8453 ? 'b20' : 'erc20';
  await deployMulticall3(w);
  if (tokenMode === 'b20') await deployB20Emulation(w);
  // The native currency's USD reference, at a realistic price (8 decimals, as Chainlink's USD feeds).
  const nativeUsdFeed = NATIVE_AND_WETH_QUOTES[chainId]
    ? await w.deploy(ARTIFACTS.UsdPriceFeed, [
        `${CHAINS[chainId].native_currency.symbol} / USD`,
        NATIVE_USD[chainId] * 10n ** 8n,
      ])
    : undefined;
  // Monad's devnet suite charges its launch fee in USDC (5 USDC): the ERC-20 fee path, end to end.
  const feeToken = chainId === 143 ? tokenQuotes.find((q) => q.symbol === 'USDC') : undefined;
  const erc20LaunchFee = feeToken ? { token: feeToken.address, amount: 5n * 10n ** 6n } : undefined;
  const current = await deployCurrentSuite(w, {
    poolManager: uniswap.pool_manager,
    quotes: registrations,
    nativeLaunchFee: NATIVE_LAUNCH_FEE[chainId],
    platformFeeRecipient: treasury,
    tokenMode,
    erc20LaunchFee,
  });
  const suites: DevnetChain['suites'] = [
    {
      id: `${SLUG[chainId]}-devnet-launchpad-v4-minimal`,
      status: 'current',
      token_mode: tokenMode,
      launch_fee: erc20LaunchFee ? 'erc20' : 'native',
      contracts: current,
    },
  ];
  let vesting: VestingFixture | undefined;
  if (chainId === 8453) {
    const usdc = tokenQuotes.find((q) => q.symbol === 'USDC') as { address: Address };
    const historical = await deployHistoricalSuite(w, {
      poolManager: uniswap.pool_manager,
      quotes: [
        { quote: zeroAddress, startTickToken0Frame: NATIVE_START_TICK, creationFee: 10n ** 15n },
        { quote: usdc.address, startTickToken0Frame: USD6.startTick, creationFee: 10n ** 6n },
      ],
      platformFeeRecipient: treasury,
      beneficiaries: [accounts[1] as Address, accounts[2] as Address],
    });
    suites.push({
      id: 'base-devnet-timestamp-v2',
      status: 'historical',
      token_mode: 'erc20',
      contracts: historical.contracts,
    });
    vesting = historical.fixture;
  }

  // The historical suite took the native currency and USDC (historical quotes keep their suite id).
  const historicalQuotes = suites[1]
    ? quotes
        .filter((q) => q.address === zeroAddress || q.symbol === 'USDC')
        .map((q) => ({ ...q, suiteId: suites[1]?.id }))
    : [];
  // The tax suite: ERC-20 tokens (REFERENCE §5), the same quotes and native launch fee as the current suite.
  const taxSuiteId = `${SLUG[chainId]}-devnet-launchpad-v4-tax`;
  suites.push({
    id: taxSuiteId,
    status: 'current',
    token_mode: 'erc20',
    launch_product: 'tax',
    contracts: await deployTaxSuite(w, {
      poolManager: uniswap.pool_manager,
      quotes: registrations,
      nativeLaunchFee: NATIVE_LAUNCH_FEE[chainId],
      platformFeeRecipient: treasury,
    }),
  });
  const taxQuotes = quotes
    .filter((q) => q.startTick !== undefined)
    .map((q) => ({ ...q, suiteId: taxSuiteId }));
  const manifest = {
    ...devnetManifest(chainId, uniswap, suites, [...quotes, ...historicalQuotes, ...taxQuotes], firstBlock),
    ...(nativeUsdFeed ? { native_usd_feed: nativeUsdFeed } : {}),
  };
  const manifestPath = join(dataDir, 'deployments', `devnet-${chainId}.json`);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return {
    chain_id: chainId,
    rpc_url: node.rpcUrl,
    accounts,
    manifest_path: manifestPath,
    uniswap,
    ...(nativeUsdFeed ? { native_usd_feed: nativeUsdFeed } : {}),
    quotes: quotes.map(({ symbol, address, decimals, asset_type }) => ({
      symbol,
      address,
      decimals,
      asset_type,
    })),
    suites,
    ...(vesting ? { vesting_launch: vesting } : {}),
  };
}

function devnetManifest(
  chainId: ChainId,
  uniswap: DevnetChain['uniswap'],
  suites: DevnetChain['suites'],
  quotes: {
    symbol: string;
    name: string;
    address: Address;
    decimals: number;
    asset_type: DevnetQuote['asset_type'];
    route: 'standard' | 'rwa';
    startTick?: number;
    suiteId?: string;
  }[],
  firstBlock: number,
): ChainManifest {
  const routes = [
    ...new Set(quotes.filter((q) => q.startTick !== undefined && !q.suiteId).map((q) => q.route)),
  ];
  const [current] = suites as [DevnetChain['suites'][number]];
  const historical = suites.filter((s) => s.status === 'historical');
  const tax = suites.filter((s) => s.launch_product === 'tax');
  const shared = {
    pool_manager: uniswap.pool_manager,
    state_view: uniswap.state_view,
    quoter: uniswap.quoter,
    universal_router: uniswap.universal_router,
    permit: uniswap.permit2,
  };
  const manifest = {
    format: 1 as const,
    chain_id: chainId,
    name: `${CHAINS[chainId].name} (devnet)`,
    weth: NATIVE_AND_WETH_QUOTES[chainId] ? uniswap.weth : null,
    suites: [
      {
        id: current.id,
        version: 'launchpad-v4-minimal',
        status: 'current' as const,
        active_for_creation: true,
        routes: routes.sort(),
        first_block: firstBlock,
        token_mode: current.token_mode,
        launch_product: 'non-tax' as const,
        ...(current.launch_fee === 'erc20' ? { launch_fee: 'erc20' as const } : {}),
        contracts: {
          ...current.contracts,
          ...shared,
          ...(uniswap.swap_router ? { swap_router: uniswap.swap_router } : {}),
        },
        ...(uniswap.swap_router ? { swap_router_format: 'universal_router' as const } : {}),
      },
      ...historical.map((s) => ({
        id: s.id,
        version: 'timestamp-v2',
        status: 'historical' as const,
        active_for_creation: false,
        routes: ['standard' as const],
        first_block: firstBlock,
        token_mode: 'erc20' as const,
        launch_product: 'non-tax' as const,
        contracts: { ...s.contracts, ...shared },
      })),
      ...tax.map((s) => ({
        id: s.id,
        version: 'launchpad-v4-tax',
        status: 'current' as const,
        active_for_creation: true,
        routes: routes.sort(),
        first_block: firstBlock,
        token_mode: 'erc20' as const,
        launch_product: 'tax' as const,
        tax_format: 'inclusive' as const,
        dividend_claims: { kind: 'permissionless' as const },
        dividend_accounting: 'allocation-time' as const,
        zero_eligible_dividend_policy: 'protocol-recipient' as const,
        contracts: {
          ...s.contracts,
          ...shared,
          ...(uniswap.swap_router ? { swap_router: uniswap.swap_router } : {}),
        },
        ...(uniswap.swap_router ? { swap_router_format: 'universal_router' as const } : {}),
      })),
    ],
    quotes: quotes
      .filter((q) => q.startTick !== undefined)
      .map((q) => ({
        address: q.address,
        symbol: q.symbol,
        name: q.name,
        decimals: q.decimals,
        asset_type: q.asset_type,
        issuer: null,
        route: q.route,
        suite_id: q.suiteId ?? current.id,
      })),
  };
  return parseManifest(manifest, `devnet manifest ${chainId}`);
}

/** Seconds between the devnet's empty blocks: Base's block time. */
export const DEVNET_BLOCK_TIME_S = 2;

export async function startDevnet(opts: {
  dataDir: string;
  basePort: number;
  /** Seconds between empty blocks while idle (0: blocks only for transactions). */
  blockTimeS?: number;
  /**
   * Deploys with every chain's clock this far behind the wall clock, and leaves it there until
   * `catchUpClock()`: history to set up first (a vesting step that unlocks a day after its launch).
   */
  behindS?: number;
  /** Past states each anvil keeps for calls at old blocks (its default keeps a few thousand). */
  keepStates?: number;
}): Promise<Devnet> {
  const started = Date.now();
  const nodes: AnvilNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    const launched = await Promise.allSettled(
      CHAIN_IDS.map((id, i) =>
        startAnvil(
          id,
          opts.basePort + i,
          opts.blockTimeS ?? DEVNET_BLOCK_TIME_S,
          opts.behindS,
          opts.keepStates,
        ),
      ),
    );
    for (const r of launched) if (r.status === 'fulfilled') nodes.push(r.value);
    const failed = launched.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    mkdirSync(join(opts.dataDir, 'deployments'), { recursive: true });
    const chains = await Promise.all(nodes.map((n) => deployChain(n, opts.dataDir)));
    writeFileSync(join(opts.dataDir, 'devnet.json'), `${JSON.stringify({ chains }, null, 2)}\n`);
    const catchUpClock = async () => {
      await Promise.all(nodes.map((n) => n.catchUpClock()));
    };
    return { chains, bootMs: Date.now() - started, catchUpClock, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Environment for a gateway that talks to this devnet (its RPC URLs and manifests). */
export function devnetEnv(devnet: Devnet, dataDir: string): Record<string, string> {
  return {
    MANIFESTS_DIR: join(dataDir, 'deployments'),
    ...Object.fromEntries(devnet.chains.map((c) => [`RPC_URL_${c.chain_id}`, c.rpc_url])),
  };
}
