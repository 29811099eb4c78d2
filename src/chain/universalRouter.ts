// Universal Router calldata for a single-pool v4 exact-input swap (REFERENCE §4.8): command V4_SWAP
// with actions SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL, optionally preceded by PERMIT2_PERMIT.
import {
  type Address,
  concatHex,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  parseAbi,
  toHex,
  zeroAddress,
} from 'viem';
import { POOL_KEY_COMPONENTS, type PoolKey } from '../launchpad/pool.ts';

export const UNIVERSAL_ROUTER_ABI = parseAbi([
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
]);

export const COMMANDS = { PERMIT2_PERMIT: 0x0a, V4_SWAP: 0x10 } as const;
export const V4_ACTIONS = { SWAP_EXACT_IN_SINGLE: 0x06, SETTLE_ALL: 0x0c, TAKE_ALL: 0x0f } as const;

export interface PermitSingle {
  details: { token: Address; amount: bigint; expiration: number; nonce: number };
  spender: Address;
  sigDeadline: bigint;
}

const PERMIT_SINGLE = {
  type: 'tuple',
  components: [
    {
      name: 'details',
      type: 'tuple',
      components: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint160' },
        { name: 'expiration', type: 'uint48' },
        { name: 'nonce', type: 'uint48' },
      ],
    },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
} as const;

const EXACT_INPUT_SINGLE = {
  type: 'tuple',
  components: [
    { name: 'poolKey', type: 'tuple', components: POOL_KEY_COMPONENTS },
    { name: 'zeroForOne', type: 'bool' },
    { name: 'amountIn', type: 'uint128' },
    { name: 'amountOutMinimum', type: 'uint128' },
    { name: 'hookData', type: 'bytes' },
  ],
} as const;

export interface ExactInSingleSwap {
  key: PoolKey;
  zeroForOne: boolean;
  amountIn: bigint;
  minAmountOut: bigint;
  hookData: Hex;
  /** Unix seconds. */
  deadline: bigint;
  permit?: { permit: PermitSingle; signature: Hex };
}

/** The router call and its value (the input amount when the input is native). */
export function encodeExactInSingleSwap(swap: ExactInSingleSwap): { data: Hex; value: bigint } {
  const currencyIn = swap.zeroForOne ? swap.key.currency0 : swap.key.currency1;
  const currencyOut = swap.zeroForOne ? swap.key.currency1 : swap.key.currency0;
  const actions = toHex(
    new Uint8Array([V4_ACTIONS.SWAP_EXACT_IN_SINGLE, V4_ACTIONS.SETTLE_ALL, V4_ACTIONS.TAKE_ALL]),
  );
  const params = [
    encodeAbiParameters(
      [EXACT_INPUT_SINGLE],
      [
        {
          poolKey: swap.key,
          zeroForOne: swap.zeroForOne,
          amountIn: swap.amountIn,
          amountOutMinimum: swap.minAmountOut,
          hookData: swap.hookData,
        },
      ],
    ),
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [currencyIn, swap.amountIn]),
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [currencyOut, swap.minAmountOut]),
  ];
  const v4Input = encodeAbiParameters([{ type: 'bytes' }, { type: 'bytes[]' }], [actions, params]);
  const commands: number[] = [];
  const inputs: Hex[] = [];
  if (swap.permit) {
    commands.push(COMMANDS.PERMIT2_PERMIT);
    inputs.push(
      encodeAbiParameters([PERMIT_SINGLE, { type: 'bytes' }], [swap.permit.permit, swap.permit.signature]),
    );
  }
  commands.push(COMMANDS.V4_SWAP);
  inputs.push(v4Input);
  const data = encodeFunctionData({
    abi: UNIVERSAL_ROUTER_ABI,
    functionName: 'execute',
    args: [concatHex(commands.map((c) => toHex(c, { size: 1 }))), inputs, swap.deadline],
  });
  return { data, value: currencyIn === zeroAddress ? swap.amountIn : 0n };
}
