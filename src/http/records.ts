// The records of the indexed reads and of transaction status, as JSON Schemas: the OpenAPI document
// publishes them as the 200 bodies of their operations (src/http/openapi.ts), and the tests validate
// real answers against them, so the document cannot drift from what the routes send.
import { type TSchema, Type } from '@sinclair/typebox';
import type { Operation } from './catalog.ts';
import { EVENT_TYPES } from '../indexer/journal.ts';

const Str = (description?: string) => Type.String(description ? { description } : {});
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const Hash = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });
const Raw = Type.String({ pattern: '^[0-9]+$', description: 'Integer in raw units, as a string' });
const Decimal = Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' });
const Block = Type.String({ pattern: '^[0-9]+$' });
const Time = Type.String({ format: 'date-time' });
/** One chain's figure, or one per chain id when the read spans chains. */
const Through = Type.Union([Nullable(Block), Type.Record(Type.String(), Block)], {
  description: 'The last block the index has processed (per chain when the read spans chains)',
});
const Meta = Type.Object({
  request_id: Str(),
  generated_at: Time,
  warnings: Type.Array(Type.String()),
  indexed_through_block: Type.Optional(Through),
  as_of_block: Type.Optional(Block),
});
const Pagination = Type.Object({
  next_cursor: Nullable(Str('Opaque; pass back as `cursor` for the next page; null on the last page')),
});
const page = <T extends TSchema>(item: T, extra: Record<string, TSchema> = {}) =>
  Type.Object({ data: Type.Array(item), pagination: Pagination, meta: Meta, ...extra });
const one = <T extends TSchema>(item: T) => Type.Object({ data: item, meta: Meta });

/** USD display figures: JSON numbers (the production clients read numbers), null without a USD price. */
const Usd = Nullable(Type.Number());
const MarketData = Type.Object(
  {
    data_status: Type.Union([Type.Literal('fresh'), Type.Literal('stale'), Type.Literal('pending')], {
      description: 'fresh: refreshed within two refresh periods; stale: older; pending: not refreshed yet',
    }),
    price: Nullable(Type.Object({ quote: Decimal, usd: Usd })),
    market_cap: Nullable(Type.Object({ quote: Decimal, usd: Usd })),
    liquidity: Nullable(
      Type.Object(
        { quote: Decimal, quote_raw: Raw, usd: Usd },
        { description: 'The quote currency the pool holds (launch pools are token-seeded and locked)' },
      ),
    ),
    quote_price: Nullable(Type.Object({ usd: Usd, updated_at: Time })),
    activity: Nullable(
      Type.Record(
        Type.Union([Type.Literal('1h'), Type.Literal('6h'), Type.Literal('24h')]),
        Type.Object({ trades: Type.Integer(), volume_quote_raw: Raw, volume_usd: Usd }),
      ),
    ),
    trending_score: Nullable(Type.Number()),
    updated_at: Nullable(Time),
    as_of_block: Nullable(Block),
  },
  {
    description:
      'Market data, refreshed on a schedule from the index (USD for stablecoin quotes, and for native and WETH quotes through the native USD price feed of the chain)',
  },
);

/** Profile fields (description, image_url, website, x, telegram) come from the metadata document when
 * this gateway pinned it, and are null otherwise. */
export const TokenRecord = Type.Object({
  chain_id: Type.Integer(),
  market: Type.Union([Type.Literal('standard'), Type.Literal('rwa')]),
  token: Type.Object({
    address: Address,
    name: Str(),
    symbol: Str(),
    decimals: Type.Literal(18),
    metadata_uri: Str(),
    description: Nullable(Str()),
    image_url: Nullable(Str()),
    website: Nullable(Str()),
    x: Nullable(Str()),
    telegram: Nullable(Str()),
    extra_metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Detail only' })),
    raw_hex: Type.Optional(
      Type.Record(Type.String(), Type.String({ pattern: '^0x([0-9a-f]{2})*$' }), {
        description:
          'Present when the chain gave bytes that are not valid UTF-8 or contain NUL: the text fields hold them with U+FFFD in place of what was invalid, and this holds the raw bytes of those fields as hex',
      }),
    ),
  }),
  launch: Type.Object({
    creator_address: Address,
    pool_id: Hash,
    created_at: Time,
    block_number: Block,
    quote: Type.Object({ address: Address, symbol: Nullable(Str()), decimals: Nullable(Type.Integer()) }),
    onchain: Type.Object({ transaction_hash: Hash }),
    contracts: Type.Object({ hook_address: Address }),
    suite_id: Str(),
  }),
  current_creator_address: Address,
  creator_fee_recipient_address: Nullable(Address),
  pool: Type.Optional(Type.Object({ hook_address: Address, tick_spacing: Type.Integer(), pool_id: Hash })),
  market_data: Type.Optional(MarketData),
});

