// Where launch images and metadata documents are pinned. The embedded store keeps content-addressed
// files in the data dir (served at /ipfs/<cid>); the CID is computed from the bytes, so a file is
// never written twice and reading it back proves the pin.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
