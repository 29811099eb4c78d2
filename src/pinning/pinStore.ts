// Where launch images and metadata documents are pinned: content-addressed files in the data dir for the
// embedded default, or the database's `pins` table on PostgreSQL, so that every replica serves every pin
// at /ipfs/<cid>. The CID is computed from the bytes, so content is never stored twice and reading it
// back proves the pin.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../store/db.ts';
import { RAW_CID_PATTERN, rawCid } from './cid.ts';

export interface PinStore {
  /** Pins the bytes and returns their CID once they are stored and verified. */
  pin(content: Uint8Array, contentType: string): Promise<string>;
  read(cid: string): Promise<{ content: Buffer; contentType: string } | null>;
}

export class LocalPinStore implements PinStore {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'ipfs');
    mkdirSync(this.dir, { recursive: true });
  }

  async pin(content: Uint8Array, contentType: string): Promise<string> {
    const cid = rawCid(content);
    const file = join(this.dir, cid);
    if (!existsSync(file)) {
      // Write then rename: a reader never sees half a file, and concurrent pins of one CID agree.
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, content);
      writeFileSync(`${file}.type`, contentType);
      renameSync(tmp, file);
    }
    if (rawCid(readFileSync(file)) !== cid) throw new Error(`pinned content of ${cid} does not verify`);
    return cid;
  }

  async read(cid: string): Promise<{ content: Buffer; contentType: string } | null> {
    if (!RAW_CID_PATTERN.test(cid)) return null;
    const file = join(this.dir, cid);
    if (!existsSync(file)) return null;
    const typeFile = `${file}.type`;
    const contentType = existsSync(typeFile) ? readFileSync(typeFile, 'utf8') : 'application/octet-stream';
    return { content: readFileSync(file), contentType };
  }
}

/** Pins in the database: one row per CID, shared by every gateway on it. */
export class DatabasePinStore implements PinStore {
  constructor(private readonly database: Database) {}

  async pin(content: Uint8Array, contentType: string): Promise<string> {
    const cid = rawCid(content);
    await this.database.db
      .insertInto('pins')
      .values({ cid, content_type: contentType, content: Buffer.from(content), created_at: Date.now() })
      .onConflict((oc) => oc.column('cid').doNothing())
      .execute();
    const stored = await this.read(cid);
    if (!stored || rawCid(stored.content) !== cid)
      throw new Error(`pinned content of ${cid} does not verify`);
    return cid;
  }

  async read(cid: string): Promise<{ content: Buffer; contentType: string } | null> {
    if (!RAW_CID_PATTERN.test(cid)) return null;
    const row = await this.database.db
      .selectFrom('pins')
      .select(['content', 'content_type'])
      .where('cid', '=', cid)
      .executeTakeFirst();
    return row ? { content: Buffer.from(row.content), contentType: row.content_type } : null;
  }
}

/** The pin store of a gateway: the database's on PostgreSQL (shared by replicas), else the data dir's. */
export function pinStoreFor(database: Database, dataDir: string): PinStore {
  return database.kind === 'postgres' ? new DatabasePinStore(database) : new LocalPinStore(dataDir);
}
