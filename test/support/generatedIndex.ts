// A generated index at production scale, built on PostgreSQL by the server itself (INSERT … SELECT over
// generate_series: no row crosses the wire, so 10M trades take minutes), spread over the four chains
// with a skew: a few hot tokens hold most trades and holders. Rows have the indexer's shapes; addresses
// are decimal digits (valid checksummed addresses as they are), hashes md5-derived.
import { sql } from 'kysely';
import { numberToHex, toFunctionSelector } from 'viem';
import type { RpcEndpoint } from '../../src/chain/rpc.ts';
import { recountTradeTotals } from '../../src/indexer/tradeTotals.ts';
import type { Database } from '../../src/store/db.ts';

export interface IndexScale {
  tokens: number;
  trades: number;
  holders: number;
  announcements: number;
  feeCredits: number;
}

/** Changes whenever the generated rows change, so a kept database of an older shape is built again. */
export const GENERATOR_VERSION = 5;
/** Chain of token n: 8 in 20 on 8453, 5 on 4663, 4 on 143, 3 on 5042. */
export const CHAIN_OF = `(case when n % 20 < 8 then 8453 when n % 20 < 13 then 4663 when n % 20 < 17 then 143 else 5042 end)`;
/** Launch time of token n: one every 30 s over the year before T0_END. */
export const T0 = 1_700_000_000;
/** The hot tokens: the newest HOT (a share of trades and holders each), then WARM warm ones. */
export const HOT = 10;
export const WARM = 10_000;
/**
 * The generated block of a chain time: 2-second blocks from T0, from block 1,000,000 (the devnet's own
 * blocks, which the bench indexes into the same database meanwhile, stay below it).
 */
export const FIRST_BLOCK = 1_000_000;
const block = (t: string) => `((${t} - ${T0}) / 2 + ${FIRST_BLOCK})`;
/** The time of a generated block (a block every 2 s from T0). */
export const timeOfBlock = (n: number) => (n - FIRST_BLOCK) * 2 + T0;

/**
 * The node a market refresh of the generated index asks (its tokens are not on a chain): a block's time
 * is the generated one, a never-traded pool's price the generated one (1:1), and anything else fails
 * (a price feed: no USD price).
 */
export function generatedChainEndpoint(): RpcEndpoint {
  const slot0 = toFunctionSelector('getSlot0(bytes32)');
  const word = (v: bigint) => v.toString(16).padStart(64, '0');
  return {
    batchResults: async (calls: { method: string; params: unknown[] }[]) =>
      calls.map((c) => {
        if (c.method === 'eth_getBlockByNumber')
          return { timestamp: numberToHex(timeOfBlock(Number(BigInt(c.params[0] as string)))) };
        if (c.method === 'eth_call' && (c.params[0] as { data: string }).data.startsWith(slot0))
          return `0x${word(2n ** 96n)}${word(0n).repeat(3)}`;
        throw new Error('not on a chain');
      }),
  } as unknown as RpcEndpoint;
}

/** Address `n` of a kind (1 tokens, 2 creators, 3 traders, 4 holders): 40 decimal digits. */
export const address = (kind: number, n: number) => `0x${kind}${String(n).padStart(39, '0')}`;
const addr = (kind: number, n: string) => `('0x${kind}' || lpad((${n})::text, 39, '0'))`;
const hash = (salt: string, n: string) => `('0x' || md5('${salt}' || (${n})) || md5('${salt}x' || (${n})))`;
/**
 * Token number (1..tokens) of generated row k: `hot`/`warm` of every 10 rows go to the hot and warm
 * tokens (the newest), the rest spread over every token.
 */
const skewed = (k: string, tokens: number, hot: number, warm: number) =>
  `(case when ${k} % 10 < ${hot} then ${tokens} - (${k} / 10) % ${HOT}
        when ${k} % 10 < ${hot + warm} then ${tokens} - (hashint8(${k}) % ${WARM} + ${WARM}) % ${WARM}
        else 1 + (hashint8(${k} + 7) % ${tokens} + ${tokens}) % ${tokens} end)`;

