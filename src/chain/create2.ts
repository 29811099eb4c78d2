// CREATE2 salt mining, for the launch-token address suffix (0x01, about 256 tries) and the hook's
// permission bits (0x2ACC in the low 14 bits, about 16,384 tries). Hashes raw bytes in one reused
// buffer: encoding through hex per try would be several times slower. The salt worker hashes with
// WebAssembly keccak (hash-wasm, about 11× viem's JavaScript keccak here); viem's is the fallback.
import { createKeccak } from 'hash-wasm';
import { type Address, bytesToHex, type Hex, hexToBytes, keccak256 } from 'viem';

/** keccak256 of bytes, as bytes. */
export type Keccak = (data: Uint8Array) => Uint8Array;

const viemKeccak: Keccak = (data) => keccak256(data, 'bytes');

/** A WebAssembly keccak256 (hash-wasm); one instance, reused for every hash (not re-entrant). */
export async function wasmKeccak(): Promise<Keccak> {
  const hasher = await createKeccak(256);
  return (data) => hasher.init().update(data).digest('binary');
}

export interface MinedSalt {
  /** The caller's salt (for launches: `creatorSalt`). */
  salt: Hex;
  /** The salt CREATE2 sees (for launches: keccak256(abi.encode(creator, creatorSalt))). */
  create2Salt: Hex;
  address: Address;
  tries: number;
}

export function mineCreate2Salt(opts: {
  deployer: Address;
  initCodeHash: Hex;
  /** Accepts an address given as its 20 bytes. */
  accept: (address: Uint8Array) => boolean;
  /** When set, CREATE2's salt is keccak256(scope ‖ salt); scope is 32 bytes (a padded address). */
  scope?: Uint8Array;
  start?: bigint;
  maxTries?: number;
  keccak?: Keccak;
}): MinedSalt {
  const maxTries = opts.maxTries ?? 1_000_000;
  const hash = opts.keccak ?? viemKeccak;
  const create2 = new Uint8Array(85);
  create2[0] = 0xff;
  create2.set(hexToBytes(opts.deployer), 1);
  create2.set(hexToBytes(opts.initCodeHash), 53);
  const scoped = new Uint8Array(64);
  if (opts.scope) scoped.set(opts.scope, 0);
  // The candidate salt, counted up in place (big-endian) instead of re-encoded per try.
  const salt = hexToBytes(`0x${(opts.start ?? 0n).toString(16).padStart(64, '0')}`);
  for (let tries = 1; tries <= maxTries; tries++) {
    let create2Salt = salt;
    if (opts.scope) {
      scoped.set(salt, 32);
      create2Salt = hash(scoped);
    }
    create2.set(create2Salt, 21);
    const address = hash(create2).subarray(12);
    if (opts.accept(address)) {
      return {
        salt: bytesToHex(salt),
        create2Salt: bytesToHex(create2Salt),
        address: bytesToHex(address) as Address,
        tries,
      };
    }
    for (let i = 31; i >= 0; i--) {
      salt[i] = ((salt[i] as number) + 1) & 0xff;
      if (salt[i] !== 0) break;
    }
  }
  throw new Error(`no CREATE2 salt found in ${maxTries} tries`);
}

/** Left-pads an address to a 32-byte ABI word. */
export function addressWord(address: Address): Uint8Array {
  const word = new Uint8Array(32);
  word.set(hexToBytes(address), 12);
  return word;
}