const FeeComponent = Type.Object({
  component: Str('CREATOR, PLATFORM, REFERRER, …'),
  recipient: Address,
  amount_raw: Raw,
});

const Trade = Type.Object({
  transaction_hash: Hash,
  log_index: Type.Integer(),
  block_number: Block,
  block_hash: Hash,
  timestamp: Time,
  trader: Address,
  side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
  amount_in_raw: Raw,
  amount_out_raw: Raw,
  quote_amount_raw: Raw,
  token_amount_raw: Raw,
  fee_raw: Raw,
  fee_currency: Address,
  referrer: Nullable(Address),
  comment: Str(),
  fee_components: Type.Array(FeeComponent, {
    description: "The hook's fee credits of this swap (FeeComponentCredited), in fee_currency",
  }),
});

const Announcement = Type.Object({
  announcement_id: Hash,
  creator: Address,
  description: Str(),
  uri: Str(),
  block_number: Block,
  transaction_hash: Hash,
  log_index: Type.Integer(),
  posted_at: Time,
  raw_hex: Type.Optional(
    Type.Record(Type.String(), Type.String({ pattern: '^0x([0-9a-f]{2})*$' }), {
      description:
        'Present when the chain gave bytes that are not valid UTF-8 or contain NUL: the text fields hold them with U+FFFD in place of what was invalid, and this holds the raw bytes of those fields as hex',
    }),
  ),
});

const Holder = Type.Object({
  address: Address,
  balance_raw: Raw,
  supply_percent: Decimal,
  label: Nullable(
    Type.Union(
      ['pool', 'hook', 'fee_escrow', 'vesting_vault', 'burn', 'creator'].map((l) => Type.Literal(l)),
    ),
  ),
  is_creator: Type.Boolean(),
});

const FeePosition = Type.Object({
  chain_id: Type.Integer(),
  suite_id: Nullable(Str()),
  fee_escrow: Address,
  recipient: Address,
  currency: Address,
  symbol: Nullable(Str()),
  decimals: Nullable(Type.Integer()),
  claimable_raw: Raw,
  claimed_raw: Raw,
});

const Activity = Type.Object({
  kind: Type.Union([Type.Literal('launch'), Type.Literal('trade'), Type.Literal('announcement')]),
  chain_id: Type.Integer(),
  block_number: Block,
  log_index: Type.Integer(),
  timestamp: Time,
  transaction_hash: Hash,
  token_address: Address,
  token_symbol: Type.Optional(Str()),
  side: Type.Optional(Type.Union([Type.Literal('buy'), Type.Literal('sell')])),
  amount_in_raw: Type.Optional(Raw),
  amount_out_raw: Type.Optional(Raw),
  announcement_id: Type.Optional(Hash),
});

const WalletSummary = Type.Object({
  address: Address,
  chains: Type.Array(
    Type.Object({
      chain_id: Type.Integer(),
      tokens_launched: Type.Integer(),
      trades: Type.Integer(),
      announcements: Type.Integer(),
      fee_positions: Type.Integer(),
    }),
  ),
});

