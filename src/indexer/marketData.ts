// Market data of launch tokens: the arithmetic (price from the pool's sqrtPriceX96, market cap,
// trending score) and the record the read routes serve from the stored rows of token_market.
// USD values exist where the quote is a stablecoin (1 unit = 1 USD) or the native currency or WETH (the
// chain's native USD price of the last refresh); they are null otherwise, and such tokens rank last in
// USD orders.
import { type Expression, sql } from 'kysely';
import type { Database, MarketStateTable, TokenMarketTable } from '../store/db.ts';
import { recentCopy } from '../store/recentCopies.ts';
import { tokenIsCurrency0 } from '../launchpad/pool.ts';

export const WINDOWS = { '1h': 3600, '6h': 21_600, '24h': 86_400 } as const;
export type Activity = Record<keyof typeof WINDOWS, { trades: number; volume_quote_raw: string }>;

/** 10^n as bigints, n < 80 (a list's records take them for every figure: made once). */
const TENS = Array.from({ length: 80 }, (_, n) => 10n ** BigInt(n));

/** A fixed-point decimal string of `raw / 10^decimals` with up to `places` digits after the point. */
export function decimal(raw: bigint, decimals: number, places = 12): string {
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const scale = TENS[decimals] ?? 10n ** BigInt(decimals);
  const whole = abs / scale;
  let frac = (abs % scale).toString().padStart(decimals, '0').slice(0, places).replace(/0+$/, '');
  if (decimals === 0) frac = '';
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Extra precision of prices: a launch token can be worth less than one raw unit of a 6-decimal quote. */
export const PRICE_SCALE = 10n ** 18n;

/** 2^192 (a squared sqrtPriceX96's scale), and one whole token (1e18 raw) times PRICE_SCALE. */
const Q192 = 1n << 192n;
const WHOLE = 10n ** 18n;
const WHOLE_SCALED = WHOLE * PRICE_SCALE;

/**
 * The price of one whole token (1e18 raw) in raw quote units, times PRICE_SCALE, from the pool's
 * sqrtPriceX96 (Uniswap orders currencies by address; the pool price is currency1 per currency0).
 */
export function pricePerToken(sqrtPriceX96: bigint, token: string, quote: string): bigint {
  const sq = sqrtPriceX96 * sqrtPriceX96;
  if (sq === 0n) return 0n;
  const tokenIs0 = tokenIsCurrency0(token, quote);
  return tokenIs0 ? (sq * WHOLE_SCALED) / Q192 : (Q192 * WHOLE_SCALED) / sq;
}

/** Market cap in raw quote units: price × supply (supply in raw token units). */
export function marketCap(priceScaled: bigint, supply: bigint): bigint {
  return (priceScaled * supply) / WHOLE / PRICE_SCALE;
}

/**
 * marketCap(pricePerToken(sqrt, token, quote), supply) in SQL, over numeric `sqrt` and `supply` and a
 * boolean `tokenIs0` (the token's address below the quote's), for a refresh that computes most of a
 * chain's rows in the database. The same integer steps, each truncated as BigInt division truncates.
 */
export function marketCapSql(
  sqrt: Expression<unknown>,
  supply: Expression<unknown>,
  tokenIs0: Expression<unknown>,
) {
  const n = (x: bigint) => sql.raw(`${x}::numeric`);
  const price = sql`case when ${sqrt} = 0 then 0::numeric
    when ${tokenIs0} then div(${sqrt} * ${sqrt} * ${n(WHOLE_SCALED)}, ${n(Q192)})
    else div(${n(Q192)} * ${n(WHOLE_SCALED)}, ${sqrt} * ${sqrt}) end`;
  return sql`div(div(${price} * ${supply}, ${n(WHOLE)}), ${n(PRICE_SCALE)})`;
}

/** Half-life of a trade's weight in the trending score. */
const TRENDING_HALF_LIFE_S = 6 * 3600;
/** No single trader adds more than this much weight: many traders trend, one busy wallet does not. */
export const TRENDING_CAP_PER_TRADER = 3;

/**
 * A trade's weight in the trending score at chain time `now`, as SQL over a trades row: 2^(-age / 6 h).
 * Summed per trader over the trades of the last 24 h (age 0 to 24 h) in the database.
 */
export const trendingWeight = (now: number) =>
  sql<number>`power(cast(2 as double precision), cast(timestamp - ${now} as double precision) / ${TRENDING_HALF_LIFE_S})`;

/**
 * The trending score is the sum over the last 24 h of each trader's summed trendingWeight, each trader
 * capped at TRENDING_CAP_PER_TRADER, rounded by roundScore. It counts trades and traders, not amounts, so
 * tokens of every quote currency rank on one scale.
 */
/** The stored precision of a trending score. */
export const roundScore = (score: number) => Math.round(score * 1e6) / 1e6;

/** A double rounded to `places` decimals (prices keep their significant digits instead). */
function round(x: number, places: number): number {
  if (x !== 0 && Math.abs(x) < 10 ** -places) return Number(x.toPrecision(6));
  const f = 10 ** places;
  return Math.round(x * f) / f;
}

/** The largest integer a double holds exactly. */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** A raw quote amount in whole quote units as a double, for ranking (stored beside its USD rank). */
export function quoteRank(raw: bigint, decimals: number): number {
  // (Below 2^53 millionths, their count over 1e6 is the same double as the 6-place decimal's text: both
  // round the same quotient once. A refresh of 1M tokens ranks three amounts of each.)
  if (raw >= 0n && decimals >= 6) {
    const millionths = raw / (TENS[decimals - 6] ?? 10n ** BigInt(decimals - 6));
    if (millionths <= MAX_EXACT) return Number(millionths) / 1e6;
  }
  return Number(decimal(raw, decimals, 6));
}

/**
 * quoteRank in SQL: a numeric raw amount times its quote's `unit` (10^-decimals, an exact numeric), cut
 * to 6 places; the cast to double reads the decimal text as Number() does (correctly rounded).
 */
export const quoteRankSql = (raw: Expression<unknown>, unit: Expression<unknown>) =>
  sql<number>`trunc(${raw} * ${unit}, 6)::double precision`;

/** A quote's `unit` for quoteRankSql: 10^-decimals as exact numeric text. */
export const quoteUnit = (decimals: number) => (decimals === 0 ? '1' : `0.${'0'.repeat(decimals - 1)}1`);

/** Where a token's USD price comes from, by its quote currency (kept per row as usd_source). */
export const USD_SOURCE = { none: 0, stablecoin: 1, native: 2 } as const;
export type UsdSource = (typeof USD_SOURCE)[keyof typeof USD_SOURCE];

/**
 * USD per whole quote unit for a usd_source on a chain, as of the chain's last refresh, and its time:
 * 1 for stablecoins (at the refresh's chain time), the native price read at the refresh for native and
 * WETH quotes (at its feed round's time); null where there is none (such tokens rank last in USD orders).
 */
export function usdPrice(
  source: number | null,
  state: MarketStateTable | undefined,
): { usd: number; at: number } | null {
  if (!state) return null;
  if (source === USD_SOURCE.stablecoin) return { usd: 1, at: Number(state.chain_time) };
  if (source === USD_SOURCE.native && state.native_usd !== null)
    return { usd: Number(state.native_usd), at: Number(state.native_usd_at ?? state.chain_time) };
  return null;
}

/** Whether the chain's market rows may have usd_source `source` (every source before a refresh said). */
export function hasUsdSource(state: MarketStateTable | undefined, source: number): boolean {
  return (
    state?.usd_sources === null ||
    state?.usd_sources === undefined ||
    (state.usd_sources & (1 << source)) !== 0
  );
}

/** A stored market row as read: its USD price from its chain's state, and current as of that state. */
export type MarketView = TokenMarketTable & {
  quote_usd: number | null;
  quote_usd_at: number | null;
};

/**
 * The row as of its chain's last refresh: a refresh recomputes every row whose values can have moved
 * and proves the others unchanged, so an unmarked row is current as of the refresh (its block and
 * time) even when it was written earlier; its USD price is the refresh's for its usd_source.
 */
export function marketView(row: TokenMarketTable, state: MarketStateTable | undefined): MarketView {
  const price = usdPrice(row.usd_source, state);
  const current = state !== undefined && row.rebuild === 0;
  const max = (a: number | string | bigint, b: number | string | bigint) =>
    current && Number(b) > Number(a) ? b : a;
  return {
    ...row,
    as_of_block: max(row.as_of_block, state?.as_of_block ?? 0),
    updated_at: max(row.updated_at, state?.refreshed_at ?? 0),
    quote_usd: price?.usd ?? null,
    quote_usd_at: price?.at ?? null,
  };
}

/** A token's market row as read (marketView), or undefined before its first refresh: its row and its chain's state, read side by side. */
export async function marketOf(
  database: Database,
  chainId: number,
  token: string,
): Promise<MarketView | undefined> {
  const [row, state] = await Promise.all([
    database.db
      .selectFrom('token_market')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .executeTakeFirst(),
    marketStates(database).then((states) => states.find((st) => st.chain_id === chainId)),
  ]);
  return row && marketView(row, state);
}

/** How long a copy of market_state serves reads (another process's refresh shows within this). */
const STATE_COPY_MS = 250;

/**
 * market_state of every chain (the USD prices and ranking version of each chain's last refresh), as of
 * at most STATE_COPY_MS ago: made again after every index commit and market refresh of this process.
 */
export function marketStates(database: Database): Promise<MarketStateTable[]> {
  return recentCopy(database, 'market_state', STATE_COPY_MS, () =>
    database.db.selectFrom('market_state').selectAll().orderBy('chain_id').execute(),
  );
}

/** A market row as marketRecord reads it: the stored row as of its refresh, and what its token adds. */
type MarketInput = MarketView & { launch_supply: string; address: string; quote_address: string };

/**
 * The figures of market records by their inputs (all but `data_status`, which moves with the clock): a
 * list serves the same rows request after request until a refresh rewrites them, and their BigInt and
 * decimal arithmetic was a fifth of a list request's CPU. Shared, so never changed by a caller.
 */
const FIGURES = new Map<string, ReturnType<typeof marketFigures>>();
/** Figures kept at most (the oldest go first): more than the rows of the pages a gateway serves often. */
const FIGURES_KEPT = 10_000;

/**
 * The `market_data` record of a token from its stored row: `data_status` is `fresh` while the row is
 * younger than `staleAfterMs`, else `stale`; `pending` (all values null) before its first refresh.
 */
export function marketRecord(
  row: MarketInput | undefined,
  quote: { decimals: number },
  nowMs: number,
  staleAfterMs: number,
) {
  if (!row)
    return {
      data_status: 'pending',
      price: null,
      market_cap: null,
      liquidity: null,
      quote_price: null,
      activity: null,
      trending_score: null,
      updated_at: null,
      as_of_block: null,
    };
  const key = `${row.address} ${row.quote_address} ${quote.decimals} ${row.sqrt_price_x96} ${row.launch_supply} ${row.reserve_quote_raw} ${row.updated_at} ${row.quote_usd} ${row.quote_usd_at} ${row.trending_score} ${row.as_of_block} ${row.activity}`;
  let figures = FIGURES.get(key);
  if (figures === undefined) {
    figures = marketFigures(row, quote);
    FIGURES.set(key, figures);
    if (FIGURES.size > FIGURES_KEPT) FIGURES.delete(FIGURES.keys().next().value as string);
  }
  const status = nowMs - Number(row.updated_at) <= staleAfterMs ? 'fresh' : 'stale';
  return { data_status: status, ...figures };
}

/** marketRecord's figures of a row. */
function marketFigures(row: MarketInput, quote: { decimals: number }) {
  // USD display figures are JSON numbers, as the production clients read them (REFERENCE §3.9); raw
  // amounts and quote-denominated values stay exact strings.
  // USD is the quote amount times the quote's USD price at the refresh (1 for stablecoins, the native
  // reference for native and WETH quotes); null where the quote has none.
  const quoteUsd = row.quote_usd === null || row.quote_usd === undefined ? null : Number(row.quote_usd);
  const usd = (raw: bigint, places: number, decimals = quote.decimals) =>
    quoteUsd === null ? null : round(Number(decimal(raw, decimals, places + 8)) * quoteUsd, places);
  const price = pricePerToken(BigInt(row.sqrt_price_x96), row.address, row.quote_address);
  const cap = marketCap(price, BigInt(row.launch_supply));
  // Prices to 18 significant places past the quote's own decimals.
  const priceDigits = quote.decimals + 18;
  const reserve = BigInt(row.reserve_quote_raw);
  const updated_at = new Date(Number(row.updated_at)).toISOString();
  const activity = JSON.parse(row.activity) as Activity;
  return {
    price: { quote: decimal(price, priceDigits, priceDigits), usd: usd(price, priceDigits, priceDigits) },
    market_cap: { quote: decimal(cap, quote.decimals, 2), usd: usd(cap, 2) },
    liquidity: {
      quote: decimal(reserve, quote.decimals, 6),
      quote_raw: reserve.toString(),
      usd: usd(reserve, 2),
    },
    quote_price: {
      usd: quoteUsd,
      updated_at: row.quote_usd_at ? new Date(Number(row.quote_usd_at) * 1000).toISOString() : updated_at,
    },
    activity: Object.fromEntries(
      Object.entries(activity).map(([window, a]) => [
        window,
        { ...a, volume_usd: usd(BigInt(a.volume_quote_raw), 2) },
      ]),
    ),
    trending_score: row.trending_score,
    updated_at,
    as_of_block: String(row.as_of_block),
  };
}
