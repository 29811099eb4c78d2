// Token metadata documents (ERC-7572 contract metadata) read by their ipfs:// URI, wherever they were
// pinned: from the gateway's own blockstore, or from IPFS through the gateway's node (blocks verified
// against the CID), bounded in size and time. Content is addressed by its hash, so a parsed document
// never changes and is cached (a bounded map, oldest out first); a document not found is asked for again
// after a pause. Only ipfs:// is fetched: an https:// URI is not a reason to call arbitrary hosts.
import type { CID } from 'multiformats/cid';
import { ApiError } from '../errors.ts';
import { ContentTooLarge, cidOfUri, type IpfsNode } from './ipfsNode.ts';

export type MetadataDocument = Record<string, unknown>;

/** The largest document read: ERC-7572 documents are a few hundred bytes. */
export const MAX_DOCUMENT_BYTES = 256 * 1024;
/** How long a document that could not be found is not asked for again. */
const RETRY_MISSING_MS = 30_000;

type Loaded = { found: true; doc: MetadataDocument | null } | { found: false; at: number };

export class MetadataDocuments {
  private readonly cache = new Map<string, Loaded>();
  private readonly loading = new Map<string, Promise<Loaded>>();
  /** CIDs of documents read here and of the images they name: what /ipfs/<cid> may fetch. */
  private readonly referenced = new Map<string, true>();

  constructor(
    private readonly node: IpfsNode,
    private readonly timeoutMs: number,
    private readonly max = 10_000,
  ) {}

  /** The document at `uri` when it is an ipfs:// JSON object found within `waitMs`; else null. */
  async get(uri: string, waitMs = this.timeoutMs): Promise<MetadataDocument | null> {
    const loaded = await this.loaded(uri, waitMs);
    return loaded?.found ? loaded.doc : null;
  }

  /** Like get, but an ipfs:// document that cannot be retrieved is a 504: an update must not erase it. */
  async require(uri: string): Promise<MetadataDocument | null> {
    const loaded = await this.loaded(uri, this.timeoutMs);
    if (loaded && !loaded.found) {
      throw new ApiError(
        'upstream_timeout',
        `The token's current metadata document ${uri.slice(0, 90)} could not be retrieved from IPFS`,
      );
    }
    return loaded?.doc ?? null;
  }

  /** Whether /ipfs/<cid> may fetch this CID: a document read here or an image one of them names. */
  isReferenced(cid: string): boolean {
    return this.referenced.has(cid);
  }

  private async loaded(uri: string, waitMs: number): Promise<Loaded | null> {
    const parsed = cidOfUri(uri);
    if (!parsed) return null;
    const cid = parsed.toString();
    const cached = this.cache.get(cid);
    if (cached && (cached.found || Date.now() - cached.at < RETRY_MISSING_MS)) return cached;
    let loading = this.loading.get(cid);
    if (!loading) {
      loading = this.load(parsed).finally(() => this.loading.delete(cid));
      this.loading.set(cid, loading);
    }
    // The load goes on past the wait: a list answers now, and the next one has the document.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Loaded>((r) => {
      timer = setTimeout(() => r({ found: false, at: Date.now() }), waitMs);
    });
    return Promise.race([loading, late]).finally(() => clearTimeout(timer));
  }

  private async load(parsed: CID): Promise<Loaded> {
    const cid = parsed.toString();
    let result: Loaded;
    try {
      const bytes = await this.node.cat(parsed, {
        maxBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: this.timeoutMs,
      });
      result = { found: true, doc: parseDocument(bytes) };
    } catch (error) {
      // Too large is an answer too (the content will not shrink); anything else may work later.
      result =
        error instanceof ContentTooLarge ? { found: true, doc: null } : { found: false, at: Date.now() };
    }
    if (this.cache.size >= this.max) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
      this.referenced.delete(oldest);
    }
    this.cache.set(cid, result);
    if (result.found) {
      this.remember(cid);
      const image = cidOfUri(result.doc?.image)?.toString();
      if (image) this.remember(image);
    }
    return result;
  }

  private remember(cid: string) {
    if (this.referenced.size >= 2 * this.max)
      this.referenced.delete(this.referenced.keys().next().value as string);
    this.referenced.set(cid, true);
  }
}

function parseDocument(bytes: Buffer): MetadataDocument | null {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as MetadataDocument)
      : null;
  } catch {
    return null;
  }
}

/** A URL a browser can load: ipfs:// served by this gateway at /ipfs/<cid>, http(s) as it is. */
export function publicUrlOf(uri: unknown, origin: string): string | null {
  if (typeof uri !== 'string' || uri === '') return null;
  if (uri.startsWith('ipfs://')) return `${origin}/ipfs/${uri.slice('ipfs://'.length)}`;
  return /^https?:\/\//.test(uri) ? uri : null;
}
