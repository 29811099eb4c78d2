// The success envelope {data, meta} and request ids.

import { randomFillSync } from 'node:crypto';
import { type TSchema, Type } from '@sinclair/typebox';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// Random bytes come from a pool refilled in 4 KiB blocks: one syscall per ~400 ids instead of one per
// id, which profiling showed to be the largest cost of a cheap request.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

const CODES = [...CROCKFORD].map((c) => c.charCodeAt(0));
// The 10 time characters change once per millisecond; under load several ids share them.
let prefixMs = Number.NaN;
let prefix = '';

/** A ULID: 48-bit millisecond time then 80 random bits, in Crockford base32 (26 characters). */
export function ulid(nowMs = Date.now()): string {
  if (nowMs !== prefixMs) {
    let time = nowMs;
    let out = '';
    for (let i = 0; i < 10; i++) {
      out = CROCKFORD[time % 32] + out;
      time = Math.floor(time / 32);
    }
    prefix = out;
    prefixMs = nowMs;
  }
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // 80 bits = 16 characters of 5 bits: two groups of 5 pooled bytes, 8 characters each.
  const at = poolOffset;
  poolOffset += 10;
  return prefix + eight(at) + eight(at + 5);
}

/** Five pooled bytes (40 bits) as 8 Crockford characters, in small-integer arithmetic only. */
function eight(at: number): string {
  const b0 = pool[at] as number;
  const b1 = pool[at + 1] as number;
  const b2 = pool[at + 2] as number;
  const b3 = pool[at + 3] as number;
  const b4 = pool[at + 4] as number;
  return String.fromCharCode(
    CODES[b0 >> 3] as number,
    CODES[((b0 & 7) << 2) | (b1 >> 6)] as number,
    CODES[(b1 >> 1) & 31] as number,
    CODES[((b1 & 1) << 4) | (b2 >> 4)] as number,
    CODES[((b2 & 15) << 1) | (b3 >> 7)] as number,
    CODES[(b3 >> 2) & 31] as number,
    CODES[((b3 & 3) << 3) | (b4 >> 5)] as number,
    CODES[b4 & 31] as number,
  );
}

const CALLER_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;

/** A caller's well-formed X-Request-Id is kept; anything else gets `req_<ULID>`. */
export function requestId(header: string | string[] | undefined): string {
  if (typeof header === 'string' && CALLER_REQUEST_ID.test(header)) return header;
  return `req_${ulid()}`;
}

export const Meta = Type.Object(
  {
    request_id: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    warnings: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: Meta });
}

/** ISO 8601 of a time; requests of the same millisecond share one string (under load, several per ms). */
let isoMs = Number.NaN;
let isoText = '';
export function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

export function envelope(requestIdValue: string, nowMs: number, data: unknown, warnings: string[] = []) {
  return { data, meta: { request_id: requestIdValue, generated_at: isoTime(nowMs), warnings } };
}

/**
 * The envelope as JSON around data that is already JSON (an answer that is the same for many requests,
 * serialized once). Request ids are [A-Za-z0-9._:-] (requestId) and the time is ISO 8601: neither needs
 * escaping.
 */
export function envelopeJson(
  requestIdValue: string,
  nowMs: number,
  dataJson: string,
  warnings: string[] = [],
) {
  const warned = warnings.length === 0 ? '[]' : JSON.stringify(warnings);
  return `{"data":${dataJson},"meta":{"request_id":"${requestIdValue}","generated_at":"${isoTime(nowMs)}","warnings":${warned}}}`;
}

/** The content type of every JSON answer sent as a string (fastify then sends it as is). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A page of an indexed list: its rows, the cursor of the next page (null on the last), the index's reach. */
export interface PageParts {
  items: unknown[];
  next: string | null;
  indexedThrough: unknown;
  warnings?: string[];
  /** The items as JSON, made by indexedPageJson on first use (a shared page's callers reuse it). */
  itemsJson?: string;
}

/** The answer of an indexed list. */
export function indexedPage(requestIdValue: string, nowMs: number, page: PageParts) {
  const body = envelope(requestIdValue, nowMs, page.items, page.warnings);
  return {
    data: body.data,
    pagination: { next_cursor: page.next },
    meta: { ...body.meta, indexed_through_block: page.indexedThrough },
  };
}

/**
 * indexedPage as JSON text, the same bytes fastify would send for it. The rows' JSON is kept on the page,
 * so that the callers of a shared page (operations/sharedPages) reuse it. (Not in a WeakMap keyed by the
 * rows: V8's scavenger keeps a WeakMap's entries alive, so every page read, rows and JSON, survived its
 * young generation: 8.4 MB a scavenge at 2,238 token lists a second.)
 */
export function indexedPageJson(requestIdValue: string, nowMs: number, page: PageParts): string {
  const rows = (page.itemsJson ??= JSON.stringify(page.items));
  const through =
    page.indexedThrough === undefined
      ? ''
      : `,"indexed_through_block":${JSON.stringify(page.indexedThrough)}`;
  const warned = page.warnings?.length ? JSON.stringify(page.warnings) : '[]';
  return `{"data":${rows},"pagination":{"next_cursor":${JSON.stringify(page.next)}},"meta":{"request_id":"${requestIdValue}","generated_at":"${isoTime(nowMs)}","warnings":${warned}${through}}}`;
}

/** PUBLIC_URL, or when it was left to a random port (PORT=0), the origin the caller used. */
export function publicOrigin(publicUrl: string, request: { protocol: string; host: string }): string {
  return publicUrl.endsWith(':0') ? `${request.protocol}://${request.host}` : publicUrl;
}
