// GET /v1/config: its query and answer schemas; adapts HTTP to getConfig.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import { Envelope, envelope, envelopeJson, JSON_CONTENT_TYPE } from '../http/envelope.ts';
import { ChainIdSchema, StringEnum } from '../inputRules.ts';
import { CHAIN_IDS } from '../launchpad/chains.ts';
import {
  CONFIG_SECTIONS,
  type ConfigDeps,
  type ConfigResult,
  getConfig,
  type GetConfigInput,
} from '../operations/getConfig.ts';
import { routeBase } from '../http/catalog.ts';

export const ConfigQuery = Type.Object(
  {
    chain_id: ChainIdSchema({ description: 'One of 8453, 4663, 143, 5042; any other is unsupported_chain.' }),
    market: StringEnum(['standard', 'rwa', 'all'], { default: 'all' }),
    launch_product: StringEnum(['non-tax', 'tax'], { default: 'non-tax' }),
    include: Type.String({
      pattern: '^(chains|suites|quotes)(,(chains|suites|quotes))*$',
      default: 'chains,suites,quotes',
      description: 'Comma-separated sections among chains, suites, quotes.',
      'x-lp-allowed': [...CONFIG_SECTIONS],
    }),
    active_only: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);

const Uint = Type.String({ pattern: '^(0|[1-9][0-9]*)$' });
const AddressOut = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const Route = StringEnum(['standard', 'rwa']);

const ChainConfiguration = Type.Object({
  chain_id: Type.Integer({ enum: [...CHAIN_IDS] }),
  name: Type.String(),
  native_currency: Type.Object({
    symbol: Type.String(),
    decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  }),
  capabilities: Type.Object({
    launch_token_mode: StringEnum(['b20', 'erc20']),
    b20_asset_status: StringEnum(['active', 'inactive', 'not_checked', 'not_applicable']),
  }),
});

const CreationFee = Type.Object({
  amount_raw: Uint,
  currency: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
});

const SuiteCapabilities = Type.Object(
  Object.fromEntries(
    [
      'launch_creation_fee',
      'announcements',
      'editable_metadata',
      'vesting',
      'creator_rights',
      'atomic_launch_buy',
      'generic_fee_components',
      'quote_revisions',
      'launch_creation_switch',
    ].map((k) => [k, Type.Boolean()]),
  ),
);

/** A percentage-unit value: 100000000 = 100%, 1000000 = 1% (not basis points). */
const Percent = Type.String({ pattern: '^(?:0|[1-9][0-9]{0,7}|100000000)$', maxLength: 9 });

const InclusiveTaxPolicy = Type.Object(
  {
    format: Type.Literal('inclusive'),
    percentage_scale: Type.Literal('100000000'),
    rate_scale: Type.Literal('1000000000000000000000000'),
    tax_fee_bounds: Type.Object({
      minimum_buy_tax_rate: Percent,
      maximum_buy_tax_rate: Percent,
      minimum_sell_tax_rate: Percent,
      maximum_sell_tax_rate: Percent,
    }),
    protocol_fee_configuration: Type.Object({
      protocol_tax_share: Percent,
      minimum_protocol_fee_rate: Percent,
      maximum_protocol_fee_rate: Percent,
      protocol_fee_recipient: AddressOut,
    }),
    anti_snipe_configuration: Type.Object({
      start_total_fee_rate: Percent,
      window_seconds: Type.Integer({ minimum: 0 }),
    }),
    minimum_dividend_holding_requirement_raw: Uint,
  },
  { description: 'The live policy of an inclusive tax suite, read from its factory at as_of_block.' },
);

const Bps = Type.Integer({ minimum: 0, maximum: 9900 });
const PreInclusiveTaxPolicy = Type.Object({
  buy_min_bps: Bps,
  buy_max_bps: Bps,
  sell_min_bps: Bps,
  sell_max_bps: Bps,
  base_fee_bps: Bps,
  anti_snipe_window_seconds: Type.Integer({ minimum: 0 }),
  anti_snipe_start_total_bps: Bps,
});

const ContractSuite = Type.Object({
  id: Type.String(),
  version: Type.String(),
  chain_id: Type.Integer({ enum: [...CHAIN_IDS] }),
  route: Route,
  supported_routes: Type.Array(Route, { minItems: 1, uniqueItems: true }),
  active_for_creation: Type.Boolean(),
  creation_available: Type.Boolean(),
  first_block: Type.Integer({ minimum: 0 }),
  token_mode: StringEnum(['b20', 'erc20']),
  launch_product: Type.Optional(StringEnum(['non-tax', 'tax'])),
  tax_format: Type.Optional(StringEnum(['pre-inclusive', 'inclusive'])),
  dividend_claims: Type.Optional(
    Type.Union([
      Type.Object({ kind: Type.Literal('permissionless') }),
      Type.Object({ kind: Type.Literal('holder-authorized'), helper: AddressOut }),
    ]),
  ),
  dividend_accounting: Type.Optional(StringEnum(['allocation-time', 'fee-accrual'])),
  zero_eligible_dividend_policy: Type.Optional(StringEnum(['protocol-recipient'])),
  tax_policy: Type.Optional(Type.Union([PreInclusiveTaxPolicy, InclusiveTaxPolicy])),
  config_version: Type.Optional(Uint),
  launch_supply_raw: Type.Optional(Uint),
  launch_creation_enabled: Type.Optional(Type.Boolean()),
  launch_buy_adapter_address: Type.Optional(AddressOut),
  creation_fee: Type.Optional(CreationFee),
  contracts: Type.Object({
    factory: AddressOut,
    hook: AddressOut,
    fee_escrow: AddressOut,
    announcement_registry: AddressOut,
    pool_manager: AddressOut,
    state_view: AddressOut,
    quoter: AddressOut,
    vesting_vault: Type.Optional(AddressOut),
    universal_router: Type.Optional(AddressOut),
    swap_router: Type.Optional(AddressOut),
    swapx_router: Type.Optional(AddressOut),
    permit: Type.Optional(AddressOut),
    permit2: Type.Optional(AddressOut),
    dividend_distributor: Type.Optional(AddressOut),
  }),
  capabilities: SuiteCapabilities,
});

const QuoteConfiguration = Type.Object({
  address: AddressOut,
  symbol: Type.String(),
  name: Type.Optional(Type.String()),
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  asset_type: Type.Union([
    StringEnum(['native', 'stablecoin', 'wrapped_crypto', 'crypto_token', 'tokenized_security']),
    Type.Null(),
  ]),
  issuer: Type.Union([
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      legal_entities: Type.Array(Type.String()),
      sources: Type.Array(Type.String()),
    }),
    Type.Null(),
  ]),
  route: Route,
  suite_id: Type.String(),
  registered: Type.Boolean(),
  selectable: Type.Boolean(),
  quote_revision: Type.Optional(Uint),
  creation_fee: Type.Optional(CreationFee),
});

