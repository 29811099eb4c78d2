// Launch salts: the factory creates the token with CREATE2 from its token deployer, with the salt
// keccak256(abi.encode(creator, creatorSalt)), and accepts only addresses whose low byte is 0x01.
import { randomBytes } from 'node:crypto';
import { type Address, encodeAbiParameters, getAddress, type Hex, keccak256 } from 'viem';
import { addressWord, type Keccak, mineCreate2Salt } from '../chain/create2.ts';

export const TOKEN_ADDRESS_SUFFIX = 0x01;

export interface LaunchSalt {
  creatorSalt: Hex;
  scopedSalt: Hex;
  predictedToken: Address;
  tries: number;
}

/** The CREATE2 salt the factory derives from `creator`'s creatorSalt: keccak256(abi.encode(creator, creatorSalt)). */
export function scopedLaunchSalt(creator: Address, creatorSalt: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [creator, creatorSalt]));
}

/** Mines a creatorSalt from a random start, so two launches of one creator never share a salt. */
export function mineLaunchSalt(
  opts: {
    tokenDeployer: Address;
    creator: Address;
    initCodeHash: Hex;
    /** Past this many candidates the search stops with an error (default: a million). */
    maxTries?: number;
  },
  keccak?: Keccak,
): LaunchSalt {
  const mined = mineCreate2Salt({
    keccak,
    deployer: opts.tokenDeployer,
    initCodeHash: opts.initCodeHash,
    scope: addressWord(opts.creator),
    // 248 random bits leave room to count up without wrapping.
    start: BigInt(`0x${randomBytes(31).toString('hex')}`) << 8n,
    accept: (address) => address[19] === TOKEN_ADDRESS_SUFFIX,
    maxTries: opts.maxTries,
  });
  return {
    creatorSalt: mined.salt,
    scopedSalt: mined.create2Salt,
    predictedToken: getAddress(mined.address),
    tries: mined.tries,
  };
}
