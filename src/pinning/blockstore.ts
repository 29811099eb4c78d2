// The IPFS node's blockstore in the gateway's database (the SQLite file in the data dir, or PostgreSQL,
// where every replica reads the blocks of every other). Blocks are keyed by multihash, as Helia's own
// stores do: the same bytes under another CID codec or version are the same block.
import { BaseBlockstore } from 'blockstore-core';
import type { InputPair } from 'interface-blockstore';
import { NotFoundError } from 'interface-store';
import type { CID } from 'multiformats/cid';
import { blockKey } from '../store/blockKeys.ts';
import type { Database } from '../store/db.ts';

async function concat(value: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>) {
  if (value instanceof Uint8Array) return Buffer.from(value);
  const parts: Uint8Array[] = [];
  for await (const part of value) parts.push(part);
  return Buffer.concat(parts);
}

export class SqlBlockstore extends BaseBlockstore {
  constructor(private readonly database: Database) {
    super();
  }

  override async put(cid: CID, value: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>) {
    await this.database.db
      .insertInto('ipfs_blocks')
      .values({ key: blockKey(cid), bytes: await concat(value) })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return cid;
  }

  override async *get(cid: CID): AsyncGenerator<Uint8Array> {
    const row = await this.database.db
      .selectFrom('ipfs_blocks')
      .select('bytes')
      .where('key', '=', blockKey(cid))
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`block ${cid} is not in the store`);
    yield new Uint8Array(row.bytes);
  }

  override async has(cid: CID) {
    const row = await this.database.db
      .selectFrom('ipfs_blocks')
      .select('key')
      .where('key', '=', blockKey(cid))
      .executeTakeFirst();
    return row !== undefined;
  }

  override async delete(cid: CID) {
    await this.database.db.deleteFrom('ipfs_blocks').where('key', '=', blockKey(cid)).execute();
  }

  override async *putMany(source: Iterable<InputPair> | AsyncIterable<InputPair>) {
    for await (const { cid, bytes } of source) yield await this.put(cid, bytes);
  }
}
