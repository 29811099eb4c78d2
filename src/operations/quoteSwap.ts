// quoteSwap: an exact-input buy or sell of a launch token through the Universal Router (V4_SWAP), priced
// at one pinned block, with the approval and Permit2 signature steps an ERC-20 input needs, and a signed
// quote_id that prepareSwap honours for two minutes.
import { type Address, encodeFunctionData, getAddress, zeroAddress } from 'viem';
import type { ChainClients } from '../chain/clients.ts';
import { ERC20_ABI } from '../chain/erc20.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import { PERMIT2_ADDRESS } from '../chain/uniswap.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { commentBytes32, encodeHookData } from '../launchpad/pool.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';
import { findLaunchPool, type LaunchPool, priceImpactBps, priceSwap, swapFee } from '../swaps/pool.ts';
import {
  PERMIT_LIFETIME_S,
  permitTypedData,
  QUOTE_LIFETIME_MS,
  type QuoteClaims,
} from '../swaps/quoteClaims.ts';
import type { QuoteSigner } from '../swaps/quoteId.ts';

/** Beyond this price impact (the pool's part, fees excluded) no quote is given. */
export const MAX_PRICE_IMPACT_BPS = 5000;
const HIGH_PRICE_IMPACT_BPS = 1000;
const HIGH_SLIPPAGE_BPS = 1000;

export interface SwapDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  quotes: QuoteSigner;
}

/** The request body of POST /v1/swaps/quote. */
export interface QuoteSwapInput {
  chain_id: ChainId;
  wallet: string;
  token_address: string;
  side: 'buy' | 'sell';
  amount_in_raw: string;
  slippage_bps: number;
  referrer?: string;
  comment?: string;
}

function invalidReferrer(
  referrer: Address,
  wallet: Address,
  pool: LaunchPool,
  rights: { currentCreator: Address; creatorFeeRecipient: Address },
): string | null {
  const c = pool.suite.contracts;
  const named: [string, string | undefined][] = [
    ['the zero address', zeroAddress],
    ['the router', pool.router],
    ['the token creator', rights.currentCreator],
    ['the creator fee recipient', rights.creatorFeeRecipient],
    ['the hook', c.hook],
    ['the factory', c.factory],
    ['the fee escrow', c.fee_escrow],
    ['the PoolManager', c.pool_manager],
    ['the wallet itself', wallet],
  ];
  const hit = named.find(([, a]) => a && a.toLowerCase() === referrer.toLowerCase());
  return hit ? hit[0] : null;
}

