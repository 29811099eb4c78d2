// Token metadata documents (ERC-7572 contract metadata) that this gateway pinned, read back by their
// ipfs:// URI. Content is addressed by its hash, so a parsed document never changes: it is cached (a
// bounded map, oldest out first). Documents pinned elsewhere are not fetched: an on-chain URI is not a
// reason for the gateway to make requests to arbitrary hosts.
import type { PinStore } from './pinStore.ts';

export type MetadataDocument = Record<string, unknown>;

export class PinnedDocuments {
  private readonly cache = new Map<string, MetadataDocument | null>();

  constructor(
    private readonly pins: PinStore,
    private readonly max = 10_000,
  ) {}

  /** The document at `uri` when it is an ipfs:// URI of content pinned here and a JSON object. */
  async get(uri: string): Promise<MetadataDocument | null> {
    const cid = /^ipfs:\/\/([A-Za-z0-9]+)$/.exec(uri)?.[1];
    if (!cid) return null;
    if (this.cache.has(cid)) return this.cache.get(cid) ?? null;
    const pinned = await this.pins.read(cid);
    let doc: MetadataDocument | null = null;
    if (pinned) {
      try {
        const parsed: unknown = JSON.parse(pinned.content.toString('utf8'));
        doc =
          parsed && typeof parsed === 'object' && !Array.isArray(parsed)
            ? (parsed as MetadataDocument)
            : null;
      } catch {
        doc = null;
      }
      // Only found content is cached: a CID not pinned yet may be pinned later.
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(cid, doc);
    }
    return doc;
  }
}

/** A URL a browser can load: ipfs:// served by this gateway at /ipfs/<cid>, http(s) as it is. */
export function publicUrlOf(uri: unknown, origin: string): string | null {
  if (typeof uri !== 'string' || uri === '') return null;
  if (uri.startsWith('ipfs://')) return `${origin}/ipfs/${uri.slice('ipfs://'.length)}`;
  return /^https?:\/\//.test(uri) ? uri : null;
}
