// The indexed reads: token list, search, detail, a creator's tokens, a token's trades and announcements.
// Served from the index (src/indexer); every answer carries how far the index reached
// (meta.indexed_through_block). Lists page with signed cursors bound to route and filters.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Abi, type Address, getAddress } from 'viem';
import { ERC20_ABI } from '../chain/erc20.ts';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { Cursors } from '../http/cursor.ts';
import { envelope } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { ApiError } from '../http/problems.ts';
import { Address as AddressSchema, ChainIdSchema, StringEnum } from '../http/validation.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { marketData } from '../indexer/marketData.ts';
import { prefixEnd, searchWords } from '../indexer/words.ts';
import type { Database, TokensTable } from '../store/db.ts';
import { type Operation, routeBase } from './catalog.ts';

export interface TokenReadDeps {
  database: Database;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  cursors: Cursors;
}

const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 }));
const Cursor = Type.Optional(Type.String({ minLength: 1, maxLength: 4096 }));
const TokenParams = Type.Object({ chain_id: ChainIdSchema(), token_address: AddressSchema() });
/** Orders the index can serve now; the market-data orders need the market-data refresh (not built yet). */
const SORTS = ['newest', 'oldest', 'trending', 'liquidity', 'market_cap', 'volume_24h'] as const;

/** Search candidates looked up by address; more than this many use a subquery instead. */
const MAX_CANDIDATES = 1000;

const iso = (seconds: number | string | bigint) => new Date(Number(seconds) * 1000).toISOString();

async function indexedThrough(deps: TokenReadDeps, chainIds: readonly ChainId[]) {
  const rows = await deps.database.db
    .selectFrom('index_state')
    .select(['chain_id', 'indexed_through'])
    .where('chain_id', 'in', [...chainIds])
    .execute();
  const by = Object.fromEntries(rows.map((r) => [r.chain_id, String(r.indexed_through)]));
  return chainIds.length === 1 ? (by[chainIds[0] as number] ?? null) : by;
}

function tokenRecord(deps: TokenReadDeps, t: TokensTable, include: Set<string>) {
  const quote = deps.deployments
    .get(t.chain_id as ChainId)
    ?.quotes.find((q) => q.suite_id === t.suite_id && getAddress(q.address) === t.quote_address);
  return {
    chain_id: t.chain_id,
    market: t.market,
    token: { address: t.address, name: t.name, symbol: t.symbol, decimals: 18, metadata_uri: t.metadata_uri },
    launch: {
      creator_address: t.creator,
      pool_id: t.pool_id,
      created_at: iso(t.created_at),
      block_number: String(t.block_number),
      quote: { address: t.quote_address, symbol: quote?.symbol ?? null, decimals: quote?.decimals ?? null },
      onchain: { transaction_hash: t.tx_hash },
      contracts: { hook_address: t.hook },
      suite_id: t.suite_id,
    },
    ...(include.has('pool')
      ? { pool: { hook_address: t.hook, tick_spacing: t.tick_spacing, pool_id: t.pool_id } }
      : {}),
  };
}

function list(
  request: FastifyRequest,
  deps: TokenReadDeps,
  items: unknown[],
  next: string | null,
  through: unknown,
) {
  const body = envelope(request.id, deps.clock.now(), items);
  return {
    data: body.data,
    pagination: { next_cursor: next },
    meta: { ...body.meta, indexed_through_block: through },
  };
}

