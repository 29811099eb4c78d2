// Finding a launch token's pool and pricing a swap on it, at a pinned block: which suite, current or
// historical, launched the token (creatorRights), which of its quotes pairs it (the pool id matches), and the
// V4Quoter's exact-input quote with the same hookData the swap carries, so the hook's fee is included.
import { type Abi, type Address, getAddress, type Hex, parseAbi, zeroAddress } from 'viem';
import { LaunchFactoryAbi, LaunchHookAbi } from '../../contracts/artifacts/index.ts';
import { ERC20_ABI } from '../chain/erc20.ts';
import type { ContractRead, Snapshot } from '../chain/snapshot.ts';
import { UNISWAP } from '../chain/uniswap.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { ChainManifest } from '../launchpad/manifest.ts';
import { launchPoolKey, type PoolKey, poolId } from '../launchpad/pool.ts';
import { decodeRevert } from '../plans/revert.ts';

export const PERMIT2_ABI = parseAbi([
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
]);
const QUOTER = UNISWAP.V4Quoter().abi;
const STATE_VIEW = UNISWAP.StateView().abi;
const FACTORY = LaunchFactoryAbi as Abi;
const HOOK = LaunchHookAbi as Abi;

type Suite = ChainManifest['suites'][number];

/** What never changes about a launched token's pool, so it is kept once found. */
export interface LaunchPool {
  suite: Suite;
  quote: Address;
  key: PoolKey;
  poolId: Hex;
  /** The router swaps go through: the suite's dedicated swap router, or the Universal Router. */
  router: Address;
}

// A token's pool key is fixed at launch; only live state (prices, balances, creator rights) is read
// per request. Bounded, so unknown-token probing cannot grow it without limit.
// Kept per set of manifests, since the router and contracts come from them.
const POOLS = new WeakMap<Deployments, Map<string, LaunchPool>>();
const MAX_POOLS = 10_000;

/**
 * The pool of a token launched by any suite of the chain, current or historical (a historical factory
 * without these views is passed over); not_found for any other token.
 */
export async function findLaunchPool(
  snapshot: Snapshot,
  deployments: Deployments,
  chainId: ChainId,
  token: Address,
): Promise<LaunchPool> {
  const cacheKey = `${chainId}:${token}`;
  let pools = POOLS.get(deployments);
  if (!pools) POOLS.set(deployments, (pools = new Map()));
  const known = pools.get(cacheKey);
  if (known) return known;
  const manifest = deployments.get(chainId);
  const suites = manifest?.suites ?? [];
  const reads: ContractRead[] = suites.flatMap((s) => [
    { address: s.contracts.factory as Address, abi: FACTORY, functionName: 'creatorRights', args: [token] },
    { address: s.contracts.factory as Address, abi: FACTORY, functionName: 'tickSpacing' },
  ]);
  const results = await snapshot.read(reads);
  for (const [i, suite] of suites.entries()) {
    const rights = results[2 * i];
    const spacing = results[2 * i + 1];
    if (!rights?.ok || !spacing?.ok) continue;
    const r = rights.value as { poolId: Hex };
    const quotes = (manifest?.quotes ?? [])
      .filter((q) => q.suite_id === suite.id)
      .map((q) => q.address as Address);
    for (const quote of quotes) {
      const key = launchPoolKey(token, quote, Number(spacing.value), suite.contracts.hook as Address);
      if (poolId(key) !== r.poolId) continue;
      // The suite's dedicated swap router when its calldata is the Universal Router's, else the UR.
      const dedicated =
        suite.swap_router_format === 'universal_router' ? suite.contracts.swap_router : undefined;
      const router = (dedicated ?? suite.contracts.universal_router ?? null) as Address | null;
      if (!router) {
        throw new ApiError(
          'unsupported_operation',
          `Swaps on chain ${chainId} need the suite's dedicated router, whose calldata this gateway does not build`,
          { chain_id: chainId },
        );
      }
      const pool = { suite, quote, key, poolId: r.poolId, router: getAddress(router) };
      if (pools.size >= MAX_POOLS) pools.clear();
      pools.set(cacheKey, pool);
      return pool;
    }
  }
  throw new ApiError(
    'not_found',
    `${token} is not a token launched by a launchpad suite on chain ${chainId}`,
    { resource: 'token', chain_id: chainId, token_address: token },
  );
}

export interface WalletState {
  native: bigint;
  /** ERC-20 input only: balance, allowance to Permit2, and Permit2's allowance to the router. */
  erc20?: {
    balance: bigint;
    permit2Allowance: bigint;
    routerAllowance: { amount: bigint; expiration: number; nonce: number };
  };
}

export interface PricedSwap {
  amountOut: bigint;
  /** The suite's configuration version at the pinned block (null where the factory has none). */
  configVersion: string | null;
  /** sqrtPriceX96 before the swap, for the price impact. */
  sqrtPriceX96: bigint;
  poolConfig: {
    baseFeeBps: number;
    antiSnipeStartTotalBps: number;
    antiSnipeWindowSeconds: number;
    launchTime: number;
  };
  wallet: WalletState;
  /** Live creator rights (the referrer rules depend on them). */
  currentCreator: Address;
  creatorFeeRecipient: Address;
}

