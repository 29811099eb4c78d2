// The indexed reads of tokens: query schemas, and adapters to the index queries (src/operations/
// tokenQueries.ts) that wrap their pages in the envelope with meta.indexed_through_block.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Address, getAddress } from 'viem';
import { envelope, indexedPage, indexedPageJson, JSON_CONTENT_TYPE, publicOrigin } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { Address as AddressSchema, ChainIdSchema, PageCursor, PageLimit, StringEnum } from '../inputRules.ts';
import type { ChainId } from '../launchpad/chains.ts';
import {
  getHolders,
  getToken,
  type IndexedPage,
  listAnnouncements,
  listCreatorTokens,
  listTokens,
  listTrades,
  searchTokens,
  SORTS,
  type Sort,
  type TokenReadDeps,
  type TokenRowsInput,
} from '../operations/tokenQueries.ts';
import { type Operation, routeBase } from '../http/catalog.ts';

const TokenParams = Type.Object({ chain_id: ChainIdSchema(), token_address: AddressSchema() });
const TokenRowsQuery = Type.Object({ limit: PageLimit, cursor: PageCursor }, { additionalProperties: false });

type Query = { chain_id?: ChainId; cursor?: string; [name: string]: unknown };

export function registerTokenReadRoutes(app: FastifyInstance, deps: TokenReadDeps) {
  const route = (
    operation: Operation,
    schema: object,
    handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) => {
    const base = routeBase(operation);
    app.route({ ...base, schema: { ...base.schema, ...schema }, handler } as never);
  };
  /** The page size (the one pageSize rule), the cursor and the origin every list takes. */
  const pageOf = (request: FastifyRequest) => {
    const q = request.query as Query;
    return { limit: pageSize(q), cursor: q.cursor, origin: publicOrigin(deps.settings.publicUrl, request) };
  };
  const rowsOf = (request: FastifyRequest): TokenRowsInput => {
    const p = request.params as { chain_id: ChainId; token_address: string };
    const q = request.query as Query;
    return { chainId: p.chain_id, token: getAddress(p.token_address), limit: pageSize(q), cursor: q.cursor };
  };
  const page = (request: FastifyRequest, p: IndexedPage) => indexedPage(request.id, deps.clock.now(), p);
  /** A list page sent as JSON text (a shared page's rows are serialised once). */
  const send = (request: FastifyRequest, reply: FastifyReply, p: IndexedPage) =>
    reply.type(JSON_CONTENT_TYPE).send(indexedPageJson(request.id, deps.clock.now(), p));

  route(
    'token_list',
    {
      querystring: Type.Object(
        {
          chain_id: Type.Optional(ChainIdSchema()),
          market: Type.Optional(StringEnum(['all', 'standard', 'rwa'], { default: 'all' })),
          sort: Type.Optional(StringEnum(SORTS, { default: 'newest' })),
          limit: PageLimit,
          cursor: PageCursor,
        },
        { additionalProperties: false },
      ),
    },
    async (request, reply) => {
      const q = request.query as Query & { market?: string; sort?: Sort };
      const filters = { chain_id: q.chain_id, market: q.market, sort: q.sort };
      return send(request, reply, await listTokens(deps, { ...pageOf(request), ...filters }));
    },
  );

  route(
    'token_search',
    {
      querystring: Type.Object(
        {
          chain_id: Type.Optional(ChainIdSchema()),
          q: Type.String({ minLength: 1, maxLength: 100 }),
          // What the deprecated GET /tokens?q= form carried: it answers like this route, not 400.
          market: Type.Optional(StringEnum(['all', 'standard', 'rwa'], { default: 'all' })),
          sort: Type.Optional(StringEnum(SORTS, { default: 'newest' })),
          limit: PageLimit,
          cursor: PageCursor,
        },
        { additionalProperties: false },
      ),
    },
    async (request, reply) => {
      const q = request.query as Query & { q: string; market?: string; sort?: Sort };
      const filters = { chain_id: q.chain_id, q: q.q, market: q.market, sort: q.sort };
      return send(request, reply, await searchTokens(deps, { ...pageOf(request), ...filters }));
    },
  );

  route(
    'creator_tokens',
    {
      params: Type.Object({ address: AddressSchema() }),
      querystring: Type.Object(
        { chain_id: Type.Optional(ChainIdSchema()), limit: PageLimit, cursor: PageCursor },
        { additionalProperties: false },
      ),
    },
    async (request, reply) => {
      const creator = getAddress((request.params as { address: string }).address) as Address;
      const chainId = (request.query as Query).chain_id;
      return send(
        request,
        reply,
        await listCreatorTokens(deps, { ...pageOf(request), chain_id: chainId, creator }),
      );
    },
  );

  route(
    'token_detail',
    {
      params: TokenParams,
      querystring: Type.Object(
        { include: Type.Optional(Type.String({ pattern: '^(pool|market)(,(pool|market))*$' })) },
        { additionalProperties: false },
      ),
    },
    async (request) => {
      const p = request.params as { chain_id: ChainId; token_address: string };
      const include = ((request.query as { include?: string }).include ?? '').split(',').filter(Boolean);
      const { record, indexedThrough } = await getToken(deps, {
        chainId: p.chain_id,
        token: getAddress(p.token_address),
        include,
        origin: publicOrigin(deps.settings.publicUrl, request),
      });
      const body = envelope(request.id, deps.clock.now(), record);
      return { ...body, meta: { ...body.meta, indexed_through_block: indexedThrough } };
    },
  );

  route('token_trades', { params: TokenParams, querystring: TokenRowsQuery }, async (request, reply) =>
    send(request, reply, await listTrades(deps, rowsOf(request))),
  );

  route('token_announcements', { params: TokenParams, querystring: TokenRowsQuery }, async (request, reply) =>
    send(request, reply, await listAnnouncements(deps, rowsOf(request))),
  );

  route('holder_snapshot', { params: TokenParams, querystring: TokenRowsQuery }, async (request) => {
    const h = await getHolders(deps, rowsOf(request));
    const body = page(request, h);
    return {
      data: body.data,
      summary: h.summary,
      pagination: body.pagination,
      meta: { ...body.meta, as_of_block: h.asOfBlock },
    };
  });
}
