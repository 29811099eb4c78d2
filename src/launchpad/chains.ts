// The four supported chains and their static facts (spec: ChainId; REFERENCE §3.1, §4.11).
export const CHAIN_IDS = [8453, 4663, 143, 5042] as const;
export type ChainId = (typeof CHAIN_IDS)[number];

export interface ChainInfo {
  chain_id: ChainId;
  name: string;
  native_currency: { symbol: string; decimals: number };
  launch_token_mode: 'b20' | 'erc20';
}

export const CHAINS: Record<ChainId, ChainInfo> = {
  8453: {
    chain_id: 8453,
    name: 'Base',
    native_currency: { symbol: 'ETH', decimals: 18 },
    launch_token_mode: 'b20',
  },
  4663: {
    chain_id: 4663,
    name: 'Robinhood Chain',
    native_currency: { symbol: 'ETH', decimals: 18 },
    launch_token_mode: 'erc20',
  },
  143: {
    chain_id: 143,
    name: 'Monad',
    native_currency: { symbol: 'MON', decimals: 18 },
    launch_token_mode: 'erc20',
  },
  // Arc's native gas currency is USDC with 18 decimals; its ERC-20 view has 6 (REFERENCE §3.1).
  5042: {
    chain_id: 5042,
    name: 'Arc',
    native_currency: { symbol: 'USDC', decimals: 18 },
    launch_token_mode: 'erc20',
  },
};

export function isChainId(value: unknown): value is ChainId {
  return (CHAIN_IDS as readonly unknown[]).includes(value);
}