/** One batch at the pinned block: the quoter, the pool's state and config, and the wallet's balances and allowances. */
export async function priceSwap(
  snapshot: Snapshot,
  pool: LaunchPool,
  opts: {
    wallet: Address;
    token: Address;
    input: Address;
    amountIn: bigint;
    hookData: Hex;
    permit2: Address;
  },
): Promise<PricedSwap> {
  const zeroForOne = opts.input === pool.key.currency0;
  const suite = pool.suite.contracts;
  const reads: ContractRead[] = [
    {
      address: suite.quoter as Address,
      abi: QUOTER,
      functionName: 'quoteExactInputSingle',
      args: [{ poolKey: pool.key, zeroForOne, exactAmount: opts.amountIn, hookData: opts.hookData }],
    },
    { address: suite.state_view as Address, abi: STATE_VIEW, functionName: 'getSlot0', args: [pool.poolId] },
    { address: suite.hook as Address, abi: HOOK, functionName: 'poolConfig', args: [pool.poolId] },
    { address: suite.factory as Address, abi: FACTORY, functionName: 'creatorRights', args: [opts.token] },
    { address: suite.factory as Address, abi: FACTORY, functionName: 'configVersion' },
  ];
  const erc20 = opts.input !== zeroAddress;
  if (erc20) {
    reads.push(
      { address: opts.input, abi: ERC20_ABI, functionName: 'balanceOf', args: [opts.wallet] },
      { address: opts.input, abi: ERC20_ABI, functionName: 'allowance', args: [opts.wallet, opts.permit2] },
      {
        address: opts.permit2,
        abi: PERMIT2_ABI,
        functionName: 'allowance',
        args: [opts.wallet, opts.input, pool.router],
      },
    );
  }
  // Priced at the time the swap will be included, not the pinned block's (fees decay with time).
  await snapshot.ensurePinned();
  const { results, balances } = await snapshot.readWithBalances(reads, [opts.wallet], {
    atInclusionTime: true,
  });
  const [quoted, slot0, config, rights, version, balance, toPermit2, permit2] = results;
  if (!quoted?.ok) {
    const revert = decodeRevert(quoted?.data);
    throw new ApiError('quote_unavailable', `No executable quote for this amount: ${revert.text}`, {
      chain_id: snapshot.chainId,
    });
  }
  if (
    !slot0?.ok ||
    !config?.ok ||
    !rights?.ok ||
    (erc20 && (!balance?.ok || !toPermit2?.ok || !permit2?.ok))
  ) {
    throw new ApiError('upstream_error', `Chain ${snapshot.chainId}: the pool state could not be read`, {
      chain_id: snapshot.chainId,
    });
  }
  const c = config.value as [boolean, boolean, Address, Address, number, number, number, number];
  const p2 = erc20 ? (permit2 as { value: [bigint, number, number] }).value : undefined;
  const r = rights.value as { currentCreator: Address; creatorFeeRecipient: Address };
  return {
    // Historical factories may not have it: then no staleness can be told.
    configVersion: version?.ok ? (version.value as bigint).toString() : null,
    currentCreator: getAddress(r.currentCreator),
    creatorFeeRecipient: getAddress(r.creatorFeeRecipient),
    amountOut: (quoted.value as [bigint, bigint])[0],
    sqrtPriceX96: (slot0.value as [bigint])[0],
    poolConfig: {
      baseFeeBps: c[4],
      antiSnipeStartTotalBps: c[5],
      antiSnipeWindowSeconds: c[6],
      launchTime: c[7],
    },
    wallet: {
      native: balances[0] as bigint,
      ...(erc20 && p2
        ? {
            erc20: {
              balance: (balance as { value: bigint }).value,
              permit2Allowance: (toPermit2 as { value: bigint }).value,
              routerAllowance: { amount: p2[0], expiration: Number(p2[1]), nonce: Number(p2[2]) },
            },
          }
        : {}),
    },
  };
}

/** The hook's total fee in bps at a block time (REFERENCE §4.2). */
export function feeBpsAt(config: PricedSwap['poolConfig'], timestamp: bigint): number {
  const elapsed = Number(timestamp) - config.launchTime;
  if (elapsed >= config.antiSnipeWindowSeconds) return config.baseFeeBps;
  const surcharge = Math.floor(
    ((config.antiSnipeStartTotalBps - config.baseFeeBps) * (config.antiSnipeWindowSeconds - elapsed)) /
      config.antiSnipeWindowSeconds,
  );
  return Math.min(9900, config.baseFeeBps + surcharge);
}

/**
 * Price impact of the pool's part of the trade (the hook fee excluded), in bps: the shortfall of the
 * output against the pre-trade spot price.
 */
export function priceImpactBps(opts: {
  sqrtPriceX96: bigint;
  zeroForOne: boolean;
  poolIn: bigint;
  poolOut: bigint;
}): number {
  const q192 = 1n << 192n;
  const sq = opts.sqrtPriceX96 * opts.sqrtPriceX96;
  const spotOut = opts.zeroForOne ? (opts.poolIn * sq) / q192 : (opts.poolIn * q192) / sq;
  if (spotOut === 0n || opts.poolOut >= spotOut) return 0;
  return Number(((spotOut - opts.poolOut) * 10_000n) / spotOut);
}
