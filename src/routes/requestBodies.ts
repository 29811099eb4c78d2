// Request bodies the spec defines completely. Routes validate against them whether or not their
// operation is served yet, so the contract (unknown fields, formats, limits) holds from the first version.
import { type TSchema, Type } from '@sinclair/typebox';
import { Address, ChainIdSchema, StringEnum, Uint } from '../inputRules.ts';
import { LaunchPrepareBody } from '../launchpad/launchRequest.ts';
import { EVENT_TYPES } from '../indexer/journal.ts';
import type { Operation } from '../http/catalog.ts';

const HEX_BYTES = '^0x(?:[0-9a-fA-F]{2})+$';

export const SwapQuoteBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    wallet: Address(),
    token_address: Address(),
    side: StringEnum(['buy', 'sell']),
    amount_in_raw: Uint({ bits: 128, code: 'invalid_amount' }),
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

export const DividendClaimBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    caller: Address(),
    claims: claims(
      Type.Object(
        { holder: Address(), token_address: Address(), distributor: Address() },
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

// Token write bodies.
export const TokenParams = Type.Object({ chain_id: ChainIdSchema(), token_address: Address() });
// The launch body's field rules, reused so one token field has one limit everywhere.
const T = LaunchPrepareBody.properties.token.properties;

export const MetadataOnchainBody = Type.Object(
  {
    actor: Address(),
    name: Type.Optional(T.name),
    symbol: Type.Optional(T.symbol),
    extra_metadata: Type.Optional(Type.Array(T.extra_metadata.items, { minItems: 1, maxItems: 16 })),
  },
  { additionalProperties: false },
);

export const MetadataDocumentBody = Type.Object(
  {
    actor: Address(),
    document: Type.Object(
      {
        description: Type.Optional(T.description),
        website: Type.Optional(T.website),
        x: Type.Optional(T.x),
        telegram: Type.Optional(T.telegram),
        image_uri: Type.Optional(
          Type.String({ maxLength: 2048, pattern: '^(ipfs://[A-Za-z0-9]\\S*|https?://\\S+)$' }),
        ),
        image_base64: Type.Optional(T.image_base64),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The deprecated `POST …/metadata/prepare`: the focused bodies' fields, chosen by `operation`. */
export const MetadataLegacyBody = Type.Object(
  {
    actor: Address(),
    operation: StringEnum(['update_name', 'update_symbol', 'update_extra_metadata', 'update_profile']),
    name: MetadataOnchainBody.properties.name,
    symbol: MetadataOnchainBody.properties.symbol,
    extra_metadata: MetadataOnchainBody.properties.extra_metadata,
    document: Type.Optional(MetadataDocumentBody.properties.document),
  },
  { additionalProperties: false },
);
export const AnnouncementBody = Type.Object(
  {
    actor: Address(),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
    uri: Type.Optional(Type.String({ maxLength: 2048, pattern: '^(https?|ipfs)://\\S+$' })),
  },
  { additionalProperties: false },
);

const EventTypes = Type.Array(StringEnum(EVENT_TYPES), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
});
/** A webhook endpoint's settings: where, and which events (the filters of GET /v1/events). */
const webhookFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https (http://127.0.0.1 on the devnet)' }),
  types: Type.Optional(EventTypes),
  chain_id: Type.Optional(ChainIdSchema()),
  token_address: Type.Optional(Address()),
  confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  description: Type.Optional(Type.String({ maxLength: 500 })),
};
export const WebhookCreateBody = Type.Object(webhookFields, { additionalProperties: false });
export const WebhookUpdateBody = Type.Object(
  {
    ...webhookFields,
    url: Type.Optional(webhookFields.url),
    chain_id: Type.Optional(Type.Union([ChainIdSchema(), Type.Null()])),
    token_address: Type.Optional(Type.Union([Address(), Type.Null()])),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const REQUEST_BODIES: Partial<Record<Operation, TSchema>> = {
  swap_prepare: SwapPrepareBody,
  vesting_claim_prepare: VestingClaimBody,
  dividend_claim_prepare: DividendClaimBody,
  fee_claim_prepare: FeeClaimBody,
};

/** Limit overrides of one key: positive whole numbers for the plan's fields (checked beside the schema). */
const KeyLimits = Type.Record(Type.String({ maxLength: 64 }), Type.Integer({ minimum: 1 }), {
  maxProperties: 16,
});

export const AdminKeyCreateBody = Type.Object(
  {
    plan: StringEnum(['playground', 'developer', 'builder', 'partner']),
    scopes: Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 32,
      description: "Scope names, or ['*'] (every tenant scope); empty: every read scope",
    }),
    origins: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 32 })),
    expires_at: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$',
        description: 'RFC 3339 date-time, in the future',
      }),
    ),
    limits: Type.Optional(KeyLimits),
  },
  { additionalProperties: false },
);

export const AdminKeyUpdateBody = Type.Object({ limits: KeyLimits }, { additionalProperties: false });
