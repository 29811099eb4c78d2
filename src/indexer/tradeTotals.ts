// What each token's trades add up to, kept by the indexer in token_totals with every range it writes and
// counted again from the surviving trades after a reorg: the quote currency its pool holds (launch pools
// are seeded with the token only, so the quote reserve is the sum of the swaps' quote deltas), and the
// block and pool price of its last trade. The market refresh reads them instead of summing each token's
// history (at 1M tokens and 10M trades, that sum was a third of a full refresh's database time) and finds
// the tokens traded since a block by one index range instead of reading the trades of those blocks.
import { sql, type Transaction } from 'kysely';
import { amountSum, type Database, insertMany, type Tables, type TokenTotalsTable } from '../store/db.ts';

/** Tokens a statement reads or counts. */
const TOKENS_PER_STATEMENT = 2000;

/**
 * What trades moved into their pool's quote reserve: buys pay in their amounts less the hook's fees,
 * sells take out their amounts and the fees.
 */
export function reserveMoved(buys: bigint, buyFees: bigint, sells: bigint, sellFees: bigint): bigint {
  return buys - buyFees - (sells + sellFees);
}

/** reserveMoved of one trade. */
const tradeMove = (t: TotalledTrade) =>
  t.side === 'buy'
    ? reserveMoved(BigInt(t.quote_amount_raw), BigInt(t.fee_raw), 0n, 0n)
    : reserveMoved(0n, 0n, BigInt(t.quote_amount_raw), BigInt(t.fee_raw));

/** A trade as the totals need it. */
export interface TotalledTrade {
  token: string;
  block_number: number | string | bigint;
  log_index: number;
  side: string;
  quote_amount_raw: string;
  fee_raw: string;
  sqrt_price_x96?: string | null;
}

/** Adds a range's trades (every one above each token's stored last block) to their tokens' totals. */
export async function addTradeTotals(
  database: Database,
  trx: Transaction<Tables>,
  chainId: number,
  trades: TotalledTrade[],
): Promise<void> {
  if (trades.length === 0) return;
  const moved = new Map<string, { reserve: bigint; block: number; log: number; sqrt: string | null }>();
  for (const t of trades) {
    const block = Number(t.block_number);
    const m = moved.get(t.token) ?? { reserve: 0n, block: -1, log: -1, sqrt: null };
    m.reserve += tradeMove(t);
    // (The pool's price after the token's last trade, in chain order.)
    if (block > m.block || (block === m.block && t.log_index > m.log)) {
      m.block = block;
      m.log = t.log_index;
      m.sqrt = t.sqrt_price_x96 ?? m.sqrt;
    }
    moved.set(t.token, m);
  }
  const tokens = [...moved.keys()];
  const stored = new Map<string, { reserve_quote_raw: string; sqrt_price_x96: string | null }>();
  for (let i = 0; i < tokens.length; i += TOKENS_PER_STATEMENT)
    for (const r of await trx
      .selectFrom('token_totals')
      .select(['address', 'reserve_quote_raw', 'sqrt_price_x96'])
      .where('chain_id', '=', chainId)
      .where('address', 'in', tokens.slice(i, i + TOKENS_PER_STATEMENT))
      .execute())
      stored.set(r.address, r);
  const rows: TokenTotalsTable[] = tokens.map((token) => {
    const m = moved.get(token) as { reserve: bigint; block: number; sqrt: string | null };
    const before = stored.get(token);
    return {
      chain_id: chainId,
      address: token,
      last_block: m.block,
      reserve_quote_raw: (BigInt(before?.reserve_quote_raw ?? 0) + m.reserve).toString(),
      sqrt_price_x96: m.sqrt ?? before?.sqrt_price_x96 ?? null,
    };
  });
  await writeTotals(database, trx, rows);
}

/**
 * Counts the totals of `tokens` (every token of the chain when omitted) anew from their stored trades;
 * a token without trades loses its row. A reorg's undo and a generated index use it.
 */
export async function recountTradeTotals(
  database: Database,
  trx: Transaction<Tables>,
  chainId: number,
  tokens?: string[],
): Promise<void> {
  if (tokens) {
    for (let i = 0; i < tokens.length; i += TOKENS_PER_STATEMENT) {
      const chunk = tokens.slice(i, i + TOKENS_PER_STATEMENT);
      await trx
        .deleteFrom('token_totals')
        .where('chain_id', '=', chainId)
        .where('address', 'in', chunk)
        .execute();
      await writeTotals(database, trx, await countedTotals(database, trx, chainId, chunk));
    }
    return;
  }
  await trx.deleteFrom('token_totals').where('chain_id', '=', chainId).execute();
  await writeTotals(database, trx, await countedTotals(database, trx, chainId));
}

/** The totals of `tokens` (or every traded token of the chain) summed by the database from their trades. */
async function countedTotals(
  database: Database,
  trx: Transaction<Tables>,
  chainId: number,
  tokens?: string[],
): Promise<TokenTotalsTable[]> {
  const sum = (side: 'buy' | 'sell', column: 'quote_amount_raw' | 'fee_raw') =>
    amountSum(database.kind, sql`case when tr.side = ${side} then ${sql.ref(`tr.${column}`)} end`);
  let grouped = trx
    .selectFrom('trades as tr')
    .select(['tr.token', (eb) => eb.fn.max('tr.block_number').as('last_block')])
    .select([
      sum('buy', 'quote_amount_raw').as('bought'),
      sum('buy', 'fee_raw').as('buy_fees'),
      sum('sell', 'quote_amount_raw').as('sold'),
      sum('sell', 'fee_raw').as('sell_fees'),
    ])
    .where('tr.chain_id', '=', chainId)
    .groupBy('tr.token');
  if (tokens) grouped = grouped.where('tr.token', 'in', tokens);
  const rows = await trx
    .selectFrom(grouped.as('g'))
    .selectAll('g')
    .select((eb) =>
      eb
        .selectFrom('trades as l')
        .select('l.sqrt_price_x96')
        .where('l.chain_id', '=', chainId)
        .whereRef('l.token', '=', 'g.token')
        .orderBy('l.block_number', 'desc')
        .orderBy('l.log_index', 'desc')
        .limit(1)
        .as('sqrt'),
    )
    .execute();
  return rows.map((r) => ({
    chain_id: chainId,
    address: r.token,
    last_block: Number(r.last_block),
    reserve_quote_raw: reserveMoved(
      BigInt(r.bought),
      BigInt(r.buy_fees),
      BigInt(r.sold),
      BigInt(r.sell_fees),
    ).toString(),
    sqrt_price_x96: r.sqrt ?? null,
  }));
}

/** Writes totals over the stored ones. */
async function writeTotals(database: Database, trx: Transaction<Tables>, rows: TokenTotalsTable[]) {
  if (rows.length === 0) return;
  await insertMany(database, trx, 'token_totals', rows, (oc) =>
    oc.columns(['chain_id', 'address']).doUpdateSet((eb) => ({
      last_block: eb.ref('excluded.last_block'),
      reserve_quote_raw: eb.ref('excluded.reserve_quote_raw'),
      sqrt_price_x96: eb.ref('excluded.sqrt_price_x96'),
    })),
  );
}
