// POST /v1/swaps/quote and POST /v1/swaps/prepare: exact-input buys and sells of launch tokens through
// the Universal Router (V4_SWAP), paid with the native currency or an ERC-20 through Permit2.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  recoverTypedDataAddress,
  zeroAddress,
} from 'viem';
import type { ChainClients } from '../chain/clients.ts';
import { ERC20_ABI } from '../chain/erc20.ts';
import { type Snapshot, withSnapshot } from '../chain/snapshot.ts';
import { encodeExactInSingleSwap, type PermitSingle } from '../chain/universalRouter.ts';
import type { Clock } from '../clock.ts';
import { PERMIT2_ADDRESS } from '../chain/uniswap.ts';
import { Envelope, envelope } from '../http/envelope.ts';
import { ApiError } from '../errors.ts';
import { Address as AddressSchema, ChainIdSchema, StringEnum, Uint } from '../http/validation.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { commentBytes32, encodeHookData, type PoolKey } from '../launchpad/pool.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';
import { feeBpsAt, findLaunchPool, type LaunchPool, priceImpactBps, priceSwap } from '../swaps/pool.ts';
import type { QuoteSigner } from '../swaps/quoteId.ts';
import { routeBase } from './catalog.ts';
import { SwapPrepareBody } from './requestBodies.ts';

export const QUOTE_LIFETIME_MS = 120_000;
/** Beyond this price impact (the pool's part, fees excluded) no quote is given. */
export const MAX_PRICE_IMPACT_BPS = 5000;
const HIGH_PRICE_IMPACT_BPS = 1000;
const HIGH_SLIPPAGE_BPS = 1000;
/** Permits are signed for the exact amount and live 30 minutes. */
const PERMIT_LIFETIME_S = 1800;

export const SwapQuoteBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    wallet: AddressSchema(),
    token_address: AddressSchema(),
    side: StringEnum(['buy', 'sell']),
    amount_in_raw: Uint({ maxLength: 78 }),
    slippage_bps: Type.Integer({ minimum: 1, maximum: 5000 }),
    referrer: Type.Optional(AddressSchema()),
    comment: Type.Optional(Type.String({ maxLength: 128, description: 'At most 32 bytes of UTF-8.' })),
  },
  { additionalProperties: false },
);
type SwapQuoteBody = {
  chain_id: ChainId;
  wallet: string;
  token_address: string;
  side: 'buy' | 'sell';
  amount_in_raw: string;
  slippage_bps: number;
  referrer?: string;
  comment?: string;
};

/** What a quote_id carries. */
interface QuoteClaims {
  chain_id: ChainId;
  wallet: Address;
  token: Address;
  side: 'buy' | 'sell';
  amount_in: string;
  slippage_bps: number;
  referrer: Address | null;
  comment: string;
  pool: PoolKey;
  router: Address;
  expected_out: string;
  minimum_out: string;
  block: string;
  issued_at: number;
  permit: {
    details: { token: Address; amount: string; expiration: number; nonce: number };
    spender: Address;
    sigDeadline: string;
  } | null;
}

export interface SwapDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  quotes: QuoteSigner;
}

const PERMIT_TYPES = {
  PermitSingle: [
    { name: 'details', type: 'PermitDetails' },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
  PermitDetails: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint160' },
    { name: 'expiration', type: 'uint48' },
    { name: 'nonce', type: 'uint48' },
  ],
};

function permitTypedData(chainId: ChainId, permit: NonNullable<QuoteClaims['permit']>) {
  return {
    domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS as Address },
    types: PERMIT_TYPES,
    primaryType: 'PermitSingle' as const,
    message: permit,
  };
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

export function registerSwapRoutes(app: FastifyInstance, deps: SwapDeps) {
  const quoteBase = routeBase('swap_quote');
  app.route({
    ...quoteBase,
    schema: {
      ...quoteBase.schema,
      body: SwapQuoteBody,
      response: { 200: Envelope(Type.Object({}, { additionalProperties: true })) },
    },
    handler: async (request) => {
      const body = request.body as SwapQuoteBody;
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
        const bps = feeBpsAt(priced.poolConfig, snapshot.timestamp);
        const fee =
          body.side === 'buy'
            ? (amountIn * BigInt(bps)) / 10_000n
            : (expectedOut * BigInt(bps)) / BigInt(10_000 - bps);
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
          plan.issue(
            'insufficient_balance',
            `The wallet holds ${balance} of the ${amountIn} it would spend`,
            {
              asset: input,
              actual_raw: balance,
              required_raw: amountIn,
            },
          );
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
        if (bps > priced.poolConfig.baseFeeBps) {
          plan.issue(
            'anti_snipe_active',
            `The pool charges ${bps} bps now (base ${priced.poolConfig.baseFeeBps})`,
            { total_bps: bps },
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
          permit,
        };
        return envelope(request.id, deps.clock.now(), {
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
            total_bps: bps,
            amount_raw: fee.toString(),
            currency: pool.quote,
            estimated: body.side === 'sell',
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
        });
      });
    },
  });

  const prepareBase = routeBase('swap_prepare');
  app.route({
    ...prepareBase,
    schema: {
      ...prepareBase.schema,
      body: SwapPrepareBody,
      response: { 200: Envelope(Type.Object({}, { additionalProperties: true })) },
    },
    handler: async (request) => {
      const body = request.body as {
        quote_id: string;
        wallet: string;
        permit_signature?: Hex;
        permit2_signature?: Hex;
      };
      const q = deps.quotes.verify<QuoteClaims>(body.quote_id);
      const nowMs = deps.clock.now();
      if (nowMs - q.issued_at > QUOTE_LIFETIME_MS)
        throw new ApiError('stale_quote', 'The quote is older than 2 minutes; quote again');
      const wallet = getAddress(body.wallet);
      if (wallet !== q.wallet)
        throw new ApiError('wallet_not_authorized', 'The quote was made for another wallet');
      const signature = body.permit_signature ?? body.permit2_signature;
      if (q.permit && !signature)
        throw new ApiError('invalid_permit', 'This quote needs the signed Permit2 permit (permit_signature)');
      if (!q.permit && signature) {
        throw new ApiError(
          'invalid_parameter',
          'This quote asked for no permit; leave permit_signature out',
          {
            invalid_parameters: [
              { name: 'permit_signature', reason: 'conflict', detail: 'no permit was requested' },
            ],
          },
        );
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
        return envelope(request.id, deps.clock.now(), {
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
            reviewed_minimum_out_raw: q.minimum_out,
            execution_minimum_out_raw: q.minimum_out,
            slippage_bps: q.slippage_bps,
            referrer: q.referrer,
            comment: q.comment,
            router: pool.router,
            pool_id: pool.poolId,
            permit2: Boolean(q.permit),
          },
        });
      });
    },
  });
}
