// What a swap quote carries from POST /v1/swaps/quote to POST /v1/swaps/prepare (inside the signed
// quote_id), and the Permit2 PermitSingle the wallet signs for an ERC-20 input.
import type { Address } from 'viem';
import { PERMIT2_ADDRESS } from '../chain/uniswap.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { PoolKey } from '../launchpad/pool.ts';

export const QUOTE_LIFETIME_MS = 120_000;
/** Permits are signed for the exact amount and live 30 minutes. */
export const PERMIT_LIFETIME_S = 1800;

/** What a quote_id carries. */
export interface QuoteClaims {
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
  /** The suite's configuration version the quote was priced under; prepare refuses another (stale_plan). */
  config_version?: string | null;
  permit: {
    details: { token: Address; amount: string; expiration: number; nonce: number };
    spender: Address;
    sigDeadline: string;
  } | null;
}

export const PERMIT_TYPES = {
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

/** The EIP-712 typed data of a quote's permit, as the wallet signs it. */
export function permitTypedData(chainId: ChainId, permit: NonNullable<QuoteClaims['permit']>) {
  return {
    domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS as Address },
    types: PERMIT_TYPES,
    primaryType: 'PermitSingle' as const,
    message: permit,
  };
}
