// Finding a launch token's pool and pricing a swap on it, at a pinned block: which suite, current or
// historical, launched the token (creatorRights), which of its quotes pairs it (the pool id matches), and the
// V4Quoter's exact-input quote with the same hookData the swap carries, so the hook's fee is included.
import { type Abi, type Address, getAddress, type Hex, parseAbi, zeroAddress } from 'viem';
import {
  DividendDistributorAbi,
  LaunchFactoryAbi,
  LaunchHookAbi,
  TaxHookAbi,
} from '../../contracts/artifacts/index.ts';
import { ERC20_ABI } from '../chain/erc20.ts';
import type { ContractRead, Snapshot } from '../chain/snapshot.ts';
import { UNISWAP } from '../chain/uniswap.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { ChainManifest } from '../launchpad/manifest.ts';
import { launchPoolKey, type PoolKey, poolId } from '../launchpad/pool.ts';
import { PS, type FactoryTaxPolicy, rulesOf, splitTax, type TaxTerms } from '../launchpad/tax.ts';
import { decodeRevert } from '../plans/revert.ts';

export const PERMIT2_ABI = parseAbi([
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
]);
const QUOTER = UNISWAP.V4Quoter().abi;
const STATE_VIEW = UNISWAP.StateView().abi;
const FACTORY = LaunchFactoryAbi as Abi;
const HOOK = LaunchHookAbi as Abi;
const TAX_HOOK = TaxHookAbi as Abi;
const DISTRIBUTOR = DividendDistributorAbi as Abi;

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

/** A non-tax pool's fee (LaunchHook.poolConfig). */
export interface BaseFeeConfig {
  baseFeeBps: number;
  antiSnipeStartTotalBps: number;
  antiSnipeWindowSeconds: number;
  launchTime: number;
}

/** A tax pool's terms and frozen policy (TaxHook.taxPool), and whether any holder has dividend shares. */
export interface TaxPoolFees {
  launchTime: number;
  terms: TaxTerms;
  policy: FactoryTaxPolicy;
  dividendEligible: boolean;
}

export type PoolFees = { kind: 'base'; config: BaseFeeConfig } | { kind: 'tax'; pool: TaxPoolFees };

