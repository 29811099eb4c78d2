// Request bodies the spec defines completely. Routes validate against them whether or not their
// operation is served yet, so the contract (unknown fields, formats, limits) holds from the first version.
import { type TSchema, Type } from '@sinclair/typebox';
import { Address, ChainIdSchema, StringEnum, Uint } from '../http/validation.ts';
import type { Operation } from './catalog.ts';

const HEX_BYTES = '^0x(?:[0-9a-fA-F]{2})+$';

export const SwapQuoteBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    wallet: Address(),
    token_address: Address(),
    side: StringEnum(['buy', 'sell']),
    amount_in_raw: Uint({ maxLength: 78 }),
    slippage_bps: Type.Integer({ minimum: 1, maximum: 5000 }),
    referrer: Type.Optional(Address()),
    comment: Type.Optional(Type.String({ maxLength: 128, description: 'At most 32 bytes of UTF-8.' })),
  },
  { additionalProperties: false },
);

export const SwapPrepareBody = Type.Object(
  {
    quote_id: Type.String({ minLength: 16, maxLength: 8192 }),
    wallet: Address(),
    permit_signature: Type.Optional(Type.String({ pattern: HEX_BYTES, maxLength: 2048 })),
    /** Deprecated alias that a production client sends (REFERENCE §7 #3). */
    permit2_signature: Type.Optional(Type.String({ pattern: HEX_BYTES, maxLength: 2048, deprecated: true })),
  },
  { additionalProperties: false },
);

const claims = <T extends TSchema>(item: T) => Type.Array(item, { minItems: 1, maxItems: 10 });

export const VestingClaimBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    caller: Address(),
    claims: claims(
      Type.Object(
        { beneficiary: Address(), token_address: Address(), vault: Address() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const FeeClaimBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    caller: Address(),
    claims: claims(
      Type.Object(
        {
          recipient: Address(),
          fee_escrow: Address(),
          currency: Address({ description: 'The zero address is the native currency.' }),
          mode: StringEnum(['to_recipient', 'redirect']),
          destination: Type.Optional(
            Address({ description: 'Only with mode=redirect; defaults to the caller.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const REQUEST_BODIES: Partial<Record<Operation, TSchema>> = {
  swap_prepare: SwapPrepareBody,
  vesting_claim_prepare: VestingClaimBody,
  fee_claim_prepare: FeeClaimBody,
};
