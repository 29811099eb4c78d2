// B20 on Base (REFERENCE §4.7): the precompile addresses, the activation feature launches need, and the
// salt miner of B20 suites. The B20 address derivation is private to the precompile, so candidates are
// asked of the factory itself: `getB20Address` calls batched through Multicall3 at the pinned block, one
// round trip per batch, until one lands on the launch suffix.
import { randomBytes } from 'node:crypto';
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  stringToHex,
} from 'viem';
import type { Snapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import { type LaunchSalt, scopedLaunchSalt, TOKEN_ADDRESS_SUFFIX } from './salt.ts';

export const B20_FACTORY = '0xB20f000000000000000000000000000000000000' as const;
export const B20_ACTIVATION_REGISTRY = '0x8453000000000000000000000000000000000001' as const;
export const B20_POLICY_REGISTRY = '0x8453000000000000000000000000000000000002' as const;
export const B20_ASSET_FEATURE = keccak256(stringToHex('base.b20_asset'));
/** Multicall3's canonical address (on Base, and placed there on the devnet). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;
/** The asset type of launch tokens. */
const ASSET = 0;
/** Candidates per round trip: about 256 tries find a suffix, so one batch succeeds 98% of the time. */
const BATCH = 1024;
const MAX_BATCHES = 8;

/** The precompiles' interfaces are not public; these are the calls the launchpad's clients make. */
export const B20_ABI = [
  {
    type: 'function',
    name: 'isActive',
    stateMutability: 'view',
    inputs: [{ name: 'feature', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'getB20Address',
    stateMutability: 'view',
    inputs: [
      { name: 'assetType', type: 'uint8' },
      { name: 'creator', type: 'address' },
      { name: 'salt', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'address' }],
  },
] as const satisfies Abi;

const MULTICALL3_ABI = [
  {
    type: 'function',
    name: 'aggregate3',
    stateMutability: 'payable',
    inputs: [
      {
        name: 'calls',
        type: 'tuple[]',
        components: [
          { name: 'target', type: 'address' },
          { name: 'allowFailure', type: 'bool' },
          { name: 'callData', type: 'bytes' },
        ],
      },
    ],
    outputs: [
      {
        name: 'returnData',
        type: 'tuple[]',
        components: [
          { name: 'success', type: 'bool' },
          { name: 'returnData', type: 'bytes' },
        ],
      },
    ],
  },
] as const satisfies Abi;

/** The activation read, for a snapshot's batch. */
export const b20ActivationRead = {
  address: B20_ACTIVATION_REGISTRY,
  abi: B20_ABI as Abi,
  functionName: 'isActive',
  args: [B20_ASSET_FEATURE],
};

/** Mines a creatorSalt whose B20 address (as `factory` would create it) ends in the launch suffix. */
export async function mineB20Salt(
  snapshot: Snapshot,
  input: { factory: Address; creator: Address },
): Promise<LaunchSalt> {
  let tries = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const candidates = Array.from({ length: BATCH }, () => {
      const creatorSalt = `0x${randomBytes(32).toString('hex')}` as Hex;
      return { creatorSalt, scopedSalt: scopedLaunchSalt(input.creator, creatorSalt) };
    });
    const calls = candidates.map((c) => ({
      target: B20_FACTORY,
      allowFailure: false,
      callData: encodeFunctionData({
        abi: B20_ABI,
        functionName: 'getB20Address',
        args: [ASSET, input.factory, c.scopedSalt],
      }),
    }));
    const [result] = await snapshot.read([
      { address: MULTICALL3, abi: MULTICALL3_ABI as Abi, functionName: 'aggregate3', args: [calls] },
    ]);
    if (!result?.ok) {
      throw new ApiError('upstream_error', 'The B20 factory could not be asked for asset addresses', {
        chain_id: 8453,
      });
    }
    const answers = result.value as readonly { success: boolean; returnData: Hex }[];
    for (const [i, answer] of answers.entries()) {
      tries++;
      const address = decodeFunctionResult({
        abi: B20_ABI,
        functionName: 'getB20Address',
        data: answer.returnData,
      }) as Address;
      if (Number.parseInt(address.slice(-2), 16) === TOKEN_ADDRESS_SUFFIX) {
        const c = candidates[i] as (typeof candidates)[number];
        return { ...c, predictedToken: getAddress(address), tries };
      }
    }
  }
  throw new ApiError('upstream_error', `No B20 address with the launch suffix in ${tries} candidates`);
}