const WORDS = [
  'moon',
  'pepe',
  'doge',
  'cat',
  'frog',
  'based',
  'sun',
  'ape',
  'rocket',
  'gold',
  'shiba',
  'wolf',
  'degen',
  'chad',
  'bull',
  'bear',
  'pixel',
  'turbo',
  'alpha',
  'omega',
  'cyber',
  'neon',
  'lunar',
  'solar',
  'baby',
  'king',
  'queen',
  'meme',
  'giga',
  'mega',
  'tiny',
  'frens',
  'wagmi',
  'honk',
  'bonk',
  'myro',
];

/** Drops a table's indexes and constraints; the function returned builds them again. */
async function withoutIndexes(database: Database, table: string): Promise<() => Promise<void>> {
  const db = database.db;
  const { rows: constraints } = await sql<{ name: string; def: string }>`
    select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
    where conrelid = ${table}::regclass and contype in ('p', 'u')`.execute(db);
  const { rows: indexes } = await sql<{ name: string; def: string }>`
    select indexname as name, indexdef as def from pg_indexes where tablename = ${table}
    and indexname not in (select conname from pg_constraint where conrelid = ${table}::regclass)`.execute(db);
  for (const c of constraints) await sql.raw(`alter table ${table} drop constraint ${c.name}`).execute(db);
  for (const i of indexes) await sql.raw(`drop index ${i.name}`).execute(db);
  return async () => {
    for (const c of constraints)
      await sql.raw(`alter table ${table} add constraint ${c.name} ${c.def}`).execute(db);
    // (A partitioned table's index is listed ON ONLY it: built again, it is built on every partition.)
    for (const i of indexes) await sql.raw(i.def.replace(' ON ONLY ', ' ON ')).execute(db);
  };
}

