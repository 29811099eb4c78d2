// GET /v1/config. The static chain section is served here; the live sections (suites, quotes) need a
// pinned chain read and answer temporarily_unavailable until a chain RPC and the snapshot engine serve them.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ChainClients } from '../chain/clients.ts';
import type { Clock } from '../clock.ts';
import { Envelope, envelope } from '../http/envelope.ts';
import { ApiError } from '../http/problems.ts';
import { ChainIdSchema, StringEnum } from '../http/validation.ts';
import { CHAIN_IDS, CHAINS, type ChainId } from '../launchpad/chains.ts';
import { routeBase } from './catalog.ts';

export const CONFIG_SECTIONS = ['chains', 'suites', 'quotes'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

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

const ConfigData = Type.Object({
  chain: ChainConfiguration,
  supported_chain_ids: Type.Array(Type.Integer({ enum: [...CHAIN_IDS] })),
});

export function parseInclude(include: string): Set<ConfigSection> {
  return new Set(include.split(',') as ConfigSection[]);
}

export function chainConfiguration(chainId: ChainId) {
  const chain = CHAINS[chainId];
  return {
    chain_id: chain.chain_id,
    name: chain.name,
    native_currency: chain.native_currency,
    // A static, chain-only answer does not read the B20 activation registry (spec: ChainCapabilities).
    capabilities: { launch_token_mode: chain.launch_token_mode, b20_asset_status: 'not_checked' },
  };
}

export function registerConfigRoutes(app: FastifyInstance, deps: { chains: ChainClients; clock: Clock }) {
  const base = routeBase('config');
  app.route({
    ...base,
    schema: { ...base.schema, querystring: ConfigQuery, response: { 200: Envelope(ConfigData) } },
    handler: async (request) => {
      const query = request.query as { chain_id: ChainId; include: string };
      const include = parseInclude(query.include);
      if (include.has('suites') || include.has('quotes')) {
        const detail = deps.chains.isConfigured(query.chain_id)
          ? 'Live configuration (suites, quotes) is not served by this gateway version yet; use include=chains'
          : `Live configuration (suites, quotes) needs a verified chain read, and no RPC is configured for chain ${query.chain_id}`;
        throw new ApiError('temporarily_unavailable', detail, { chain_id: query.chain_id });
      }
      return envelope(request.id, deps.clock.now(), {
        chain: chainConfiguration(query.chain_id),
        supported_chain_ids: [...CHAIN_IDS],
      });
    },
  });
}