export function registerTokenReadRoutes(app: FastifyInstance, deps: TokenReadDeps) {
  const db = deps.database.db;
  const route = (
    operation: Operation,
    schema: object,
    handler: (request: FastifyRequest) => Promise<unknown>,
  ) => {
    const base = routeBase(operation);
    app.route({ ...base, schema: { ...base.schema, ...schema }, handler } as never);
  };

  /** A page of tokens ordered by launch (block, log index), resuming after the cursor's position. */
  async function tokenPage(
    request: FastifyRequest,
    operation: Operation,
    filters: { chain_id?: ChainId; market?: string; creator?: string; q?: string },
    sort: 'newest' | 'oldest',
    cursor: string | undefined,
  ) {
    const limit = pageSize(request.query as Record<string, unknown>);
    const scope = Cursors.scope(operation, { ...filters, sort });
    let query = db.selectFrom('tokens').selectAll();
    if (filters.chain_id) query = query.where('chain_id', '=', filters.chain_id);
    if (filters.market && filters.market !== 'all') query = query.where('market', '=', filters.market);
    if (filters.creator) query = query.where('creator', '=', filters.creator);
    if (filters.q) {
      const q = filters.q;
      if (/^0x[0-9a-fA-F]{40}$/.test(q)) query = query.where('address', '=', getAddress(q));
      else {
        // Candidates from the word index: the longest query word as a prefix (the most selective);
        // then every word of the query must appear in the name or symbol.
        const words = searchWords(q);
        // (Among equally long words the later one: "Token 42" → "42".)
        const key = words
          .map((w, i) => ({ w, i }))
          .sort((a, b) => b.w.length - a.w.length || b.i - a.i)[0]?.w;
        if (!key)
          return list(
            request,
            deps,
            [],
            null,
            await indexedThrough(deps, filters.chain_id ? [filters.chain_id] : CHAIN_IDS),
          );
        let candidates = db
          .selectFrom('token_words')
          .select('address')
          .where('word', '>=', key)
          .where('word', '<', prefixEnd(key));
        if (filters.chain_id) candidates = candidates.where('chain_id', '=', filters.chain_id);
        // A selective word gives few candidates: look them up by address rather than let the planner
        // walk the whole launch order testing each row.
        const few = await candidates.limit(MAX_CANDIDATES + 1).execute();
        query =
          few.length <= MAX_CANDIDATES
            ? query.where('address', 'in', few.length > 0 ? few.map((c) => c.address) : [''])
            : query.where('address', 'in', candidates);
        for (const w of words) {
          const like = `%${w}%`;
          query = query.where((eb) =>
            eb.or([eb(eb.fn('lower', ['name']), 'like', like), eb(eb.fn('lower', ['symbol']), 'like', like)]),
          );
        }
      }
    }
    if (cursor) {
      const [block, log, chain] = deps.cursors.decode(cursor, scope) as [number, number, number];
      const cmp = sort === 'newest' ? '<' : '>';
      query = query.where((eb) =>
        eb.or([
          eb('block_number', cmp, block),
          eb.and([eb('block_number', '=', block), eb('log_index', cmp, log)]),
          eb.and([eb('block_number', '=', block), eb('log_index', '=', log), eb('chain_id', cmp, chain)]),
        ]),
      );
    }
    const dir = sort === 'newest' ? 'desc' : 'asc';
    const rows = await query
      .orderBy('block_number', dir)
      .orderBy('log_index', dir)
      .orderBy('chain_id', dir)
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const next =
      rows.length > limit && last
        ? deps.cursors.encode(scope, [Number(last.block_number), last.log_index, last.chain_id])
        : null;
    const through = await indexedThrough(deps, filters.chain_id ? [filters.chain_id] : CHAIN_IDS);
    return list(
      request,
      deps,
      page.map((t) => tokenRecord(deps, t, new Set())),
      next,
      through,
    );
  }

  route(
    'token_list',
    {
      querystring: Type.Object(
        {
          chain_id: Type.Optional(ChainIdSchema()),
          market: Type.Optional(StringEnum(['all', 'standard', 'rwa'], { default: 'all' })),
          sort: Type.Optional(StringEnum(SORTS, { default: 'newest' })),
          limit: Limit,
          cursor: Cursor,
        },
        { additionalProperties: false },
      ),
    },
    async (request) => {
      const q = request.query as {
        chain_id?: ChainId;
        market?: string;
        sort?: (typeof SORTS)[number];
        cursor?: string;
      };
      const sort = q.sort ?? 'newest';
      if (sort !== 'newest' && sort !== 'oldest') {
        throw new ApiError(
          'unsupported_operation',
          `sort=${sort} needs market data, which this gateway version does not index yet; use newest or oldest`,
        );
      }
      return tokenPage(
        request,
        'token_list',
        { chain_id: q.chain_id, market: q.market ?? 'all' },
        sort,
        q.cursor,
      );
    },
  );

  route(
    'token_search',
    {
      querystring: Type.Object(
        {
          chain_id: Type.Optional(ChainIdSchema()),
          q: Type.String({ minLength: 1, maxLength: 100 }),
          limit: Limit,
          cursor: Cursor,
        },
        { additionalProperties: false },
      ),
    },
    async (request) => {
      const q = request.query as { chain_id?: ChainId; q: string; cursor?: string };
      return tokenPage(request, 'token_search', { chain_id: q.chain_id, q: q.q }, 'newest', q.cursor);
    },
  );

  route(
    'creator_tokens',
    {
      params: Type.Object({ address: AddressSchema() }),
      querystring: Type.Object(
        { chain_id: Type.Optional(ChainIdSchema()), limit: Limit, cursor: Cursor },
        { additionalProperties: false },
      ),
    },
    async (request) => {
      const { address } = request.params as { address: string };
      const q = request.query as { chain_id?: ChainId; cursor?: string };
      return tokenPage(
        request,
        'creator_tokens',
        { chain_id: q.chain_id, creator: getAddress(address) },
        'newest',
        q.cursor,
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
      const include = new Set(
        ((request.query as { include?: string }).include ?? '').split(',').filter(Boolean),
      );
      const row = await db
        .selectFrom('tokens')
        .selectAll()
        .where('chain_id', '=', p.chain_id)
        .where('address', '=', getAddress(p.token_address))
        .executeTakeFirst();
      if (!row)
        throw new ApiError(
          'not_found',
          `${getAddress(p.token_address)} is not indexed on chain ${p.chain_id} (yet)`,
        );
      const record: Record<string, unknown> = tokenRecord(deps, row, include);
      if (include.has('market')) {
        const manifest = deps.deployments.get(p.chain_id);
        const suite = manifest?.suites.find((x) => x.id === row.suite_id);
        const quote = manifest?.quotes.find(
          (q) => q.suite_id === row.suite_id && getAddress(q.address) === row.quote_address,
        );
        if (!suite)
          throw new ApiError('not_found', `The suite of ${row.address} is not in this gateway's manifests`);
        record.market_data = await withSnapshot(deps.chains, p.chain_id, (snapshot) =>
          marketData(
            snapshot,
            deps.database,
            row,
            { decimals: quote?.decimals ?? 18, stablecoin: quote?.asset_type === 'stablecoin' },
            suite.contracts.state_view as Address,
          ),
        );
      }
      const body = envelope(request.id, deps.clock.now(), record);
      return {
        ...body,
        meta: { ...body.meta, indexed_through_block: await indexedThrough(deps, [p.chain_id]) },
      };
    },
  );

  /** A page of a token's rows ordered newest first by (block, log index). */
  async function rowsOf<T extends 'trades' | 'announcements'>(
    request: FastifyRequest,
    operation: Operation,
    table: T,
  ) {
    const p = request.params as { chain_id: ChainId; token_address: string };
    const q = request.query as { cursor?: string };
    const token = getAddress(p.token_address);
    const limit = pageSize(request.query as Record<string, unknown>);
    const scope = Cursors.scope(operation, { chain: p.chain_id, token });
    let query = db
      .selectFrom(table as 'trades')
      .selectAll()
      .where('chain_id', '=', p.chain_id)
      .where('token', '=', token);
    if (q.cursor) {
      const [block, log] = deps.cursors.decode(q.cursor, scope) as [number, number];
      query = query.where((eb) =>
        eb.or([
          eb('block_number', '<', block),
          eb.and([eb('block_number', '=', block), eb('log_index', '<', log)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('block_number', 'desc')
      .orderBy('log_index', 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const next =
      rows.length > limit && last
        ? deps.cursors.encode(scope, [Number(last.block_number), last.log_index])
        : null;
    return { page, next, through: await indexedThrough(deps, [p.chain_id]) };
  }

  const tokenRowsQuery = Type.Object({ limit: Limit, cursor: Cursor }, { additionalProperties: false });
  route('token_trades', { params: TokenParams, querystring: tokenRowsQuery }, async (request) => {
    const { page, next, through } = await rowsOf(request, 'token_trades', 'trades');
    const items = page.map((t) => ({
      transaction_hash: t.tx_hash,
      log_index: t.log_index,
      block_number: String(t.block_number),
      block_hash: t.block_hash,
      timestamp: iso(t.timestamp),
      trader: t.trader,
      side: t.side,
      amount_in_raw: t.amount_in_raw,
      amount_out_raw: t.amount_out_raw,
      quote_amount_raw: t.quote_amount_raw,
      token_amount_raw: t.token_amount_raw,
      fee_raw: t.fee_raw,
      fee_currency: t.fee_currency,
      referrer: t.referrer,
      comment: t.comment,
    }));
    return list(request, deps, items, next, through);
  });

  route('token_announcements', { params: TokenParams, querystring: tokenRowsQuery }, async (request) => {
    const { page, next, through } = await rowsOf(request, 'token_announcements', 'announcements');
    const items = (page as unknown as import('../store/db.ts').AnnouncementsTable[]).map((a) => ({
      announcement_id: a.announcement_id,
      creator: a.creator,
      description: a.description,
      uri: a.uri,
      block_number: String(a.block_number),
      transaction_hash: a.tx_hash,
      log_index: a.log_index,
      posted_at: iso(a.posted_at),
    }));
    return list(request, deps, items, next, through);
  });

  // A snapshot of a token's holders at one pinned block: every address the token was ever sent to
  // (from the index) with its balance read live; the largest first, labelled where known.
  route(
    'holder_snapshot',
    { params: TokenParams, querystring: Type.Object({ limit: Limit }, { additionalProperties: false }) },
    async (request) => {
      const p = request.params as { chain_id: ChainId; token_address: string };
      const token = getAddress(p.token_address);
      const limit = pageSize(request.query as Record<string, unknown>);
      const row = await db
        .selectFrom('tokens')
        .selectAll()
        .where('chain_id', '=', p.chain_id)
        .where('address', '=', token)
        .executeTakeFirst();
      if (!row) throw new ApiError('not_found', `${token} is not indexed on chain ${p.chain_id} (yet)`);
      const suite = deps.deployments.get(p.chain_id)?.suites.find((x) => x.id === row.suite_id);
      const holders = (
        await db
          .selectFrom('token_holders')
          .select('holder')
          .where('chain_id', '=', p.chain_id)
          .where('token', '=', token)
          .execute()
      ).map((h) => h.holder as Address);
      const through = await indexedThrough(deps, [p.chain_id]);
      return withSnapshot(deps.chains, p.chain_id, async (snapshot) => {
        const [supply, rights] = (await snapshot.readAll([
          { address: token, abi: ERC20_ABI as Abi, functionName: 'totalSupply' },
          ...(suite
            ? [
                {
                  address: suite.contracts.factory as Address,
                  abi: LaunchFactoryAbi as Abi,
                  functionName: 'creatorRights',
                  args: [token],
                },
              ]
            : []),
        ])) as [bigint, { currentCreator: Address } | undefined];
        const balances: bigint[] = [];
        for (let i = 0; i < holders.length; i += 500) {
          const part = await snapshot.readAll(
            holders
              .slice(i, i + 500)
              .map((h) => ({ address: token, abi: ERC20_ABI as Abi, functionName: 'balanceOf', args: [h] })),
          );
          balances.push(...(part as bigint[]));
        }
        const c = suite?.contracts;
        const labels = new Map<string, string>(
          [
            [c?.pool_manager, 'pool'],
            [c?.hook, 'hook'],
            [c?.fee_escrow, 'fee_escrow'],
            [c?.vesting_vault, 'vesting_vault'],
            ['0x000000000000000000000000000000000000dEaD', 'burn'],
          ].flatMap(([a, l]) => (a ? [[getAddress(a), l as string]] : [])) as [string, string][],
        );
        const creator = rights?.currentCreator ? getAddress(rights.currentCreator) : null;
        const rows = holders
          .map((address, i) => ({ address, balance: balances[i] as bigint }))
          .filter((h) => h.balance > 0n)
          .sort((a, b) =>
            b.balance > a.balance ? 1 : b.balance < a.balance ? -1 : a.address.localeCompare(b.address),
          );
        const percent = (balance: bigint) => {
          const bp = supply > 0n ? (balance * 1_000_000n) / supply : 0n; // in 0.0001 %
          return `${bp / 10_000n}.${(bp % 10_000n).toString().padStart(4, '0')}`;
        };
        const items = rows.slice(0, limit).map((h) => ({
          address: h.address,
          balance_raw: h.balance.toString(),
          supply_percent: percent(h.balance),
          label: labels.get(h.address) ?? (h.address === creator ? 'creator' : null),
          is_creator: h.address === creator,
        }));
        const body = envelope(request.id, deps.clock.now(), items);
        return {
          data: body.data,
          summary: { total_holders: rows.length, total_supply_raw: supply.toString() },
          pagination: { next_cursor: null },
          meta: {
            ...body.meta,
            as_of_block: snapshot.blockNumber.toString(),
            indexed_through_block: through,
          },
        };
      });
    },
  );
}