/** Fills an empty, migrated PostgreSQL index with generated rows; `log` reports each table's time. */
export async function generateIndex(
  database: Database,
  scale: IndexScale,
  escrows: Record<number, string>,
  log: (line: string) => void = () => {},
): Promise<void> {
  if (database.kind !== 'postgres') throw new Error('the generated index is built on PostgreSQL');
  const db = database.db;
  // Bulk loading: each table's indexes are dropped first and built again after its rows are in.
  const run = async (label: string, text: string) => {
    const t = performance.now();
    const table = /insert into (\w+)/.exec(text)?.[1];
    const restore = table ? await withoutIndexes(database, table) : async () => {};
    await sql.raw(text).execute(db);
    await restore();
    log(`${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  const T = scale.tokens;
  const words = `(array[${WORDS.map((w) => `'${w}'`).join(',')}])`;
  // Token n: launched at T0 + 30 n; its name is two words and its number ("Pepe Rocket 4711").
  await run(
    'tokens',
    `insert into tokens (chain_id, address, suite_id, market, quote_address, creator, pool_id, hook,
       tick_spacing, name, symbol, search_words, metadata_uri, block_number, log_index, tx_hash, created_at,
       current_creator, launch_supply, fee_recipient)
     select c, ${addr(1, 'n')}, 'generated', case when n % 5 = 0 then 'rwa' else 'standard' end,
       '0x0000000000000000000000000000000000000000', ${addr(2, 'hashint8(n) % 200000 + 200000')},
       ${hash('pool', 'n')}, '0x0000000000000000000000000000000000000001', 200,
       name, symbol, ' ' || lower(name || ' ' || symbol), '',
       ${block(`${T0} + 30 * n`)}, 0, ${hash('launch', 'n')}, ${T0} + 30 * n,
       ${addr(2, 'hashint8(n) % 200000 + 200000')}, '1000000000000000000000000000',
       ${addr(2, 'hashint8(n) % 200000 + 200000')}
     from (select n, ${CHAIN_OF} as c,
             initcap(${words}[1 + n % ${WORDS.length}]) || ' ' || initcap(${words}[1 + (n / ${WORDS.length}) % ${WORDS.length}]) || ' ' || n as name,
             upper(left(${words}[1 + n % ${WORDS.length}], 3)) || (n % 1000) as symbol
           from generate_series(1, ${T}) n) g`,
  );
  // Search words of each name and symbol, as searchWords() gives them.
  await run(
    'token_words',
    `insert into token_words (chain_id, word, address, block_number, created_at, search_words)
     select distinct on (w, chain_id, address) chain_id, w, address, block_number, created_at, search_words
     from tokens, lateral regexp_split_to_table(lower(name || ' ' || symbol), '[^a-z0-9]+') w where w <> ''`,
  );
  const END = T0 + 30 * T + 86_400;
  // Trade k: 3 in 10 to the hot tokens, 4 in 10 to the warm ones; its time between its token's launch
  // and the end, in step with k (so each chain's trades come in block order).
  await run(
    'trades',
    `insert into trades (chain_id, tx_hash, log_index, block_number, block_hash, timestamp, token, trader,
       side, amount_in_raw, amount_out_raw, quote_amount_raw, token_amount_raw, fee_raw, fee_currency,
       referrer, comment, sqrt_price_x96)
     select ${CHAIN_OF}, ${hash('trade', 'k')}, k::int, ${block('ts')}, ${hash('block', block('ts'))}, ts,
       ${addr(1, 'n')}, ${addr(3, 'hashint8(k) % 500000 + 500000')}, case when k % 3 = 0 then 'sell' else 'buy' end,
       (1000000 + k % 9999)::text, (2000000 + k % 7777)::text, (1000000 + k % 9999)::text,
       (2000000 + k % 7777)::text, '1000', '0x0000000000000000000000000000000000000000', null, '',
       '79228162514264337593543950336'
     from (select k, n, ${T0} + 30 * n + ((k::float8 / ${scale.trades}) * (${END} - ${T0} - 30 * n))::bigint as ts
           from (select k, ${skewed('k', T, 3, 4)} as n from generate_series(1, ${scale.trades}) k) s) g`,
  );
  // Fee credits: the hook's credit of every tenth trade (its platform component).
  await run(
    'fee_credits',
    `insert into fee_credits (chain_id, tx_hash, log_index, block_number, swap_log_index, component,
       recipient, currency, amount)
     select chain_id, tx_hash, log_index + 1000, block_number, log_index, 'platform',
       '0x0000000000000000000000000000000000000002', fee_currency, '10'
     from trades where ('x' || substr(tx_hash, 3, 8))::bit(32)::int % ${Math.max(1, Math.round(scale.trades / scale.feeCredits))} = 0
     limit ${scale.feeCredits}`,
  );
  // Escrow events: credits to creators (every creator has some; one busy wallet has many), a claim in
  // about every two hundred; a credit's position is a row of its own (the first credit's block), a
  // claim an event. They name each chain's real escrow, so that owed() answers.
  const escrowEvents = `select c, ${hash('fee', 'k')} as tx_hash, ${FIRST_BLOCK} + k as block_number,
       case c ${Object.entries(escrows)
         .map(([id, a]) => `when ${id} then '${a}'`)
         .join(' ')} end as escrow,
       case when k % 10 = 0 then '0x0000000000000000000000000000000000000002' else ${addr(2, 'hashint8(k) % 200000 + 200000')} end as recipient,
       hashint8(k) % 200 = 0 as claimed
     from (select k, ${CHAIN_OF.replaceAll('n %', 'k %')} as c from generate_series(1, ${scale.feeCredits}) k) g`;
  await run(
    'fee_positions',
    `insert into fee_positions (recipient, chain_id, escrow, currency, block_number)
     select recipient, c, escrow, '0x0000000000000000000000000000000000000000', min(block_number)
     from (${escrowEvents}) e group by recipient, c, escrow`,
  );
  await run(
    'fee_events',
    `insert into fee_events (chain_id, tx_hash, log_index, block_number, escrow, recipient, currency, kind, amount)
     select c, tx_hash, 0, block_number, escrow, recipient, '0x0000000000000000000000000000000000000000',
       'claimed', '1000'
     from (${escrowEvents}) e where claimed`,
  );
  // Holders: 2 in 10 rows to the hot tokens, 3 in 10 to the warm ones, each row its own holder.
  await run(
    'token_holders',
    `insert into token_holders (chain_id, token, holder, block_number)
     select ${CHAIN_OF}, ${addr(1, 'n')}, ${addr(4, 'k')}, ${block(`${T0} + 30 * n`)} + k % 1000
     from (select k, ${skewed('k', T, 2, 3)} as n from generate_series(1, ${scale.holders}) k) g`,
  );
  const started = performance.now();
  await upgradeHolders(database);
  log(`holder balances and counts: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await run(
    'announcements',
    `insert into announcements (chain_id, tx_hash, log_index, block_number, token, announcement_id, creator,
       description, uri, posted_at)
     select ${CHAIN_OF}, ${hash('ann', 'k')}, 0, ${block(`${T0} + 30 * n`)} + k, ${addr(1, 'n')}, ${hash('annid', 'k')},
       ${addr(2, 'hashint8(n) % 200000 + 200000')}, 'Update ' || k, '', ${T0} + 30 * n + 2 * k
     from (select k, ${skewed('k', T, 2, 4)} as n from generate_series(1, ${scale.announcements}) k) g`,
  );
  const counting = performance.now();
  for (const chainId of [8453, 4663, 143, 5042])
    await db.transaction().execute((trx) => recountTradeTotals(database, trx, chainId));
  log(`token_totals: ${((performance.now() - counting) / 1000).toFixed(1)} s`);
  await generateMarket(database, scale, log);
  // Each chain indexed through its last generated block.
  await sql
    .raw(
      `insert into index_state (chain_id, indexed_through, high_water)
     select chain_id, max(b), max(b) from (select chain_id, max(block_number) b from tokens group by chain_id
       union all select chain_id, max(block_number) from trades group by chain_id) x group by chain_id
     on conflict (chain_id) do update set indexed_through = excluded.indexed_through, high_water = excluded.high_water`,
    )
    .execute(db);
  // Vacuumed as a database at rest is (hint bits set, pages all-visible): not left to the server's
  // autovacuum, which would rewrite the new tables while the first bench run measures its reads.
  await run('vacuum analyze', 'vacuum analyze');
}

/**
 * Market data as a full refresh leaves it: one row per token, its reserve and 24 h figures from its
 * generated trades, ranked values spread so that ranks differ.
 */
export async function generateMarket(database: Database, scale: IndexScale, log: (line: string) => void) {
  const t = performance.now();
  const restore = await withoutIndexes(database, 'token_market');
  await sql
    .raw(
      `insert into token_market (chain_id, address, market, sqrt_price_x96, reserve_quote_raw, activity,
         trending_score, as_of_block, updated_at, rebuild, market_cap_quote, liquidity_quote, volume_24h_quote,
         usd_source, search_words)
       select t.chain_id, t.address, t.market, '79228162514264337593543950336', coalesce(a.reserve, 0)::text,
         json_build_object('1h', json_build_object('trades', 0, 'volume_quote_raw', '0'),
           '6h', json_build_object('trades', 0, 'volume_quote_raw', '0'),
           '24h', json_build_object('trades', coalesce(a.recent, 0), 'volume_quote_raw', coalesce(a.recent_volume, 0)::text))::text,
         coalesce(a.recent, 0) * 1.5 + (n % 97) / 100.0, s.indexed_through, 0, 0,
         (hashint8(n) % 1000000 + 1000000) % 1000000 / 20000.0, coalesce(a.reserve, 0) / 2e9,
         coalesce(a.recent_volume, 0) / 2e9, 2, t.search_words
       from (select *, ('x' || substr(address, 27, 16))::bit(64)::bigint as n from tokens) t
       join (select chain_id, max(block_number) indexed_through from trades group by chain_id) s using (chain_id)
       left join (select chain_id, token, sum(quote_amount_raw::numeric) reserve,
                    count(*) filter (where timestamp > ${T0 + 30 * scale.tokens - 86_400}) recent,
                    sum(quote_amount_raw::numeric) filter (where timestamp > ${T0 + 30 * scale.tokens - 86_400}) recent_volume
                  from trades group by chain_id, token) a on a.chain_id = t.chain_id and a.token = t.address`,
    )
    .execute(database.db);
  await restore();
  await sql
    .raw(
      `insert into market_state (chain_id, refreshed_at, chain_time, as_of_block, native_usd, native_usd_at, usd_sources)
       select chain_id, 1, max(timestamp), max(block_number), 2000, 0, ${1 << 2} from trades group by chain_id
       on conflict (chain_id) do nothing`,
    )
    .execute(database.db);
  log(`token_market: ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/**
 * Market rows generated before usd_source was kept get theirs (every generated token is quoted in the
 * native currency); rows whose quote-unit values were derived from stored USD values of -1 (no price
 * then) are generated again. Returns whether any row needed it.
 */
export async function upgradeMarket(database: Database, scale: IndexScale): Promise<boolean> {
  const db = database.db;
  const { rows } = await sql`select 1 from token_market where market_cap_quote < 0 limit 1`.execute(db);
  if (rows.length > 0) {
    await sql`truncate token_market`.execute(db);
    await generateMarket(database, scale, () => {});
  }
  const { numUpdatedRows } = await db
    .updateTable('token_market')
    .set({ usd_source: 2 })
    .where('usd_source', 'is', null)
    .executeTakeFirst();
  if (rows.length > 0 || numUpdatedRows > 0n) await sql`vacuum analyze token_market`.execute(db);
  return rows.length > 0 || numUpdatedRows > 0n;
}

/**
 * Holder rows generated before balances were indexed (or just inserted) get theirs: 1 to 999,999
 * followed by 12 to 21 zeros, from the holder's address; each token its count of holders. Returns
 * whether any row needed it.
 */
export async function upgradeHolders(database: Database): Promise<boolean> {
  const db = database.db;
  const { rows } = await sql<{ n: number }>`select 1 as n from token_holders where balance_block is null
    limit 1`.execute(db);
  if (rows.length === 0) return false;
  const digits = `((abs(hashtext(holder)) % 999999) + 1)::text || repeat('0', 12 + abs(hashtext(holder || 'x')) % 10)`;
  const restore = await withoutIndexes(database, 'token_holders');
  await sql
    .raw(
      `update token_holders set balance = lpad(length(d)::text, 2, '0') || d, balance_block = block_number
      from (select ctid as at, ${digits} as d from token_holders where balance_block is null) g
      where token_holders.ctid = g.at`,
    )
    .execute(db);
  await restore();
  const restoreTokens = await withoutIndexes(database, 'tokens');
  await sql`update tokens t set holder_count = c.n from
    (select chain_id, token, count(*) as n from token_holders group by chain_id, token) c
    where t.chain_id = c.chain_id and t.address = c.token`.execute(db);
  await restoreTokens();
  await sql`vacuum analyze token_holders`.execute(db);
  await sql`vacuum analyze tokens`.execute(db);
  return true;
}

/**
 * Keeps a copy of the market rows as they are (a bench that rewrites them puts them back after). (Not
 * vacuumed by the server meanwhile: that vacuum of 1M new rows ran during the refresh the bench times.)
 */
export async function keepMarket(database: Database): Promise<void> {
  await sql`create table if not exists kept_token_market with (autovacuum_enabled = false)
    as table token_market`.execute(database.db);
  await sql`create table if not exists kept_market_state as table market_state`.execute(database.db);
}

/**
 * Marks every market row for rebuilding (the next refresh recomputes every token's row from its trade
 * totals and its last 24 h of trades): the rows are put back marked, a bulk load rather than an update
 * of each.
 */
export async function markMarketForRebuild(database: Database): Promise<void> {
  const db = database.db;
  await sql`drop table if exists marked_token_market`.execute(db);
  await sql`create table marked_token_market as table token_market`.execute(db);
  await sql`update marked_token_market set rebuild = 1`.execute(db);
  await sql`truncate token_market`.execute(db);
  const restore = await withoutIndexes(database, 'token_market');
  await sql`insert into token_market select * from marked_token_market`.execute(db);
  await restore();
  await sql`drop table marked_token_market`.execute(db);
  await sql`vacuum analyze token_market`.execute(db);
}

/** Puts back the market rows keepMarket copied, if a copy is there, and drops the copy. */
export async function restoreMarket(database: Database): Promise<boolean> {
  const db = database.db;
  const { rows } = await sql<{
    kept: string | null;
  }>`select to_regclass('kept_token_market')::text as kept`.execute(db);
  if (!rows[0]?.kept) return false;
  await sql`truncate token_market`.execute(db);
  const restore = await withoutIndexes(database, 'token_market');
  await sql`insert into token_market select * from kept_token_market`.execute(db);
  await restore();
  await sql`delete from market_state`.execute(db);
  await sql`insert into market_state select * from kept_market_state`.execute(db);
  await sql`drop table kept_token_market`.execute(db);
  await sql`drop table kept_market_state`.execute(db);
  await sql`vacuum analyze token_market`.execute(db);
  return true;
}

/** The hot reads of a generated index, by label: every list sort and filter, search, rows of a token. */
export function hotReads(scale: IndexScale, creator: string): Record<string, string> {
  const hot = address(1, scale.tokens); // the newest token, on 8453, the hottest
  // An old token on 8453 (n % 20 < 8) with few trades and holders.
  const cold = address(1, scale.tokens > 12_345 ? 12_345 : 1_005);
  const reads: Record<string, string> = {};
  for (const sort of ['newest', 'oldest', 'trending', 'liquidity', 'market_cap', 'volume_24h']) {
    reads[`tokens ${sort}`] = `/v1/tokens?sort=${sort}&limit=25`;
    reads[`tokens ${sort}, 8453 rwa`] = `/v1/tokens?chain_id=8453&market=rwa&sort=${sort}&limit=25`;
  }
  // One chain, every market (ranked: the all-chains index, other chains skipped); the smallest chain.
  for (const sort of ['trending', 'market_cap'])
    reads[`tokens ${sort}, 5042`] = `/v1/tokens?chain_id=5042&sort=${sort}&limit=25`;
  return {
    ...reads,
    'search word "rocket"': '/v1/tokens/search?q=rocket&limit=25',
    'search prefix "pep"': '/v1/tokens/search?q=pep&limit=25',
    'search words "rocket 47"': '/v1/tokens/search?q=rocket%2047&limit=25',
    'search rare "4711"': '/v1/tokens/search?q=4711&limit=25',
    'search "moon", trending': '/v1/tokens/search?q=moon&sort=trending&limit=25',
    'creator tokens': `/v1/creators/${creator}/tokens?limit=25`,
    'trades, hot token': `/v1/tokens/8453/${hot}/trades?limit=25`,
    'trades, cold token': `/v1/tokens/8453/${cold}/trades?limit=25`,
    'holders, hot token': `/v1/tokens/8453/${hot}/holders?limit=50`,
    'holders, cold token': `/v1/tokens/8453/${cold}/holders?limit=50`,
    'announcements, hot token': `/v1/tokens/8453/${hot}/announcements?limit=25`,
    'token detail': `/v1/tokens/8453/${hot}?include=market,pool`,
    'wallet fee claims': `/v1/wallets/0x0000000000000000000000000000000000000002/fee-claims?chain_id=8453&limit=25`,
  };
}
