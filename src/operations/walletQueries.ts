// The indexed reads of a wallet: its fee positions (claimable read live), a summary of what it did per
// chain, and its activity (launches, trades, announcements) newest first.
import { sql } from 'kysely';
import { type Abi, type Address, getAddress, zeroAddress } from 'viem';
import { FeeEscrowAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import { Cursors } from '../cursor.ts';
import { indexedThrough } from '../indexer/indexedThrough.ts';
import { CHAIN_IDS, CHAINS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import {
  type AnnouncementsTable,
  type Database,
  literalLimit,
  type TokensTable,
  type TradesTable,
} from '../store/db.ts';
import type { IndexedPage } from './tokenQueries.ts';

export interface WalletReadDeps {
  database: Database;
  chains: ChainClients;
  deployments: Deployments;
  cursors: Cursors;
}

/**
 * What each fee escrow owes a wallet, per currency: its positions from the index (an escrow and currency
 * it was credited in), claimable read live at one pinned block, claimed summed from indexed Claimed events.
 */
export async function listFeePositions(
  deps: WalletReadDeps,
  input: { recipient: Address; chainId: ChainId; limit: number; cursor?: string },
): Promise<IndexedPage & { asOfBlock: string | null }> {
  const { recipient, chainId, limit } = input;
  const scope = Cursors.scope('fee_claims_read', { recipient, chain: chainId });
  const after = input.cursor ? (deps.cursors.decode(input.cursor, scope) as [string])[0] : undefined;
  // The wallet's positions (a row each) and the claims of each, in one read: each position's claims are
  // summed from their own range of the claims index (a lateral read, fenced by `offset 0` so that it is
  // not joined whole: the plan kept for the prepared read, costed for an average wallet, hash-joined a
  // wallet's every event, 100k of them: 190 ms at 1M). (Summed by the database: the bench's busy wallet
  // has 264 claims of one position, 32 KB of rows a read when each came back. SQLite sums no 256-bit
  // integers exactly, and has no lateral join: there each claim is a row, summed here.)
  const claims =
    deps.database.kind === 'postgres'
      ? sql`left join lateral (select sum(c.amount::numeric)::text as amount from fee_events c
          where c.recipient = p.recipient and c.chain_id = p.chain_id and c.escrow = p.escrow
          and c.currency = p.currency and c.kind = 'claimed' offset 0) c on true`
      : sql`left join fee_events c on c.recipient = p.recipient and c.chain_id = p.chain_id
          and c.escrow = p.escrow and c.currency = p.currency and c.kind = 'claimed'`;
  const rows = sql<{
    escrow: string;
    currency: string;
    amount: string | null;
  }>`select p.escrow, p.currency, c.amount from fee_positions p ${claims}
    where p.recipient = ${recipient} and p.chain_id = ${chainId}`.execute(deps.database.db);
  // What the page's positions owe is read live, beside the index's read when the page was read before.
  // (Settled either way: a page that turns out empty never asks for it.)
  const listedKey = `${chainId}:${recipient}:${after ?? ''}`;
  const before = listed.get(deps.chains)?.get(listedKey);
  const guessed = before && readOwed(deps, chainId, recipient, before).catch((err: unknown) => ({ err }));
  const [{ rows: found }, through] = await Promise.all([rows, indexedThrough(deps.database, [chainId])]);
  const positions = new Map<string, { escrow: Address; currency: Address; claimed: bigint }>();
  for (const e of found) {
    const key = `${e.escrow}:${e.currency}`;
    let p = positions.get(key);
    if (!p) {
      p = { escrow: e.escrow as Address, currency: e.currency as Address, claimed: 0n };
      positions.set(key, p);
    }
    if (e.amount !== null) p.claimed += BigInt(e.amount);
  }
  // Positions in (escrow, currency) order, paged after the cursor's; `owed` is read for the page only.
  const sorted = [...positions.values()]
    .map((p) => ({ ...p, at: `${p.escrow}:${p.currency}` }))
    .sort((a, b) => a.at.localeCompare(b.at))
    .filter((p) => after === undefined || p.at.localeCompare(after) > 0);
  const list = sorted.slice(0, limit);
  const last = list.at(-1);
  const next = sorted.length > limit && last ? deps.cursors.encode(scope, [last.at]) : null;
  const manifest = deps.deployments.get(chainId);
  const live =
    list.length === 0
      ? { owed: [], block: null }
      : ((guessed && before && owedInOrder(await guessed, before, list)) ??
        (await withSnapshot(deps.chains, chainId, async (snapshot) => ({
          owed: (await snapshot.readAll(owedReads(recipient, list))) as bigint[],
          block: snapshot.blockNumber.toString(),
        }))));
  if (list.length > 0) remember(deps.chains, listedKey, list);
  const native = CHAINS[chainId].native_currency;
  const items = list.map((p, i) => {
    const suite = manifest?.suites.find((s) => getAddress(s.contracts.fee_escrow) === p.escrow);
    const quote = manifest?.quotes.find((q) => getAddress(q.address) === p.currency);
    return {
      chain_id: chainId,
      suite_id: suite?.id ?? null,
      fee_escrow: p.escrow,
      recipient,
      currency: p.currency,
      symbol: p.currency === zeroAddress ? native.symbol : (quote?.symbol ?? null),
      decimals: p.currency === zeroAddress ? native.decimals : (quote?.decimals ?? null),
      claimable_raw: (live.owed[i] as bigint).toString(),
      claimed_raw: p.claimed.toString(),
    };
  });
  return { items, next, asOfBlock: live.block, indexedThrough: through };
}

/** A fee position: an escrow and a currency. */
type Position = { escrow: Address; currency: Address };

/** The escrows' owed() of `recipient` for each position. */
const owedReads = (recipient: Address, positions: Position[]) =>
  positions.map((p) => ({
    address: p.escrow,
    abi: FeeEscrowAbi as Abi,
    functionName: 'owed',
    args: [recipient, p.currency],
  }));

/**
 * The positions each page of a wallet's fee claims listed last, per gateway (its chain clients), at most
 * LISTED_MAX pages: the next read of the page reads what they owe beside the index's read, not after it
 * (one round trip the less; a wallet polled for its fees seldom gains a position between reads).
 */
const listed = new WeakMap<ChainClients, Map<string, Position[]>>();
const LISTED_MAX = 10_000;

/** Keeps the positions a page listed (the newest last; the oldest go past LISTED_MAX). */
function remember(chains: ChainClients, key: string, positions: Position[]): void {
  let pages = listed.get(chains);
  if (!pages) listed.set(chains, (pages = new Map()));
  pages.delete(key);
  pages.set(
    key,
    positions.map((p) => ({ escrow: p.escrow, currency: p.currency })),
  );
  if (pages.size > LISTED_MAX) pages.delete(pages.keys().next().value as string);
}

/** What `positions` owe `recipient`, at one pinned block; a failed call is a result, not a throw. */
function readOwed(deps: WalletReadDeps, chainId: ChainId, recipient: Address, positions: Position[]) {
  return withSnapshot(deps.chains, chainId, async (snapshot) => ({
    results: await snapshot.read(owedReads(recipient, positions)),
    block: snapshot.blockNumber.toString(),
  }));
}

/**
 * What `list` owes, in its order, from a read of the positions `read`: undefined when `list` holds
 * another position or one's call failed (the caller then reads them all again, at a block of its own).
 * The provider's failure is the answer's (asking again would only wait for it twice).
 */
function owedInOrder(
  got: Awaited<ReturnType<typeof readOwed>> | { err: unknown },
  read: Position[],
  list: Position[],
): { owed: bigint[]; block: string } | undefined {
  if ('err' in got) throw got.err;
  const owed: bigint[] = [];
  for (const p of list) {
    const result = got.results[read.findIndex((q) => q.escrow === p.escrow && q.currency === p.currency)];
    if (!result?.ok) return undefined;
    owed.push(result.value as bigint);
  }
  return { owed, block: got.block };
}

/** A wallet across the index: per chain, the tokens it launched, its trades, announcements and fee positions. */
export async function getWalletSummary(deps: WalletReadDeps, input: { address: Address; chainId?: ChainId }) {
  const { address, chainId } = input;
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
        .selectFrom('fee_positions')
        .select(['chain_id', 'escrow', 'currency'])
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
  const summary = {
    address,
    chains: chains.map((c) => ({
      chain_id: c,
      tokens_launched: n(launched as never, c),
      trades: n(traded as never, c),
      announcements: n(announced as never, c),
      fee_positions: positions.filter((p) => Number(p.chain_id) === c).length,
    })),
  };
  return { summary, indexedThrough: state };
}

/** What a wallet did, newest first: its launches, trades and announcements, merged in time order. */
export async function listWalletActivity(
  deps: WalletReadDeps,
  input: { address: Address; chainId?: ChainId; limit: number; cursor?: string },
): Promise<IndexedPage> {
  const { address, limit } = input;
  const q = { chain_id: input.chainId, cursor: input.cursor };
  const scope = Cursors.scope('wallet_activity', { address, chain: q.chain_id ?? null });
  const after = q.cursor ? (deps.cursors.decode(q.cursor, scope) as [number, number, number, number]) : null;
  const db = deps.database.db;
  // Rows strictly after the cursor in (time, chain, block, log index) descending order: block
  // numbers of different chains do not compare, times do.
  const rowsOf = <T extends 'tokens' | 'trades' | 'announcements'>(
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
      .limit(literalLimit(limit + 1))
      .execute();
  };
  const [launches, trades, posts] = (await Promise.all([
    rowsOf('tokens', 'creator', 'created_at'),
    rowsOf('trades', 'trader', 'timestamp'),
    rowsOf('announcements', 'creator', 'posted_at'),
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
      b.at - a.at || b.chain_id - a.chain_id || b.block_number - a.block_number || b.log_index - a.log_index,
  );
  const shown = items.slice(0, limit);
  const last = shown.at(-1);
  const next =
    items.length > limit && last
      ? deps.cursors.encode(scope, [last.at, last.chain_id, last.block_number, last.log_index])
      : null;
  return {
    items: shown.map(({ at, ...i }) => ({
      ...i,
      block_number: String(i.block_number),
      timestamp: new Date(at * 1000).toISOString(),
    })),
    next,
    indexedThrough: await indexedThrough(deps.database, q.chain_id ? [q.chain_id] : CHAIN_IDS),
  };
}
