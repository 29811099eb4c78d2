// Where launch images and metadata documents are pinned: the gateway's IPFS node, whose blocks live in the
// database (every replica on one PostgreSQL serves every pin at /ipfs/<cid>), plus one `pins` row per
// pin for what a block cannot say (content type). With PINNING_URL set, each pin is also held by the
// operator's pinning service before it is returned.
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { sha256 } from 'multiformats/hashes/sha2';
import type { Database } from '../store/db.ts';
import { SqlBlockstore } from './blockstore.ts';
import type { IpfsNode } from './ipfsNode.ts';
import { parseCid } from './ipfsNode.ts';
import { pinRemotely, type RemotePinning } from './remotePinning.ts';
import { telemetry } from '../telemetry.ts';

/** The largest pinned file: a 2 MB image with room to spare. */
const MAX_PINNED_BYTES = 4 * 1024 * 1024;

export interface PinStore {
  /** Pins the bytes and returns their CID once they are stored (and, when configured, pinned remotely). */
  pin(content: Uint8Array, contentType: string): Promise<string>;
  /** Pinned content by CID, or null when this gateway did not pin it. */
  read(cid: string): Promise<{ content: Buffer; contentType: string } | null>;
}

export class IpfsPinStore implements PinStore {
  constructor(
    private readonly database: Database,
    private readonly node: IpfsNode,
    private readonly remote?: RemotePinning,
  ) {}

  async pin(content: Uint8Array, contentType: string): Promise<string> {
    const started = performance.now();
    try {
      const cid = await this.store(content, contentType);
      telemetry.pin('ok', (performance.now() - started) / 1000);
      return cid;
    } catch (err) {
      telemetry.pin('error', (performance.now() - started) / 1000);
      throw err;
    }
  }

  private async store(content: Uint8Array, contentType: string): Promise<string> {
    const cid = await this.node.add(content);
    const text = cid.toString();
    await this.database.db
      .insertInto('pins')
      .values({ cid: text, content_type: contentType, created_at: Date.now() })
      .onConflict((oc) => oc.column('cid').doNothing())
      .execute();
    if (this.remote) {
      await pinRemotely(this.remote, {
        cid: text,
        name: `launchpad-gateway ${contentType}`,
        origins: this.node.multiaddrs(),
      });
    }
    this.node.provide(cid);
    return text;
  }

  async read(text: string): Promise<{ content: Buffer; contentType: string } | null> {
    const cid = parseCid(text);
    if (!cid || cid.toString() !== text) return null;
    const row = await this.database.db
      .selectFrom('pins')
      .select('content_type')
      .where('cid', '=', text)
      .executeTakeFirst();
    if (!row) return null;
    const content = await this.node.cat(cid, { maxBytes: MAX_PINNED_BYTES, timeoutMs: 5000, offline: true });
    return { content, contentType: row.content_type };
  }
}

/**
 * Moves the pins of an earlier version's data dir (`<data dir>/ipfs/<cid>` files and their `.type`) into
 * the node: every one is a single raw block, so its CID does not change. The folder is then renamed.
 */
export async function importDataDirPins(database: Database, dataDir: string): Promise<number> {
  const dir = join(dataDir, 'ipfs');
  if (!existsSync(dir)) return 0;
  const blocks = new SqlBlockstore(database);
  let count = 0;
  for (const name of readdirSync(dir)) {
    const cid = parseCid(name);
    if (!cid || name.includes('.')) continue;
    const bytes = readFileSync(join(dir, name));
    const digest = await sha256.digest(bytes);
    if (!CID.createV1(raw.code, digest).equals(cid)) continue; // not what its name says: left behind
    const typeFile = join(dir, `${name}.type`);
    const contentType = existsSync(typeFile) ? readFileSync(typeFile, 'utf8') : 'application/octet-stream';
    await blocks.put(cid, bytes);
    await database.db
      .insertInto('pins')
      .values({ cid: name, content_type: contentType, created_at: Date.now() })
      .onConflict((oc) => oc.column('cid').doNothing())
      .execute();
    count++;
  }
  renameSync(dir, join(dataDir, 'ipfs.imported'));
  return count;
}
