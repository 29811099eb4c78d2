// Launch pools: the v4 pool key of a launch, its id, and the hook data a swap carries.
import {
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  padHex,
  stringToHex,
  zeroAddress,
} from 'viem';

export interface PoolKey {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
}

/**
 * Whether `token` is currency0 of its pool with `quote` (v4 orders currencies by address; a native
 * quote, address 0, always makes the token currency1). Addresses of one length order as their
 * lowercase hex does: no bigint per comparison (the indexer makes one per swap).
 */
export const tokenIsCurrency0 = (token: string, quote: string): boolean =>
  token.toLowerCase() < quote.toLowerCase();

/** The token sorts against the quote (tokenIsCurrency0); LP fee 0. */
export function launchPoolKey(token: Address, quote: Address, tickSpacing: number, hook: Address): PoolKey {
  const tokenFirst = tokenIsCurrency0(token, quote);
  return {
    currency0: getAddress(tokenFirst ? token : quote),
    currency1: getAddress(tokenFirst ? quote : token),
    fee: 0,
    tickSpacing,
    hooks: getAddress(hook),
  };
}

export const POOL_KEY_COMPONENTS = [
  { name: 'currency0', type: 'address' },
  { name: 'currency1', type: 'address' },
  { name: 'fee', type: 'uint24' },
  { name: 'tickSpacing', type: 'int24' },
  { name: 'hooks', type: 'address' },
] as const;

export function poolId(key: PoolKey): Hex {
  return keccak256(
    encodeAbiParameters(POOL_KEY_COMPONENTS, [
      key.currency0,
      key.currency1,
      key.fee,
      key.tickSpacing,
      key.hooks,
    ]),
  );
}

/** A comment as the hook's bytes32: UTF-8, right-padded with zeros; null when longer than 32 bytes. */
export function commentBytes32(comment: string): Hex | null {
  const bytes = new TextEncoder().encode(comment);
  if (bytes.length > 32) return null;
  return padHex(stringToHex(comment), { dir: 'right', size: 32 });
}

/** hookData = abi.encode(address referrer, bytes32 comment). */
export function encodeHookData(referrer: Address = zeroAddress, comment = ''): Hex {
  const word = commentBytes32(comment);
  if (word === null) throw new RangeError('comment longer than 32 bytes');
  return encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [referrer, word]);
}
