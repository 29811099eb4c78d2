// GET /v1/wallets/{address}/fee-claims?chain_id: what each fee escrow owes the wallet, per currency. The
// candidate positions come from the index (escrow Credited events); what is claimable is read live at
// one pinned block, never from a cache; what was claimed is the sum of indexed Claimed events.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type Abi, type Address, getAddress, zeroAddress } from 'viem';
import { FeeEscrowAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { envelope } from '../http/envelope.ts';
import { Address as AddressSchema, ChainIdSchema } from '../http/validation.ts';
import { CHAINS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { Database } from '../store/db.ts';
import { routeBase } from './catalog.ts';

export function registerWalletRoutes(
  app: FastifyInstance,
  deps: { database: Database; chains: ChainClients; clock: Clock; deployments: Deployments },
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
      const state = await deps.database.db
        .selectFrom('index_state')
        .select('indexed_through')
        .where('chain_id', '=', chainId)
        .executeTakeFirst();
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
          indexed_through_block: state ? String(state.indexed_through) : null,
          ...(data.block ? { as_of_block: data.block } : {}),
        },
      };
    },
  });
}
