// GET /v1/wallets/{address}/fee-claims?chain_id: what each fee escrow owes the wallet, per currency. The
// candidate positions come from the index (escrow Credited events); what is claimable is read live at
// one pinned block, never from a cache; what was claimed is the sum of indexed Claimed events.
import { Type } from '@sinclair/typebox';
import { indexedThrough } from '../indexer/indexedThrough.ts';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { type Abi, type Address, getAddress, zeroAddress } from 'viem';
import { FeeEscrowAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { envelope, indexedPage } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { Address as AddressSchema, ChainIdSchema, PageCursor, PageLimit } from '../http/validation.ts';
import { CHAIN_IDS, CHAINS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { AnnouncementsTable, Database, TokensTable, TradesTable } from '../store/db.ts';
import { Cursors } from '../cursor.ts';
import { routeBase } from './catalog.ts';

export function registerWalletRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    chains: ChainClients;
    clock: Clock;
    deployments: Deployments;
    cursors: Cursors;
  },
) {
  const base = routeBase('fee_claims_read');
  app.route({
    ...base,
    schema: {
      ...base.schema,
      params: Type.Object({ address: AddressSchema() }),
      querystring: Type.Object(
        { chain_id: ChainIdSchema(), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })) },
        { additionalProperties: false },
      ),
    },
    handler: async (request) => {
      const recipient = getAddress((request.params as { address: string }).address);
      const { chain_id: chainId } = request.query as { chain_id: ChainId };
      const events = await deps.database.db
        .selectFrom('fee_events')
        .select(['escrow', 'currency', 'kind', 'amount'])
        .where('chain_id', '=', chainId)
        .where('recipient', '=', recipient)
        .execute();
      const positions = new Map<string, { escrow: Address; currency: Address; claimed: bigint }>();
      for (const e of events) {
        const key = `${e.escrow}:${e.currency}`;
        const p = positions.get(key) ?? {
          escrow: e.escrow as Address,
          currency: e.currency as Address,
          claimed: 0n,
        };
        if (e.kind === 'claimed') p.claimed += BigInt(e.amount);
        positions.set(key, p);
      }
      // A wallet has few positions (escrows × currencies): all of them come in one page.
      const list = [...positions.values()].sort((a, b) =>
        (a.escrow + a.currency).localeCompare(b.escrow + b.currency),
      );
      const through = await indexedThrough(deps.database, [chainId]);
      const manifest = deps.deployments.get(chainId);
      const data =
        list.length === 0
          ? { items: [], block: null }
          : await withSnapshot(deps.chains, chainId, async (snapshot) => {
              const owed = await snapshot.readAll(
                list.map((p) => ({
                  address: p.escrow,
                  abi: FeeEscrowAbi as Abi,
                  functionName: 'owed',
                  args: [recipient, p.currency],
                })),
              );
              const items = list.map((p, i) => {
                const suite = manifest?.suites.find((s) => getAddress(s.contracts.fee_escrow) === p.escrow);
                const quote = manifest?.quotes.find((q) => getAddress(q.address) === p.currency);
                const native = CHAINS[chainId].native_currency;
                return {
                  chain_id: chainId,
                  suite_id: suite?.id ?? null,
                  fee_escrow: p.escrow,
                  recipient,
                  currency: p.currency,
                  symbol: p.currency === zeroAddress ? native.symbol : (quote?.symbol ?? null),
                  decimals: p.currency === zeroAddress ? native.decimals : (quote?.decimals ?? null),
                  claimable_raw: (owed[i] as bigint).toString(),
                  claimed_raw: p.claimed.toString(),
                };
              });
              return { items, block: snapshot.blockNumber.toString() };
            });
      const body = envelope(request.id, deps.clock.now(), data.items);
      return {
        data: body.data,
        pagination: { next_cursor: null },
        meta: {
          ...body.meta,
          indexed_through_block: through,
          ...(data.block ? { as_of_block: data.block } : {}),
        },
      };
    },
  });

  // A wallet across the index: how many tokens it launched, trades it made and fee positions it has.
  const summary = routeBase('wallet_summary');
  app.route({
    ...summary,
    schema: {
      ...summary.schema,
      params: Type.Object({ address: AddressSchema() }),
      querystring: Type.Object({ chain_id: Type.Optional(ChainIdSchema()) }, { additionalProperties: false }),
    },
    handler: async (request) => {
      const address = getAddress((request.params as { address: string }).address);
      const chainId = (request.query as { chain_id?: ChainId }).chain_id;
      const db = deps.database.db;
      const count = async (table: 'tokens' | 'trades' | 'announcements', column: 'creator' | 'trader') => {
        let q = db
          .selectFrom(table as 'tokens')
          .select(['chain_id', db.fn.countAll<number>().as('n')])
          .where(column as 'creator', '=', address);
        if (chainId) q = q.where('chain_id', '=', chainId);
        return q.groupBy('chain_id').execute();
      };
      const [launched, traded, announced, positions, state] = await Promise.all([
        count('tokens', 'creator'),
        count('trades', 'trader'),
        count('announcements', 'creator'),
        (() => {
          let q = db
            .selectFrom('fee_events')
            .select(['chain_id', 'escrow', 'currency'])
            .distinct()
            .where('recipient', '=', address);
          if (chainId) q = q.where('chain_id', '=', chainId);
          return q.execute();
        })(),
        indexedThrough(deps.database, chainId ? [chainId] : CHAIN_IDS),
      ]);
      const chains = [
        ...new Set([...launched, ...traded, ...announced, ...positions].map((r) => Number(r.chain_id))),
      ].sort((a, b) => a - b);
      const n = (rows: { chain_id: number; n: unknown }[], c: number) =>
        Number(rows.find((r) => Number(r.chain_id) === c)?.n ?? 0);
      const body = envelope(request.id, deps.clock.now(), {
        address,
        chains: chains.map((c) => ({
          chain_id: c,
          tokens_launched: n(launched as never, c),
          trades: n(traded as never, c),
          announcements: n(announced as never, c),
          fee_positions: positions.filter((p) => Number(p.chain_id) === c).length,
        })),
      });
      return {
        ...body,
        meta: {
          ...body.meta,
          indexed_through_block: state,
        },
      };
    },
  });

  // What a wallet did, newest first: its launches, trades and announcements, merged in chain order.
  const activity = routeBase('wallet_activity');
  app.route({
    ...activity,
    schema: {
      ...activity.schema,
      params: Type.Object({ address: AddressSchema() }),
      querystring: Type.Object(
        {
          chain_id: Type.Optional(ChainIdSchema()),
          limit: PageLimit,
          cursor: PageCursor,
        },
        { additionalProperties: false },
      ),
    },
    handler: async (request) => {
      const address = getAddress((request.params as { address: string }).address);
      const q = request.query as { chain_id?: ChainId; limit?: number; cursor?: string };
      const limit = pageSize(request.query as Record<string, unknown>);
      const scope = Cursors.scope('wallet_activity', { address, chain: q.chain_id ?? null });
      const after = q.cursor
        ? (deps.cursors.decode(q.cursor, scope) as [number, number, number, number])
        : null;
      const db = deps.database.db;
      // Rows strictly after the cursor in (time, chain, block, log index) descending order: block
      // numbers of different chains do not compare, times do.
      const page = <T extends 'tokens' | 'trades' | 'announcements'>(
        table: T,
        column: 'creator' | 'trader',
        time: 'created_at' | 'timestamp' | 'posted_at',
      ) => {
        let query = db
          .selectFrom(table as 'trades')
          .selectAll()
          .where(column as 'trader', '=', address);
        if (q.chain_id) query = query.where('chain_id', '=', q.chain_id);
        if (after) {
          const [at, chain, block, log] = after;
          query = query.where(
            sql<boolean>`(${sql.ref(time)}, chain_id, block_number, log_index) < (${at}, ${chain}, ${block}, ${log})`,
          );
        }
        return query
          .orderBy(sql.ref(time), 'desc')
          .orderBy('chain_id', 'desc')
          .orderBy('block_number', 'desc')
          .orderBy('log_index', 'desc')
          .limit(limit + 1)
          .execute();
      };
      const [launches, trades, posts] = (await Promise.all([
        page('tokens', 'creator', 'created_at'),
        page('trades', 'trader', 'timestamp'),
        page('announcements', 'creator', 'posted_at'),
      ])) as unknown as [TokensTable[], TradesTable[], AnnouncementsTable[]];
      const items = [
        ...launches.map((t) => ({
          kind: 'launch',
          at: Number(t.created_at),
          chain_id: t.chain_id,
          block_number: Number(t.block_number),
          log_index: t.log_index,
          transaction_hash: t.tx_hash,
          token_address: t.address,
          token_symbol: t.symbol,
        })),
        ...trades.map((t) => ({
          kind: 'trade',
          at: Number(t.timestamp),
          chain_id: t.chain_id,
          block_number: Number(t.block_number),
          log_index: t.log_index,
          transaction_hash: t.tx_hash,
          token_address: t.token,
          side: t.side,
          amount_in_raw: t.amount_in_raw,
          amount_out_raw: t.amount_out_raw,
        })),
        ...posts.map((a) => ({
          kind: 'announcement',
          at: Number(a.posted_at),
          chain_id: a.chain_id,
          block_number: Number(a.block_number),
          log_index: a.log_index,
          transaction_hash: a.tx_hash,
          token_address: a.token,
          announcement_id: a.announcement_id,
        })),
      ].sort(
        (a, b) =>
          b.at - a.at ||
          b.chain_id - a.chain_id ||
          b.block_number - a.block_number ||
          b.log_index - a.log_index,
      );
      const shown = items.slice(0, limit);
      const last = shown.at(-1);
      const next =
        items.length > limit && last
          ? deps.cursors.encode(scope, [last.at, last.chain_id, last.block_number, last.log_index])
          : null;
      return indexedPage(
        request.id,
        deps.clock.now(),
        shown.map(({ at, ...i }) => ({
          ...i,
          block_number: String(i.block_number),
          timestamp: new Date(at * 1000).toISOString(),
        })),
        next,
        await indexedThrough(deps.database, q.chain_id ? [q.chain_id] : CHAIN_IDS),
      );
    },
  });
}