const TransactionStatus = Type.Object({
  chain_id: Type.Integer(),
  transaction_hash: Hash,
  status: Type.Union(['pending', 'confirmed', 'reverted', 'not_found'].map((s) => Type.Literal(s))),
  block_number: Type.Optional(Block),
  block_hash: Type.Optional(Hash),
  confirmations: Type.Optional(Type.Integer()),
  finalized: Type.Optional(Type.Boolean()),
  from: Type.Optional(Nullable(Address)),
  to: Type.Optional(Nullable(Address)),
  gas_used: Type.Optional(Raw),
  events: Type.Optional(
    Type.Array(
      Type.Object({
        address: Address,
        log_index: Type.Integer(),
        name: Str(),
        args: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
  ),
});

/** The 200 body of each documented read. */
// Plans (src/plans/plan.ts): every prepare answer carries these, plus its operation's own fields.
const Simulation = Type.Object({
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('not_run')]),
  block_number: Block,
  block_hash: Type.Optional(Hash),
  gas_used: Type.Optional(Raw),
  gas_limit: Type.Optional(Raw),
});
const StepBase = { id: Str(), label: Str(), depends_on: Type.Array(Str()), simulation: Simulation };
const Step = Type.Union([
  Type.Object({
    ...StepBase,
    kind: Type.Literal('transaction'),
    transaction: Type.Object({
      chain_id: Type.Integer(),
      from: Address,
      to: Address,
      data: Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$' }),
      value: Raw,
    }),
  }),
  Type.Object({
    ...StepBase,
    kind: Type.Literal('typed_data'),
    typed_data: Type.Object({
      domain: Type.Record(Type.String(), Type.Unknown()),
      types: Type.Record(Type.String(), Type.Array(Type.Object({ name: Str(), type: Str() }))),
      primaryType: Str(),
      message: Type.Record(Type.String(), Type.Unknown()),
    }),
  }),
]);
const Issue = Type.Object(
  {
    code: Str('A code of x-lp-plan-vocabulary'),
    severity: Type.Union([
      Type.Literal('blocking'),
      Type.Literal('action_required'),
      Type.Literal('warning'),
    ]),
    detail: Str(),
  },
  { additionalProperties: true, description: 'Details such as asset, actual_raw, required_raw' },
);
const PlanFields = {
  chain_id: Type.Integer(),
  actor: Address,
  prepared_at: Time,
  expires_at: Time,
  observed_block: Block,
  issues: Type.Array(Issue),
  steps: Type.Array(Step),
};
const Review = Type.Record(Type.String(), Type.Unknown(), { description: 'What the caller asked, as built' });
const plan = (extra: Record<string, TSchema> = {}) =>
  one(Type.Object({ ...PlanFields, review: Review, ...extra }));

/** The `data` of an event of GET /v1/events: where it happened, and the read routes' item for it. */
export const EventData = Type.Object(
  {
    type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    chain_id: Type.Integer(),
    block_number: Block,
    block_hash: Hash,
    transaction_hash: Hash,
    log_index: Type.Integer(),
    token_address: Address,
    record: Type.Union([TokenRecord, Trade, Announcement, FeeComponent], {
      description:
        'launch: a token as GET /tokens lists it; trade: as GET /tokens/{chain_id}/{token_address}/trades; announcement: as its announcements route; fee_credit: a fee_components item of its trade; metadata: the token as GET /tokens/{chain_id}/{token_address} gives it after the change',
    }),
    removed: Type.Optional(
      Type.Literal(true, {
        description: 'On `removed` events: the event was undone by a reorg (its data as first sent)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A webhook endpoint; `secret` only in the answers to creation and rotation. */
const WebhookEndpoint = Type.Object(
  {
    id: Str(),
    url: Str(),
    types: Type.Array(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
    chain_id: Nullable(Type.Integer()),
    token_address: Nullable(Address),
    confirmations: Type.Integer(),
    description: Str(),
    disabled: Type.Boolean(),
    disabled_reason: Nullable(Str()),
    created_at: Time,
    secret: Type.Optional(Str('whsec_…: verify deliveries with it (Standard Webhooks); shown this once')),
    previous_secret_expires_at: Type.Optional(Time),
  },
  { additionalProperties: false },
);
/** An API key as operators see it (never its hash; the secret only in the answer to its creation). */
const ApiKeyInfo = Type.Object(
  {
    key_id: Str(),
    plan: Type.Union(['playground', 'developer', 'builder', 'partner'].map((p) => Type.Literal(p))),
    limits: Type.Record(Type.String(), Type.Integer(), { description: "Overrides of the plan's limits" }),
    scopes: Type.Array(Str()),
    origins: Type.Array(Str()),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    expires_at: Nullable(Time),
    created_at: Time,
    last_used_at: Nullable(Time),
    key: Type.Optional(Str('The key itself: shown this once, stored by nobody')),
  },
  { additionalProperties: false },
);
const KeyUsageRecord = Type.Object(
  {
    key_id: Str(),
    plan: Str(),
    windows: Type.Array(
      Type.Object(
        {
          window: Type.Union([Type.Literal('minute'), Type.Literal('day'), Type.Literal('month')]),
          limit: Type.Integer(),
          used: Type.Integer({ description: 'Units charged in this window so far' }),
          remaining: Type.Integer(),
          resets_at: Time,
        },
        { additionalProperties: false },
      ),
    ),
    operations: Type.Array(
      Type.Object(
        {
          operation: Str('The route (its operationId)'),
          requests: Type.Integer({ description: 'Requests that reached admission, 429s included' }),
          rejected: Type.Integer({ description: 'Of those, answered 429' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Since `since`: this hour and the 23 before it' },
    ),
    since: Time,
  },
  { additionalProperties: false },
);
const WebhookDelivery = Type.Object(
  {
    event_id: Str('webhook-id of every attempt'),
    event: Str(),
    chain_id: Nullable(Type.Integer()),
    state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    last_status: Nullable(Type.Integer()),
    last_error: Nullable(Str()),
    next_attempt_at: Nullable(Time),
    created_at: Time,
    delivered_at: Nullable(Time),
  },
  { additionalProperties: false },
);

export const RESPONSE_BODIES: Partial<Record<Operation, TSchema>> = {
  launch_prepare: plan({
    predicted_token_address: Address,
    suite_id: Str(),
    metadata_uri: Str(),
    image_url: Str(),
    creation_fee: Type.Object({
      amount_raw: Raw,
      currency_address: Address,
      decimals: Type.Integer(),
      symbol: Str(),
    }),
  }),
  swap_quote: one(
    Type.Object({
      quote_id: Str('Pass to POST /v1/swaps/prepare before expires_at'),
      chain_id: Type.Integer(),
      wallet: Address,
      token_address: Address,
      expires_at: Time,
      observed_block: Block,
      side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
      input_currency: Address,
      output_currency: Address,
      amount_in_raw: Raw,
      expected_out_raw: Raw,
      minimum_out_raw: Raw,
      slippage_bps: Type.Integer(),
      fee: Type.Object({
        total_bps: Type.Integer(),
        total_rate: Type.Optional(Str('The rate in percentage units (100000000 = 100%)')),
        amount_raw: Raw,
        currency: Address,
        estimated: Type.Boolean(),
        components: Type.Optional(
          Type.Array(
            Type.Object({
              component: Str('protocol, creator, burn, dividend or integrator'),
              recipient: Address,
              amount_raw: Raw,
            }),
            { description: 'Tax pools: how the tax is split (REFERENCE §5), as the hook credits it' },
          ),
        ),
      }),
      price_impact_bps: Type.Integer(),
      review: Review,
      issues: Type.Array(Issue),
      steps: Type.Array(Step),
    }),
  ),
  swap_prepare: plan({ quote_id: Str(), refreshed_expected_out_raw: Raw, minimum_out_raw: Raw }),
  fee_claim_prepare: plan(),
  vesting_claim_prepare: plan(),
  dividend_claim_prepare: plan(),
  metadata_onchain_prepare: plan(),
  metadata_document_prepare: plan({ metadata_uri: Str(), image_url: Nullable(Str()) }),
  announcement_prepare: plan({ announcement_id: Hash }),
  token_list: page(TokenRecord),
  token_search: page(TokenRecord),
  creator_tokens: page(TokenRecord),
  token_detail: one(TokenRecord),
  token_trades: page(Trade),
  token_announcements: page(Announcement),
  holder_snapshot: page(Holder, {
    summary: Type.Object({ total_holders: Type.Integer(), total_supply_raw: Raw }),
  }),
  fee_claims_read: page(FeePosition),
  wallet_summary: one(WalletSummary),
  wallet_activity: page(Activity),
  transaction_status: one(TransactionStatus),
  // Not a JSON body: the `data` of each event of the stream (the document says text/event-stream).
  events: EventData,
  webhook_create: one(WebhookEndpoint),
  webhook_list: Type.Object({ data: Type.Array(WebhookEndpoint), meta: Meta }),
  webhook_detail: one(WebhookEndpoint),
  webhook_update: one(WebhookEndpoint),
  webhook_delete: one(Type.Object({ id: Str(), deleted: Type.Literal(true) })),
  webhook_rotate_secret: one(WebhookEndpoint),
  webhook_test: one(Type.Object({ id: Str(), event_id: Str() })),
  webhook_deliveries: page(WebhookDelivery),
  admin_keys_list: Type.Object({ data: Type.Array(ApiKeyInfo), meta: Meta }),
  admin_key_create: one(ApiKeyInfo),
  admin_key_detail: one(ApiKeyInfo),
  admin_key_update: one(ApiKeyInfo),
  admin_key_revoke: one(ApiKeyInfo),
  admin_key_usage: one(KeyUsageRecord),
};
