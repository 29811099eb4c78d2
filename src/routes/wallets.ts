// The indexed reads of a wallet: adapt HTTP to listFeePositions, getWalletSummary and listWalletActivity.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getAddress } from 'viem';
import type { Clock } from '../clock.ts';
import { envelope, indexedPage } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { Address as AddressSchema, ChainIdSchema, PageCursor, PageLimit } from '../inputRules.ts';
import type { ChainId } from '../launchpad/chains.ts';
import {
  getWalletSummary,
  listFeePositions,
  listWalletActivity,
  type WalletReadDeps,
} from '../operations/walletQueries.ts';
import { routeBase } from '../http/catalog.ts';

const WalletParams = Type.Object({ address: AddressSchema() });
const addressOf = (request: FastifyRequest) => getAddress((request.params as { address: string }).address);

export function registerWalletRoutes(app: FastifyInstance, deps: WalletReadDeps & { clock: Clock }) {
  const fees = routeBase('fee_claims_read');
  app.route({
    ...fees,
    schema: {
      ...fees.schema,
      params: WalletParams,
      querystring: Type.Object(
        { chain_id: ChainIdSchema(), limit: PageLimit, cursor: PageCursor },
        { additionalProperties: false },
      ),
    },
    handler: async (request) => {
      const q = request.query as { chain_id: ChainId; cursor?: string };
      const p = await listFeePositions(deps, {
        recipient: addressOf(request),
        chainId: q.chain_id,
        limit: pageSize(q),
        cursor: q.cursor,
      });
      const body = indexedPage(request.id, deps.clock.now(), p);
      return { ...body, meta: { ...body.meta, ...(p.asOfBlock ? { as_of_block: p.asOfBlock } : {}) } };
    },
  });

  const summary = routeBase('wallet_summary');
  app.route({
    ...summary,
    schema: {
      ...summary.schema,
      params: WalletParams,
      querystring: Type.Object({ chain_id: Type.Optional(ChainIdSchema()) }, { additionalProperties: false }),
    },
    handler: async (request) => {
      const chainId = (request.query as { chain_id?: ChainId }).chain_id;
      const s = await getWalletSummary(deps, { address: addressOf(request), chainId });
      const body = envelope(request.id, deps.clock.now(), s.summary);
      return { ...body, meta: { ...body.meta, indexed_through_block: s.indexedThrough } };
    },
  });

  const activity = routeBase('wallet_activity');
  app.route({
    ...activity,
    schema: {
      ...activity.schema,
      params: WalletParams,
      querystring: Type.Object(
        { chain_id: Type.Optional(ChainIdSchema()), limit: PageLimit, cursor: PageCursor },
        { additionalProperties: false },
      ),
    },
    handler: async (request) => {
      const q = request.query as { chain_id?: ChainId; cursor?: string };
      const p = await listWalletActivity(deps, {
        address: addressOf(request),
        chainId: q.chain_id,
        limit: pageSize(q),
        cursor: q.cursor,
      });
      return indexedPage(request.id, deps.clock.now(), p);
    },
  });
}
