// The indexed reads: token list, search, detail, a creator's tokens, a token's trades and announcements.
// Served from the index (src/indexer); every answer carries how far the index reached
// (meta.indexed_through_block). Lists page with signed cursors bound to route and filters.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { type Abi, type Address, getAddress, type Hex } from 'viem';
import { ERC20_ABI } from '../chain/erc20.ts';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { type Snapshot, withSnapshot, withSnapshotAt } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { Cursors } from '../http/cursor.ts';
import { envelope, indexedPage, publicOrigin } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { ApiError } from '../errors.ts';
import {
  Address as AddressSchema,
  ChainIdSchema,
  PageCursor,
  PageLimit,
  StringEnum,
} from '../http/validation.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { indexedThrough } from '../indexer/indexedThrough.ts';
import { marketRecord } from '../indexer/marketData.ts';
import { type MetadataDocument, type PinnedDocuments, publicUrlOf } from '../pinning/documents.ts';
import { prefixEnd, searchWords } from '../indexer/words.ts';
import type { Settings } from '../settings.ts';
import type { Database, TokenMarketTable, TokensTable } from '../store/db.ts';
import { type Operation, routeBase } from './catalog.ts';

export interface TokenReadDeps {
  settings: Settings;
  database: Database;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  cursors: Cursors;
  documents: PinnedDocuments;
}

const TokenParams = Type.Object({ chain_id: ChainIdSchema(), token_address: AddressSchema() });
const SORTS = ['newest', 'oldest', 'trending', 'liquidity', 'market_cap', 'volume_24h'] as const;
type Sort = (typeof SORTS)[number];
/** The ranked orders: highest first, by a column of the refreshed market data (src/indexer/marketRefresh.ts). */
const RANKED = {
  trending: 'trending_score',
  liquidity: 'liquidity_usd',
  market_cap: 'market_cap_usd',
  volume_24h: 'volume_24h_usd',
} as const;
const MARKET_COLUMNS = [
  'm.sqrt_price_x96',
  'm.reserve_quote_raw',
  'm.activity',
  'm.market_cap_usd',
  'm.liquidity_usd',
  'm.volume_24h_usd',
  'm.trending_score',
  'm.as_of_block',
  'm.updated_at',
] as const;

/** Search candidates looked up by address; more than this many use a subquery instead. */
const MAX_CANDIDATES = 1000;

const iso = (seconds: number | string | bigint) => new Date(Number(seconds) * 1000).toISOString();

/**
 * The token record. Profile fields (description, image, links) come from its metadata document when
 * this gateway pinned it (`doc`), else they are null; `origin` serves ipfs:// images.
 */
