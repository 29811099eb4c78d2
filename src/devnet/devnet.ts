// The local devnet: one anvil per supported chain id (DEVNET_PORT + 0..3, in the order 8453, 4663, 143,
// 5042), each with Uniswap v4 (PoolManager, StateView, V4Quoter, PositionManager, UniversalRouter), WETH,
// Permit2 at its canonical address, and quote tokens minted to the first accounts. Writes
// <data dir>/devnet.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
  getAddress,
  zeroAddress,
  zeroHash,
} from 'viem';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import { QuoteTokenAbi, QuoteTokenBytecode } from '../../contracts/artifacts/index.ts';
import { type AnvilNode, startAnvil } from './anvil.ts';
import { PERMIT2_ADDRESS, permit2RuntimeCode, UNISWAP } from './uniswap.ts';

export interface DevnetQuote {
  symbol: string;
  address: Address;
  decimals: number;
  asset_type: 'stablecoin' | 'wrapped_crypto' | 'tokenized_security';
}

/** Quote assets per chain (REFERENCE §4.9): a 6-decimal stablecoin everywhere, a stock token on 8453 and 4663. */
const QUOTES: Record<
  ChainId,
  { name: string; symbol: string; decimals: number; asset_type: DevnetQuote['asset_type'] }[]
> = {
  8453: [
    { name: 'USD Coin', symbol: 'USDC', decimals: 6, asset_type: 'stablecoin' },
    { name: 'Devnet Stock', symbol: 'DSTK', decimals: 8, asset_type: 'tokenized_security' },
  ],
  4663: [
    { name: 'Global Dollar', symbol: 'USDG', decimals: 6, asset_type: 'stablecoin' },
    { name: 'Devnet Stock', symbol: 'DSTK', decimals: 18, asset_type: 'tokenized_security' },
  ],
  143: [{ name: 'USD Coin', symbol: 'USDC', decimals: 6, asset_type: 'stablecoin' }],
  5042: [{ name: 'USD Coin', symbol: 'USDC', decimals: 6, asset_type: 'stablecoin' }],
};
/** Accounts funded with every quote token (whole tokens each). */
const FUNDED_ACCOUNTS = 5;
const FUNDING_TOKENS = 1_000_000n;

export interface DevnetChain {
  chain_id: ChainId;
  rpc_url: string;
  /** anvil's funded, unlocked accounts (the first deploys). */
  accounts: Address[];
  uniswap: {
    pool_manager: Address;
    state_view: Address;
    quoter: Address;
    position_manager: Address;
    universal_router: Address;
    permit2: Address;
    weth: Address;
  };
  quotes: DevnetQuote[];
}

export interface Devnet {
  chains: DevnetChain[];
  /** Milliseconds from start to every chain deployed. */
  bootMs: number;
  stop(): Promise<void>;
}

async function deploy(
  wallet: WalletClient,
  client: PublicClient,
  from: Address,
  artifact: { abi: Abi; bytecode: Hex },
  args: unknown[] = [],
): Promise<Address> {
  const hash = await wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    account: from,
    chain: null,
  } as never);
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deployment reverted');
  return getAddress(receipt.contractAddress);
}

async function deployChain(node: AnvilNode): Promise<DevnetChain> {
  const transport = http(node.rpcUrl);
  const client = createPublicClient({ transport }) as PublicClient;
  const wallet = createWalletClient({ transport });
  const accounts = ((await client.request({ method: 'eth_accounts' } as never)) as Address[]).map((a) =>
    getAddress(a),
  );
  const from = accounts[0] as Address;
  await client.request({ method: 'anvil_setCode', params: [PERMIT2_ADDRESS, permit2RuntimeCode()] } as never);
  const poolManager = await deploy(wallet, client, from, UNISWAP.PoolManager(), [from]);
  const stateView = await deploy(wallet, client, from, UNISWAP.StateView(), [poolManager]);
  const quoter = await deploy(wallet, client, from, UNISWAP.V4Quoter(), [poolManager]);
  const weth = await deploy(wallet, client, from, UNISWAP.WETH());
  const positionManager = await deploy(wallet, client, from, UNISWAP.PositionManager(), [
    poolManager,
    PERMIT2_ADDRESS,
    300_000n,
    zeroAddress,
    weth,
  ]);
  const universalRouter = await deploy(wallet, client, from, UNISWAP.UniversalRouter(), [
    {
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
    },
  ]);
  const quotes: DevnetQuote[] = [
    { symbol: 'WETH', address: weth, decimals: 18, asset_type: 'wrapped_crypto' },
  ];
  for (const q of QUOTES[node.chainId as ChainId]) {
    const artifact = { abi: QuoteTokenAbi as Abi, bytecode: QuoteTokenBytecode as Hex };
    const address = await deploy(wallet, client, from, artifact, [q.name, q.symbol, q.decimals]);
    for (const account of accounts.slice(0, FUNDED_ACCOUNTS)) {
      const hash = await wallet.writeContract({
        address,
        abi: QuoteTokenAbi,
        functionName: 'mint',
        args: [account, FUNDING_TOKENS * 10n ** BigInt(q.decimals)],
        account: from,
        chain: null,
      });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    }
    quotes.push({ symbol: q.symbol, address, decimals: q.decimals, asset_type: q.asset_type });
  }
  return {
    chain_id: node.chainId as ChainId,
    rpc_url: node.rpcUrl,
    accounts,
    uniswap: {
      pool_manager: poolManager,
      state_view: stateView,
      quoter,
      position_manager: positionManager,
      universal_router: universalRouter,
      permit2: PERMIT2_ADDRESS,
      weth,
    },
    quotes,
  };
}

export async function startDevnet(opts: { dataDir: string; basePort: number }): Promise<Devnet> {
  const started = Date.now();
  const nodes: AnvilNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    const launched = await Promise.allSettled(CHAIN_IDS.map((id, i) => startAnvil(id, opts.basePort + i)));
    for (const r of launched) if (r.status === 'fulfilled') nodes.push(r.value);
    const failed = launched.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const chains = await Promise.all(nodes.map(deployChain));
    mkdirSync(opts.dataDir, { recursive: true });
    writeFileSync(join(opts.dataDir, 'devnet.json'), `${JSON.stringify({ chains }, null, 2)}\n`);
    return { chains, bootMs: Date.now() - started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
