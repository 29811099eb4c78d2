// The row key of a block in `ipfs_blocks` (the IPFS blockstore's table, src/pinning/blockstore.ts).
import { base32 } from 'multiformats/bases/base32';
import type { CID } from 'multiformats/cid';

/** The row key of a block: its multihash in base32 (the same bytes under another CID codec or version share it). */
export function blockKey(cid: CID): string {
  return base32.encode(cid.multihash.bytes);
}
