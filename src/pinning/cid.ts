// CIDv1 for raw bytes: version 1, codec raw (0x55), multihash sha2-256, multibase base32 (lowercase,
// prefix "b"). The same CID Kubo gives a file of one block with `--cid-version=1 --raw-leaves`.
import { createHash } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function rawCid(content: Uint8Array): string {
  const digest = createHash('sha256').update(content).digest();
  return `b${base32(Uint8Array.from([0x01, 0x55, 0x12, 0x20, ...digest]))}`;
}

/** A CIDv1 raw/sha2-256 in base32, the only kind this store makes. */
export const RAW_CID_PATTERN = /^bafkrei[a-z2-7]{52}$/;
