// Market data of one token, read live at a pinned block: the pool price (StateView), market cap from
// the supply, and trading activity over 1h/6h/24h from the index. USD values only where the quote is a
// stablecoin (1 unit = 1 USD); no other price source exists here, so they are null otherwise.
import type { Abi, Address } from 'viem';
import { ERC20_ABI } from '../chain/erc20.ts';
import type { Snapshot } from '../chain/snapshot.ts';
import { UNISWAP } from '../devnet/uniswap.ts';
import type { Database, TokensTable } from '../store/db.ts';

const WINDOWS = { '1h': 3600, '6h': 21_600, '24h': 86_400 } as const;

/** A fixed-point decimal string of `raw / 10^decimals` with up to `places` digits after the point. */
export function decimal(raw: bigint, decimals: number, places = 12): string {
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  let frac = (abs % scale).toString().padStart(decimals, '0').slice(0, places).replace(/0+$/, '');
  if (decimals === 0) frac = '';
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export async function marketData(
  snapshot: Snapshot,
  database: Database,
  token: TokensTable,
  quote: { decimals: number; stablecoin: boolean },
  stateView: Address,
) {
  const [slot0, supply] = (await snapshot.readAll([
    { address: stateView, abi: UNISWAP.StateView().abi, functionName: 'getSlot0', args: [token.pool_id] },
    { address: token.address as Address, abi: ERC20_ABI as Abi, functionName: 'totalSupply' },
  ])) as [[bigint], bigint];
  const sqrt = slot0[0];
  const q192 = 1n << 192n;
  const tokenIs0 = BigInt(token.address) < BigInt(token.quote_address);
  // Quote (raw) per 1e18 raw token units, i.e. the price of one whole token in raw quote units.
  const perToken = tokenIs0 ? (sqrt * sqrt * 10n ** 18n) / q192 : (q192 * 10n ** 18n) / (sqrt * sqrt);
  const capRaw = (perToken * supply) / 10n ** 18n;
  const now = Number(snapshot.timestamp);
  const activity: Record<string, { trades: number; volume_quote_raw: string; volume_usd: string | null }> =
    {};
  for (const [name, seconds] of Object.entries(WINDOWS)) {
    const rows = await database.db
      .selectFrom('trades')
      .select(['quote_amount_raw'])
      .where('chain_id', '=', token.chain_id)
      .where('token', '=', token.address)
      .where('timestamp', '>=', now - seconds)
      .execute();
    const volume = rows.reduce((sum, r) => sum + BigInt(r.quote_amount_raw), 0n);
    activity[name] = {
      trades: rows.length,
      volume_quote_raw: volume.toString(),
      volume_usd: quote.stablecoin ? decimal(volume, quote.decimals, 2) : null,
    };
  }
  const at = new Date(now * 1000).toISOString();
  return {
    data_status: 'fresh',
    price: {
      quote: decimal(perToken, quote.decimals),
      usd: quote.stablecoin ? decimal(perToken, quote.decimals) : null,
    },
    market_cap: {
      quote: decimal(capRaw, quote.decimals, 2),
      usd: quote.stablecoin ? decimal(capRaw, quote.decimals, 2) : null,
    },
    liquidity: { usd: null },
    quote_price: { usd: quote.stablecoin ? '1' : null, updated_at: at },
    activity,
    updated_at: at,
    as_of_block: snapshot.blockNumber.toString(),
  };
}