const ConfigData = Type.Object({
  chain: ChainConfiguration,
  supported_chain_ids: Type.Array(Type.Integer({ enum: [...CHAIN_IDS] })),
  suites: Type.Optional(Type.Array(ContractSuite)),
  quotes: Type.Optional(Type.Array(QuoteConfiguration)),
  as_of_block: Type.Optional(Uint),
});

function answer(id: string, clock: Clock, { config, warnings }: ConfigResult) {
  return envelope(id, clock.now(), config, warnings);
}

export function registerConfigRoutes(app: FastifyInstance, deps: ConfigDeps & { clock: Clock }) {
  const base = routeBase('config');
  const staticJson = new WeakMap<ConfigResult, string>();
  app.route({
    ...base,
    schema: { ...base.schema, querystring: ConfigQuery, response: { 200: Envelope(ConfigData) } },
    handler: (request, reply) => {
      const result = getConfig(deps, request.query as GetConfigInput);
      if (result instanceof Promise) return result.then((r) => answer(request.id, deps.clock, r));
      // A static answer is one object per chain (getConfig): its data is serialized once.
      let json = staticJson.get(result);
      if (json === undefined) staticJson.set(result, (json = JSON.stringify(result.config)));
      // Sent here and nothing returned: a returned reply would be awaited as a thenable (fastify).
      reply.type(JSON_CONTENT_TYPE).send(envelopeJson(request.id, deps.clock.now(), json, result.warnings));
    },
  });
}