export interface PricedSwap {
  amountOut: bigint;
  /** The suite's configuration version at the pinned block (null where the factory has none). */
  configVersion: string | null;
  /** sqrtPriceX96 before the swap, for the price impact. */
  sqrtPriceX96: bigint;
  /** The hook's fee terms of the pool: a non-tax pool's bps fee, or a tax pool's terms. */
  fees: PoolFees;
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
  const tax = pool.suite.launch_product === 'tax';
  const reads: ContractRead[] = [
    {
      address: suite.quoter as Address,
      abi: QUOTER,
      functionName: 'quoteExactInputSingle',
      args: [{ poolKey: pool.key, zeroForOne, exactAmount: opts.amountIn, hookData: opts.hookData }],
    },
    { address: suite.state_view as Address, abi: STATE_VIEW, functionName: 'getSlot0', args: [pool.poolId] },
    tax
      ? { address: suite.hook as Address, abi: TAX_HOOK, functionName: 'taxPool', args: [pool.poolId] }
      : { address: suite.hook as Address, abi: HOOK, functionName: 'poolConfig', args: [pool.poolId] },
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
  // Last, so it is popped off before the positional reads.
  if (tax) {
    reads.push({
      address: suite.dividend_distributor as Address,
      abi: DISTRIBUTOR,
      functionName: 'eligibleShares',
      args: [opts.token],
    });
  }
  // Priced at the time the swap will be included, not the pinned block's (fees decay with time).
  const { results, balances } = await snapshot.readWithBalances(reads, [opts.wallet], {
    atInclusionTime: true,
  });
  const eligible = tax ? results.pop() : undefined;
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
    (tax && !eligible?.ok) ||
    (erc20 && (!balance?.ok || !toPermit2?.ok || !permit2?.ok))
  ) {
    throw new ApiError('upstream_error', `Chain ${snapshot.chainId}: the pool state could not be read`, {
      chain_id: snapshot.chainId,
    });
  }
  const p2 = erc20 ? (permit2 as { value: [bigint, number, number] }).value : undefined;
  const r = rights.value as { currentCreator: Address; creatorFeeRecipient: Address };
  return {
    // Historical factories may not have it: then no staleness can be told.
    configVersion: version?.ok ? (version.value as bigint).toString() : null,
    currentCreator: getAddress(r.currentCreator),
    creatorFeeRecipient: getAddress(r.creatorFeeRecipient),
    amountOut: (quoted.value as [bigint, bigint])[0],
    sqrtPriceX96: (slot0.value as [bigint])[0],
    fees: poolFees(config.value, eligible?.ok ? eligible.value : undefined),
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

function poolFees(config: unknown, eligibleShares: unknown): PoolFees {
  if (eligibleShares === undefined) {
    const c = config as [boolean, boolean, Address, Address, number, number, number, number];
    return {
      kind: 'base',
      config: {
        baseFeeBps: c[4],
        antiSnipeStartTotalBps: c[5],
        antiSnipeWindowSeconds: c[6],
        launchTime: c[7],
      },
    };
  }
  const c = config as { launchTime: number; terms: TaxTerms; policy: FactoryTaxPolicy };
  return {
    kind: 'tax',
    pool: {
      launchTime: Number(c.launchTime),
      terms: { ...c.terms, minimumDividendHolding: BigInt(c.terms.minimumDividendHolding) },
      policy: c.policy,
      dividendEligible: (eligibleShares as bigint) > 0n,
    },
  };
}

/** One swap's fee as the hook takes it, in the quote currency. */
export interface SwapFee {
  /** The total rate now, in bps (floored) and in percentage units (PS = 100%). */
  totalBps: number;
  totalRate: bigint;
  /** The rate without the anti-snipe surcharge, in percentage units. */
  baseRate: bigint;
  amount: bigint;
  /** Sells: the fee is taken from the output, so it is derived from the quoted output (±1 unit). */
  estimated: boolean;
  /** Tax pools: the split of `amount` (REFERENCE §5), as the hook credits it. */
  components?: { component: string; recipient: Address; amount: bigint }[];
}

const DEAD = '0x000000000000000000000000000000000000dEaD' as Address;

/**
 * The fee of an exact-input swap at `timestamp`: `amountIn` of the input, `expectedOut` quoted. Buys pay
 * floor(in × rate); sells pay floor(gross × rate) from the output, i.e. about out × rate / (1 − rate).
 */
export function swapFee(
  fees: PoolFees,
  opts: { buy: boolean; amountIn: bigint; expectedOut: bigint; timestamp: bigint; distributor?: Address },
): SwapFee {
  const [rate, baseRate] =
    fees.kind === 'base'
      ? [BigInt(feeBpsAt(fees.config, opts.timestamp)) * 10_000n, BigInt(fees.config.baseFeeBps) * 10_000n]
      : taxRateAt(fees.pool, opts.buy, opts.timestamp);
  const of = (r: bigint) => (opts.buy ? (opts.amountIn * r) / PS : (opts.expectedOut * r) / (PS - r));
  const amount = of(rate);
  const out: SwapFee = {
    totalBps: Number(rate / 10_000n),
    totalRate: rate,
    baseRate,
    amount,
    estimated: !opts.buy,
  };
  if (fees.kind === 'tax') {
    const { terms, policy, dividendEligible } = fees.pool;
    const split = splitTax(terms, rulesOf(policy), opts.buy, amount, of(baseRate), dividendEligible);
    out.components = [
      { component: 'protocol', recipient: getAddress(policy.protocolFeeRecipient), amount: split.protocol },
      { component: 'creator', recipient: getAddress(terms.creatorFeeRecipient), amount: split.creator },
      { component: 'burn', recipient: DEAD, amount: split.burn },
      { component: 'dividend', recipient: opts.distributor ?? zeroAddress, amount: split.dividend },
      {
        component: 'integrator',
        recipient: getAddress(terms.integratorFeeRecipient),
        amount: split.integrator,
      },
    ].filter((c) => c.amount > 0n);
  }
  return out;
}

/** A tax pool's rate for one side at a block time, and its base (TaxHook._rate), in percentage units. */
function taxRateAt(pool: TaxPoolFees, buy: boolean, timestamp: bigint): [bigint, bigint] {
  const rate = BigInt(buy ? pool.terms.buyTaxRate : pool.terms.sellTaxRate);
  if (!pool.terms.antiSnipe) return [rate, rate];
  const window = BigInt(pool.policy.antiSnipeWindowSeconds);
  const start = BigInt(pool.policy.antiSnipeStartRate);
  const elapsed = timestamp - BigInt(pool.launchTime);
  if (elapsed >= window || start <= rate) return [rate, rate];
  const total = rate + ((start - rate) * (window - elapsed)) / window;
  return [total > 99_000_000n ? 99_000_000n : total, rate];
}

/** The hook's total fee in bps at a block time (REFERENCE §4.2). */
export function feeBpsAt(config: BaseFeeConfig, timestamp: bigint): number {
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
