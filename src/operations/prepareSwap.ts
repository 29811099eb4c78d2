// prepareSwap: the swap transaction of a quote (its quote_id), re-priced at a new pinned block; refused
// when the price moved below the reviewed minimum, the approval or permit is missing, or the quote is old.
import { type Address, getAddress, type Hex, recoverTypedDataAddress, zeroAddress } from 'viem';
import { type Snapshot, withSnapshot } from '../chain/snapshot.ts';
import { encodeExactInSingleSwap, type PermitSingle } from '../chain/universalRouter.ts';
import { PERMIT2_ADDRESS } from '../chain/uniswap.ts';
import { ApiError } from '../errors.ts';
import { encodeHookData } from '../launchpad/pool.ts';
import { PlanBuilder } from '../plans/plan.ts';
import { findLaunchPool, priceSwap } from '../swaps/pool.ts';
import { permitTypedData, QUOTE_LIFETIME_MS, type QuoteClaims } from '../swaps/quoteClaims.ts';
import type { SwapDeps } from './quoteSwap.ts';

/** The request body of POST /v1/swaps/prepare. */
export interface PrepareSwapInput {
  quote_id: string;
  wallet: string;
  permit_signature?: Hex;
  permit2_signature?: Hex;
}

/** Prepares the swap of a quote: the router transaction, simulated at one pinned block. */
export async function prepareSwap(deps: SwapDeps, body: PrepareSwapInput) {
  const q = deps.quotes.verify<QuoteClaims>(body.quote_id);
  const nowMs = deps.clock.now();
  if (nowMs - q.issued_at > QUOTE_LIFETIME_MS)
    throw new ApiError('stale_quote', 'The quote is older than 2 minutes; quote again');
  const wallet = getAddress(body.wallet);
  if (wallet !== q.wallet)
    throw new ApiError('wallet_not_authorized', 'The quote was made for another wallet');
  if (
    body.permit_signature !== undefined &&
    body.permit2_signature !== undefined &&
    body.permit_signature.toLowerCase() !== body.permit2_signature.toLowerCase()
  ) {
    throw new ApiError('incompatible_parameters', 'permit_signature and permit2_signature differ; send one', {
      invalid_parameters: [
        { name: 'permit2_signature', reason: 'conflict', detail: 'a deprecated alias of permit_signature' },
      ],
    });
  }
  const signature = body.permit_signature ?? body.permit2_signature;
  if (q.permit && !signature)
    throw new ApiError('invalid_permit', 'This quote needs the signed Permit2 permit (permit_signature)');
  if (!q.permit && signature) {
    throw new ApiError('invalid_parameter', 'This quote asked for no permit; leave permit_signature out', {
      invalid_parameters: [
        { name: 'permit_signature', reason: 'conflict', detail: 'no permit was requested' },
      ],
    });
  }
  if (q.permit && signature) {
    let signer: Address | undefined;
    try {
      signer = await recoverTypedDataAddress({
        ...permitTypedData(q.chain_id, q.permit),
        signature,
      } as never);
    } catch {
      signer = undefined;
    }
    if (signer !== wallet)
      throw new ApiError(
        'invalid_permit',
        'The permit signature is not the wallet’s signature of this quote’s permit',
      );
  }
  const amountIn = BigInt(q.amount_in);
  const minimumOut = BigInt(q.minimum_out);
  return withSnapshot(deps.chains, q.chain_id, async (snapshot: Snapshot) => {
    const pool = await findLaunchPool(snapshot, deps.deployments, q.chain_id, q.token);
    const input = q.side === 'buy' ? pool.quote : q.token;
    const hookData = encodeHookData(q.referrer ?? zeroAddress, q.comment);
    const priced = await priceSwap(snapshot, pool, {
      wallet,
      token: q.token,
      input,
      amountIn,
      hookData,
      permit2: PERMIT2_ADDRESS,
    });
    // The suite's configuration changed since the quote (fees, quotes, …): what was reviewed no longer holds.
    if (q.config_version && priced.configVersion && priced.configVersion !== q.config_version) {
      throw new ApiError(
        'stale_plan',
        `The suite's configuration changed since the quote (version ${q.config_version} → ${priced.configVersion}); quote again`,
        { chain_id: q.chain_id, token_address: q.token },
      );
    }
    if (priced.amountOut < minimumOut) {
      throw new ApiError(
        'stale_quote',
        `The price moved: ${priced.amountOut} now, below the reviewed minimum ${minimumOut}`,
      );
    }
    const balance = input === zeroAddress ? priced.wallet.native : (priced.wallet.erc20?.balance ?? 0n);
    if (balance < amountIn) {
      throw new ApiError(
        'insufficient_balance',
        `The wallet holds ${balance} of the ${amountIn} it would spend`,
        {
          asset: input,
          actual_raw: balance.toString(),
          required_raw: amountIn.toString(),
        },
      );
    }
    const erc20 = priced.wallet.erc20;
    if (erc20) {
      if (erc20.permit2Allowance < amountIn) {
        throw new ApiError('approval_not_confirmed', 'The approval of Permit2 is not on chain yet');
      }
      if (q.permit) {
        if (erc20.routerAllowance.nonce !== q.permit.details.nonce) {
          throw new ApiError(
            'invalid_permit',
            'The Permit2 nonce moved since the quote; quote and sign again',
          );
        }
      } else if (
        erc20.routerAllowance.amount < amountIn ||
        BigInt(erc20.routerAllowance.expiration) <= snapshot.timestamp
      ) {
        throw new ApiError(
          'approval_not_confirmed',
          'The router’s Permit2 allowance is short or expired; quote again',
        );
      }
    }
    const plan = new PlanBuilder(snapshot, wallet, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.swap,
    });
    const permit: PermitSingle | undefined = q.permit
      ? {
          details: { ...q.permit.details, amount: BigInt(q.permit.details.amount) },
          spender: q.permit.spender,
          sigDeadline: BigInt(q.permit.sigDeadline),
        }
      : undefined;
    const call = encodeExactInSingleSwap({
      key: pool.key,
      zeroForOne: input === pool.key.currency0,
      amountIn,
      minAmountOut: minimumOut,
      hookData,
      deadline: plan.expiresAtSeconds,
      ...(permit && signature ? { permit: { permit, signature } } : {}),
    });
    plan.transaction({
      id: 'swap',
      label: q.side === 'buy' ? 'Buy' : 'Sell',
      depends_on: [],
      to: pool.router,
      data: call.data,
      value: call.value,
    });
    const built = await plan.build();
    return {
      ...built,
      quote_id: body.quote_id,
      refreshed_expected_out_raw: priced.amountOut.toString(),
      minimum_out_raw: minimumOut.toString(),
      review: {
        side: q.side,
        token_address: q.token,
        input_currency: input,
        output_currency: q.side === 'buy' ? q.token : pool.quote,
        amount_in_raw: q.amount_in,
        reviewed_expected_out_raw: q.expected_out,
        refreshed_expected_out_raw: priced.amountOut.toString(),
        reviewed_minimum_out_raw: q.minimum_out,
        execution_minimum_out_raw: q.minimum_out,
        slippage_bps: q.slippage_bps,
        referrer: q.referrer,
        comment: q.comment,
        router: pool.router,
        pool_id: pool.poolId,
        permit2: Boolean(q.permit),
      },
    };
  });
}
