// Holder balances indexed from the launch tokens' Transfer logs: each range adds its net moves to the
// stored balances (read, added, written back: the indexer is the chain's one writer) and keeps each
// token's count of holders with a balance. A balance that cannot be derived (a reorg took back blocks
// that changed it, a row from before balances were indexed, a sender never seen receiving) is marked
// unknown (balance_block null) and read from the chain with the next range: at that range's last block,
// by its hash (so that the read and the range's logs are one chain), in place of the range's moves.
import { sql, type Transaction } from 'kysely';
import { type Abi, type Address, encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { ERC20_ABI } from '../chain/erc20.ts';
import type { RpcEndpoint } from '../chain/rpc.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { amountOfSortable, SORTABLE_ZERO, sortableAmount } from '../store/amounts.ts';
import { type Database, insertMany, type Tables } from '../store/db.ts';

/** A transfer of a launch token, decoded. */
export interface Transfer {
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
  block: number;
}

/** The net move of one holder's balance of one token over a range. */
interface Move {
  token: string;
  holder: string;
  delta: bigint;
  /** The first block of the range in which it received the token, else its last (a new row's block_number). */
  first: number;
  last: number;
}

/** How many unknown balances one range reads from the chain. */
const READ_BATCH = 2000;

/** Every holder's net move in a range's transfers (the zero address mints and burns; it holds nothing). */
function movesOf(transfers: Transfer[]): Move[] {
  const moves = new Map<string, Move>();
  const add = (token: string, holder: string, delta: bigint, block: number, received: boolean) => {
    if (holder === zeroAddress) return;
    const key = `${token}:${holder}`;
    let m = moves.get(key);
    if (!m) moves.set(key, (m = { token, holder, delta: 0n, first: Number.MAX_SAFE_INTEGER, last: block }));
    m.delta += delta;
    m.last = Math.max(m.last, block);
    if (received) m.first = Math.min(m.first, block);
  };
  for (const t of transfers) {
    add(t.token, t.from, -t.value, t.block, false);
    add(t.token, t.to, t.value, t.block, true);
  }
  const all = [...moves.values()];
  for (const m of all) if (m.first === Number.MAX_SAFE_INTEGER) m.first = m.last;
  return all;
}

/** A holder's balance read from the chain at a range's last block. */
export interface ReadBalance {
  token: string;
  holder: string;
  balance: bigint;
}

/**
 * Adds a range's transfers to the stored balances and the tokens' holder counts, inside its commit;
 * balances read at the range's last block (`read`, see readUnknownBalances) replace what was stored
 * and the range's moves of those holders.
 */
export async function applyTransfers(
  database: Database,
  trx: Transaction<Tables>,
  chainId: ChainId,
  transfers: Transfer[],
  read: ReadBalance[],
  to: number,
): Promise<void> {
  const moves = movesOf(transfers);
  const readAt = new Set(read.map((r) => `${r.token}:${r.holder}`));
  const stored = new Map<string, { balance: string; balance_block: unknown }>();
  const asked = moves.filter((m) => !readAt.has(`${m.token}:${m.holder}`));
  for (let i = 0; i < asked.length; i += 500) {
    const part = asked.slice(i, i + 500);
    const { rows } = await sql<{ token: string; holder: string; balance: string; balance_block: unknown }>`
      select token, holder, balance, balance_block from token_holders
      where chain_id = ${chainId} and (token, holder) in
        (values ${sql.join(part.map((m) => sql`(${m.token}, ${m.holder})`))})`.execute(trx);
    for (const r of rows) stored.set(`${r.token}:${r.holder}`, r);
  }
  const counts = new Map<string, number>();
  const rows = asked.map((m) => {
    const before = stored.get(`${m.token}:${m.holder}`);
    const known = !before || before.balance_block !== null;
    const was = before ? amountOfSortable(before.balance) : 0n;
    const now = was + m.delta;
    // Below zero: a move of its history was not seen here; the chain tells.
    const unknown = !known || now < 0n;
    const balance = unknown ? (before?.balance ?? SORTABLE_ZERO) : sortableAmount(now);
    if (!unknown) {
      const change = Number(now > 0n) - Number(was > 0n);
      if (change !== 0) counts.set(m.token, (counts.get(m.token) ?? 0) + change);
    }
    return {
      chain_id: chainId,
      token: m.token,
      holder: m.holder,
      block_number: m.first,
      balance,
      balance_block: unknown ? null : m.last,
    };
  });
  // (A holder read here that the range's transfers reached for the first time has its first block.)
  const first = new Map(moves.map((m) => [`${m.token}:${m.holder}`, m.first]));
  for (const r of read)
    rows.push({
      chain_id: chainId,
      token: r.token,
      holder: r.holder,
      block_number: first.get(`${r.token}:${r.holder}`) ?? to,
      balance: sortableAmount(r.balance),
      balance_block: to,
    });
  if (rows.length === 0) return;
  await insertMany(database, trx, 'token_holders', rows, (oc) =>
    oc.columns(['chain_id', 'token', 'holder']).doUpdateSet({
      balance: (eb) => eb.ref('excluded.balance'),
      balance_block: (eb) => eb.ref('excluded.balance_block'),
    }),
  );
  for (const [token, change] of counts)
    await trx
      .updateTable('tokens')
      .set({ holder_count: sql`holder_count + ${change}` })
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .execute();
  // Tokens with balances read: counted again.
  await recount(trx, chainId, [...new Set(read.map((r) => r.token))]);
}

/**
 * A reorg back to `fork`, inside its commit: holders first seen above it go, balances changed above it
 * become unknown (read with the next range), and the tokens' counts are taken again.
 */
export async function undoBalancesAbove(trx: Transaction<Tables>, chainId: ChainId, fork: number) {
  const touched = await trx
    .selectFrom('token_holders')
    .select('token')
    .distinct()
    .where('chain_id', '=', chainId)
    .where('balance_block', '>', fork)
    .execute();
  // (A row's first block is never after its last change, so the rows first seen above the fork are
  // among those changed above it; an unknown row first seen there goes too.)
  await trx
    .deleteFrom('token_holders')
    .where('chain_id', '=', chainId)
    .where((eb) => eb.or([eb('balance_block', '>', fork), eb('balance_block', 'is', null)]))
    .where('block_number', '>', fork)
    .execute();
  await trx
    .updateTable('token_holders')
    .set({ balance_block: null })
    .where('chain_id', '=', chainId)
    .where('balance_block', '>', fork)
    .execute();
  await recount(
    trx,
    chainId,
    touched.map((t) => t.token),
  );
}

/**
 * Unknown balances (a batch a range) read from the chain at the range's last block, by its hash: the
 * read and the range's logs are one chain, or the call fails and the range is read again.
 */
export async function readUnknownBalances(
  database: Database,
  endpoint: RpcEndpoint,
  chainId: ChainId,
  blockHash: Hex,
): Promise<ReadBalance[]> {
  const unknown = await database.db
    .selectFrom('token_holders')
    .select(['token', 'holder'])
    .where('chain_id', '=', chainId)
    .where('balance_block', 'is', null)
    .limit(READ_BATCH)
    .execute();
  if (unknown.length === 0) return [];
  const calls = unknown.map((u) => ({
    method: 'eth_call',
    params: [
      {
        to: u.token,
        data: encodeFunctionData({
          abi: ERC20_ABI as Abi,
          functionName: 'balanceOf',
          args: [u.holder as Address],
        }),
      },
      { blockHash },
    ],
  }));
  // Every call must answer (a node without that block's state fails the tick, tried again).
  const answers = await endpoint.batchResultsInChunks<unknown>(calls);
  // (No code at the address answers nothing: no balance.)
  const balanceOf = (answer: unknown) =>
    typeof answer === 'string' && /^0x[0-9a-fA-F]{64}$/.test(answer) ? BigInt(answer) : 0n;
  return unknown.map((u, i) => ({ token: u.token, holder: u.holder, balance: balanceOf(answers[i]) }));
}

/** Each token's count of holders with a balance, taken again. */
async function recount(trx: Transaction<Tables>, chainId: ChainId, tokens: string[]) {
  for (let i = 0; i < tokens.length; i += 500)
    await trx
      .updateTable('tokens')
      .set({
        holder_count: sql`(select count(*) from token_holders h where h.chain_id = tokens.chain_id
          and h.token = tokens.address and h.balance > ${SORTABLE_ZERO})`,
      })
      .where('chain_id', '=', chainId)
      .where('address', 'in', tokens.slice(i, i + 500))
      .execute();
}