/** Quotes a swap at one pinned block: expected and minimum output, fee, price impact, the steps before it. */
export async function quoteSwap(deps: SwapDeps, body: QuoteSwapInput) {
  const chainId = body.chain_id;
  const wallet = getAddress(body.wallet);
  const token = getAddress(body.token_address);
  const amountIn = BigInt(body.amount_in_raw);
  if (amountIn === 0n) throw new ApiError('invalid_amount', 'amount_in_raw must be greater than 0');
  const comment = body.comment ?? '';
  if (commentBytes32(comment) === null) {
    throw new ApiError('invalid_parameter', 'comment is longer than 32 bytes of UTF-8', {
      invalid_parameters: [{ name: 'comment', reason: 'range', detail: 'at most 32 bytes of UTF-8' }],
    });
  }
  const referrer = body.referrer ? getAddress(body.referrer) : null;
  const nowMs = deps.clock.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const pool = await findLaunchPool(snapshot, deps.deployments, chainId, token);
    const [input, output] = body.side === 'buy' ? [pool.quote, token] : [token, pool.quote];
    const hookData = encodeHookData(referrer ?? zeroAddress, comment);
    const priced = await priceSwap(snapshot, pool, {
      wallet,
      token,
      input,
      amountIn,
      hookData,
      permit2: PERMIT2_ADDRESS,
    });
    if (referrer) {
      const why = invalidReferrer(referrer, wallet, pool, priced);
      if (why)
        throw new ApiError('invalid_referrer', `The referrer is ${why}, which cannot earn referral fees`);
    }
    const expectedOut = priced.amountOut;
    if (expectedOut === 0n)
      throw new ApiError('quote_unavailable', 'This amount buys nothing at the current price');
    const minimumOut = (expectedOut * BigInt(10_000 - body.slippage_bps)) / 10_000n;
    const swapFeeNow = swapFee(priced.fees, {
      buy: body.side === 'buy',
      amountIn,
      expectedOut,
      timestamp: snapshot.inclusionTime ?? snapshot.timestamp,
      distributor: pool.suite.contracts.dividend_distributor as Address | undefined,
    });
    const fee = swapFeeNow.amount;
    const zeroForOne = input === pool.key.currency0;
    const impact = priceImpactBps({
      sqrtPriceX96: priced.sqrtPriceX96,
      zeroForOne,
      poolIn: body.side === 'buy' ? amountIn - fee : amountIn,
      poolOut: body.side === 'buy' ? expectedOut : expectedOut + fee,
    });
    if (impact > MAX_PRICE_IMPACT_BPS) {
      throw new ApiError(
        'quote_unavailable',
        `The price impact would be ${impact} bps (more than ${MAX_PRICE_IMPACT_BPS})`,
      );
    }

    const plan = new PlanBuilder(snapshot, wallet, { nowMs, lifetimeMs: QUOTE_LIFETIME_MS });
    let permit: QuoteClaims['permit'] = null;
    const balance = input === zeroAddress ? priced.wallet.native : (priced.wallet.erc20?.balance ?? 0n);
    if (balance < amountIn) {
      plan.issue('insufficient_balance', `The wallet holds ${balance} of the ${amountIn} it would spend`, {
        asset: input,
        actual_raw: balance,
        required_raw: amountIn,
      });
    }
    const erc20 = priced.wallet.erc20;
    if (erc20) {
      if (erc20.permit2Allowance < amountIn) {
        plan.transaction({
          id: 'approve-permit2',
          label: 'Allow Permit2 to move the input token',
          depends_on: [],
          to: input,
          data: encodeFunctionData({
            abi: ERC20_ABI,
            functionName: 'approve',
            args: [PERMIT2_ADDRESS, amountIn],
          }),
        });
        plan.issue('insufficient_allowance', 'Permit2 may not move enough of the input token yet', {
          asset: input,
          spender: PERMIT2_ADDRESS,
          actual_raw: erc20.permit2Allowance,
          required_raw: amountIn,
          remediation_step_id: 'approve-permit2',
        });
      }
      const base = BigInt(Math.max(Math.floor(nowMs / 1000), Number(snapshot.timestamp)));
      const r = erc20.routerAllowance;
      if (r.amount < amountIn || BigInt(r.expiration) <= base) {
        permit = {
          details: {
            token: input,
            amount: amountIn.toString(),
            expiration: Number(base) + PERMIT_LIFETIME_S,
            nonce: r.nonce,
          },
          spender: pool.router,
          sigDeadline: (base + BigInt(PERMIT_LIFETIME_S)).toString(),
        };
        plan.typedData({
          id: 'permit2-signature',
          label: 'Sign the Permit2 permit for the router',
          depends_on: erc20.permit2Allowance < amountIn ? ['approve-permit2'] : [],
          typed_data: permitTypedData(chainId, permit),
        });
        plan.issue('permit_required', 'The router needs a Permit2 signature for this amount', {
          asset: input,
          spender: pool.router,
          actual_raw: r.amount,
          required_raw: amountIn,
          remediation_step_id: 'permit2-signature',
        });
      }
    }
    if (swapFeeNow.totalRate > swapFeeNow.baseRate) {
      plan.issue(
        'anti_snipe_active',
        `The pool charges ${swapFeeNow.totalBps} bps now (base ${swapFeeNow.baseRate / 10_000n})`,
        { total_bps: swapFeeNow.totalBps },
      );
    }
    if (body.slippage_bps > HIGH_SLIPPAGE_BPS)
      plan.issue('high_slippage', `Slippage of ${body.slippage_bps} bps is high`);
    if (impact > HIGH_PRICE_IMPACT_BPS)
      plan.issue('high_price_impact', `The trade moves the price by ${impact} bps`);
    const built = await plan.build();
    const claims: QuoteClaims = {
      chain_id: chainId,
      wallet,
      token,
      side: body.side,
      amount_in: amountIn.toString(),
      slippage_bps: body.slippage_bps,
      referrer,
      comment,
      pool: pool.key,
      router: pool.router,
      expected_out: expectedOut.toString(),
      minimum_out: minimumOut.toString(),
      block: snapshot.blockNumber.toString(),
      issued_at: nowMs,
      config_version: priced.configVersion,
      permit,
    };
    return {
      quote_id: deps.quotes.sign(claims),
      chain_id: chainId,
      wallet,
      token_address: token,
      expires_at: built.expires_at,
      observed_block: built.observed_block,
      side: body.side,
      input_currency: input,
      output_currency: output,
      amount_in_raw: amountIn.toString(),
      expected_out_raw: expectedOut.toString(),
      minimum_out_raw: minimumOut.toString(),
      slippage_bps: body.slippage_bps,
      fee: {
        total_bps: swapFeeNow.totalBps,
        // The same rate in percentage units (100000000 = 100%): tax rates are finer than a bps.
        total_rate: swapFeeNow.totalRate.toString(),
        amount_raw: fee.toString(),
        currency: pool.quote,
        estimated: swapFeeNow.estimated,
        ...(swapFeeNow.components
          ? {
              components: swapFeeNow.components.map((c) => ({
                component: c.component,
                recipient: c.recipient,
                amount_raw: c.amount.toString(),
              })),
            }
          : {}),
      },
      price_impact_bps: impact,
      review: {
        pool_id: pool.poolId,
        router: pool.router,
        referrer,
        comment,
        suite_id: pool.suite.id,
      },
      issues: built.issues,
      steps: built.steps,
    };
  });
}