function tokenRecord(
  deps: TokenReadDeps,
  t: TokensTable,
  include: Set<string>,
  profile: { doc: MetadataDocument | null; origin: string },
  market?: TokenMarketTable,
) {
  const quote = deps.deployments.quote(t.chain_id as ChainId, t.suite_id, t.quote_address);
  const text = (key: string) => {
    const v = profile.doc?.[key];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  return {
    chain_id: t.chain_id,
    market: t.market,
    token: {
      address: t.address,
      name: t.name,
      symbol: t.symbol,
      decimals: 18,
      metadata_uri: t.metadata_uri,
      description: text('description'),
      image_url: publicUrlOf(profile.doc?.image, profile.origin),
      website: text('website'),
      x: text('x'),
      telegram: text('telegram'),
    },
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
    current_creator_address: t.current_creator,
    creator_fee_recipient_address: t.fee_recipient || null,
    ...(include.has('pool')
      ? { pool: { hook_address: t.hook, tick_spacing: t.tick_spacing, pool_id: t.pool_id } }
      : {}),
    ...(include.has('market')
      ? {
          market_data: marketRecord(
            market && {
              ...market,
              launch_supply: t.launch_supply,
              address: t.address,
              quote_address: t.quote_address,
            },
            { decimals: quote?.decimals ?? 18, stablecoin: quote?.asset_type === 'stablecoin' },
            deps.clock.now(),
            2 * deps.settings.marketRefreshMs,
          ),
        }
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
  return indexedPage(request.id, deps.clock.now(), items, next, through);
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

  /**
   * The version of the ranked orders of these chains: it changes with every market-data refresh, so a
   * ranked cursor from before a refresh is refused (cursor_stale) rather than resumed in a moved order.
   */
  async function rankingVersion(chainIds: readonly ChainId[]): Promise<string> {
    const rows = await db
      .selectFrom('market_state')
      .select(['chain_id', 'refreshed_at'])
      .where('chain_id', 'in', [...chainIds])
      .orderBy('chain_id')
      .execute();
    return rows.map((r) => `${r.chain_id}:${r.refreshed_at}`).join(',');
  }

  const stale = (why: string) =>
    new ApiError(
      'cursor_stale',
      `The order moved since this cursor was issued (${why}); restart from the first page`,
    );

  /**
   * A page of tokens: in launch order (launch time, then chain, block, log index: block numbers of
   * different chains do not compare) for newest/oldest, or highest first by
   * a refreshed market value (then chain, address) for the ranked sorts, resuming after the cursor.
   */
  async function tokenPage(
    request: FastifyRequest,
    operation: Operation,
    filters: { chain_id?: ChainId; market?: string; creator?: string; q?: string },
    sort: Sort,
    cursor: string | undefined,
  ) {
    const limit = pageSize(request.query as Record<string, unknown>);
    const chainIds = filters.chain_id ? [filters.chain_id] : CHAIN_IDS;
    const scope = Cursors.scope(operation, { ...filters, sort });
    const ranked = sort in RANKED ? RANKED[sort as keyof typeof RANKED] : undefined;
    let query = db
      .selectFrom('tokens as t')
      .leftJoin('token_market as m', (j) =>
        j.onRef('m.chain_id', '=', 't.chain_id').onRef('m.address', '=', 't.address'),
      )
      .selectAll('t')
      .select(MARKET_COLUMNS);
    // Ranked orders filter and order on token_market's own columns (its indexes); the others on tokens'.
    const on = ranked ? ('m' as const) : ('t' as const);
    if (filters.chain_id) query = query.where(`${on}.chain_id`, '=', filters.chain_id);
    if (filters.market && filters.market !== 'all') query = query.where(`${on}.market`, '=', filters.market);
    if (ranked) query = query.where(`m.${ranked}`, 'is not', null);
    if (filters.creator) query = query.where('t.creator', '=', filters.creator);
    if (filters.q) {
      const q = filters.q;
      if (/^0x[0-9a-fA-F]{40}$/.test(q)) query = query.where('t.address', '=', getAddress(q));
      else {
        // Candidates from the word index: the longest query word as a prefix (the most selective);
        // then every word of the query must appear in the name or symbol.
        const words = searchWords(q);
        // (Among equally long words the later one: "Token 42" → "42".)
        const key = words
          .map((w, i) => ({ w, i }))
          .sort((a, b) => b.w.length - a.w.length || b.i - a.i)[0]?.w;
        if (!key) return list(request, deps, [], null, await indexedThrough(deps.database, chainIds));
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
            ? query.where('t.address', 'in', few.length > 0 ? few.map((c) => c.address) : [''])
            : query.where('t.address', 'in', candidates);
        for (const w of words) {
          const like = `%${w}%`;
          query = query.where((eb) =>
            eb.or([
              eb(eb.fn('lower', ['t.name']), 'like', like),
              eb(eb.fn('lower', ['t.symbol']), 'like', like),
            ]),
          );
        }
      }
    }
    const version = ranked ? await rankingVersion(chainIds) : '';
    if (cursor && ranked) {
      const [value, chain, address, issued] = deps.cursors.decode(cursor, scope) as [
        number,
        number,
        string,
        string,
      ];
      if (issued !== version) throw stale('the market data was refreshed');
      // Rows after the cursor's (value, chain, address), compared as one value (an index range).
      query = query.where(
        sql<boolean>`(${sql.ref(`m.${ranked}`)}, m.chain_id, m.address) < (${value}, ${chain}, ${address})`,
      );
    } else if (cursor) {
      const [created, chain, block, log, address] = deps.cursors.decode(cursor, scope) as [
        number,
        number,
        number,
        number,
        string,
      ];
      // The token the cursor stands on must still be where it was: a reorg may have removed it.
      const anchor = await db
        .selectFrom('tokens')
        .select('block_number')
        .where('chain_id', '=', chain as ChainId)
        .where('address', '=', String(address))
        .executeTakeFirst();
      if (!anchor || Number(anchor.block_number) !== block)
        throw stale('its token left the index in a reorg');
      // Rows after the cursor's, comparing (launch time, chain, block, log index) as one value.
      const cmp = sql.raw(sort === 'newest' ? '<' : '>');
      query = query.where(
        sql<boolean>`(t.created_at, t.chain_id, t.block_number, t.log_index) ${cmp} (${created}, ${chain}, ${block}, ${log})`,
      );
    }
    const dir = sort === 'oldest' ? 'asc' : 'desc';
    query = ranked
      ? query.orderBy(`m.${ranked}`, 'desc').orderBy('m.chain_id', 'desc').orderBy('m.address', 'desc')
      : query
          .orderBy('t.created_at', dir)
          .orderBy('t.chain_id', dir)
          .orderBy('t.block_number', dir)
          .orderBy('t.log_index', dir);
    const rows = await query.limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    let next: string | null = null;
    if (rows.length > limit && last)
      next = ranked
        ? deps.cursors.encode(scope, [Number(last[ranked]), last.chain_id, last.address, version])
        : deps.cursors.encode(scope, [
            Number(last.created_at),
            last.chain_id,
            Number(last.block_number),
            last.log_index,
            last.address,
          ]);
    const include = new Set(ranked ? ['market'] : []);
    const origin = publicOrigin(deps.settings.publicUrl, request);
    const docs = await Promise.all(page.map((t) => deps.documents.get(t.metadata_uri)));
    return list(
      request,
      deps,
      page.map((t, i) =>
        tokenRecord(
          deps,
          t,
          include,
          { doc: docs[i] ?? null, origin },
          t.updated_at === null ? undefined : (t as TokenMarketTable & typeof t),
        ),
      ),
      next,
      await indexedThrough(deps.database, chainIds),
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
          limit: PageLimit,
          cursor: PageCursor,
        },
        { additionalProperties: false },
      ),
    },
    async (request) => {
      const q = request.query as {
        chain_id?: ChainId;
        market?: string;
        sort?: Sort;
        cursor?: string;
      };
      const sort = q.sort ?? 'newest';
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
          limit: PageLimit,
          cursor: PageCursor,
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
        { chain_id: Type.Optional(ChainIdSchema()), limit: PageLimit, cursor: PageCursor },
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
      const [market, extras] = await Promise.all([
        include.has('market')
          ? db
              .selectFrom('token_market')
              .selectAll()
              .where('chain_id', '=', p.chain_id)
              .where('address', '=', row.address)
              .executeTakeFirst()
          : undefined,
        // Extra metadata: the latest value of each key set after launch.
        db
          .selectFrom('token_updates')
          .select(['field', 'value'])
          .where('chain_id', '=', p.chain_id)
          .where('token', '=', row.address)
          .where('field', 'like', 'extra:%')
          .orderBy('block_number')
          .orderBy('log_index')
          .execute(),
      ]);
      const doc = await deps.documents.get(row.metadata_uri);
      const origin = publicOrigin(deps.settings.publicUrl, request);
      const record = tokenRecord(deps, row, include, { doc, origin }, market);
      record.token = {
        ...record.token,
        extra_metadata: Object.fromEntries(extras.map((e) => [e.field.slice('extra:'.length), e.value])),
      } as typeof record.token;
      const body = envelope(request.id, deps.clock.now(), record);
      return {
        ...body,
        meta: { ...body.meta, indexed_through_block: await indexedThrough(deps.database, [p.chain_id]) },
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
    return { page, next, through: await indexedThrough(deps.database, [p.chain_id]) };
  }

  const tokenRowsQuery = Type.Object(
    { limit: PageLimit, cursor: PageCursor },
    { additionalProperties: false },
  );
  route('token_trades', { params: TokenParams, querystring: tokenRowsQuery }, async (request) => {
    const { page, next, through } = await rowsOf(request, 'token_trades', 'trades');
    // The hook's fee credits of these swaps, per component.
    const chainId = (request.params as { chain_id: ChainId }).chain_id;
    const credits =
      page.length > 0
        ? await db
            .selectFrom('fee_credits')
            .selectAll()
            .where('chain_id', '=', chainId)
            .where('tx_hash', 'in', [...new Set(page.map((t) => t.tx_hash))])
            .orderBy('log_index')
            .execute()
        : [];
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
      fee_components: credits
        .filter((c) => c.tx_hash === t.tx_hash && c.swap_log_index === t.log_index)
        .map((c) => ({ component: c.component, recipient: c.recipient, amount_raw: c.amount })),
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
  // (from the index) with its balance read live; the largest first, labelled where known. Later pages
  // read the same block (the cursor carries it), so the pages of one walk add up to one snapshot; a
  // cursor whose block left the chain is cursor_stale.
  route(
    'holder_snapshot',
    {
      params: TokenParams,
      querystring: Type.Object({ limit: PageLimit, cursor: PageCursor }, { additionalProperties: false }),
    },
    async (request) => {
      const p = request.params as { chain_id: ChainId; token_address: string };
      const token = getAddress(p.token_address);
      const limit = pageSize(request.query as Record<string, unknown>);
      const scope = Cursors.scope('holder_snapshot', { chain: p.chain_id, token });
      const cursor = (request.query as { cursor?: string }).cursor;
      const resume = cursor
        ? (deps.cursors.decode(cursor, scope) as [string, Hex, string, string, string])
        : undefined;
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
      const through = await indexedThrough(deps.database, [p.chain_id]);
      const work = async (snapshot: Snapshot) => {
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
        // Largest first; equal balances by address, so that the order is total and pages resume exactly.
        const after = (a: { balance: bigint; address: string }, b: { balance: bigint; address: string }) =>
          a.balance !== b.balance ? a.balance < b.balance : a.address > b.address;
        const rows = holders
          .map((address, i) => ({ address, balance: balances[i] as bigint }))
          .filter((h) => h.balance > 0n)
          .sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0));
        const start = resume
          ? rows.findIndex((h) => after(h, { balance: BigInt(resume[3]), address: resume[4] }))
          : 0;
        const page = start < 0 ? [] : rows.slice(start, start + limit);
        const percent = (balance: bigint) => {
          const bp = supply > 0n ? (balance * 1_000_000n) / supply : 0n; // in 0.0001 %
          return `${bp / 10_000n}.${(bp % 10_000n).toString().padStart(4, '0')}`;
        };
        const items = page.map((h) => ({
          address: h.address,
          balance_raw: h.balance.toString(),
          supply_percent: percent(h.balance),
          label: labels.get(h.address) ?? (h.address === creator ? 'creator' : null),
          is_creator: h.address === creator,
        }));
        const last = page.at(-1);
        const more = start >= 0 && start + limit < rows.length && last;
        const body = envelope(request.id, deps.clock.now(), items);
        return {
          data: body.data,
          summary: { total_holders: rows.length, total_supply_raw: supply.toString() },
          pagination: {
            next_cursor: more
              ? deps.cursors.encode(scope, [
                  snapshot.blockNumber.toString(),
                  snapshot.blockHash,
                  snapshot.timestamp.toString(),
                  last.balance.toString(),
                  last.address,
                ])
              : null,
          },
          meta: {
            ...body.meta,
            as_of_block: snapshot.blockNumber.toString(),
            indexed_through_block: through,
          },
        };
      };
      if (!resume) return withSnapshot(deps.chains, p.chain_id, work);
      const head = { number: BigInt(resume[0]), hash: resume[1], timestamp: BigInt(resume[2]) };
      return withSnapshotAt(
        deps.chains,
        p.chain_id,
        head,
        () => stale('its snapshot block left the chain'),
        work,
      );
    },
  );
}
