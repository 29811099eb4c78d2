// The success envelope {data, meta} and request ids.

import { randomFillSync } from 'node:crypto';
import { type TSchema, Type } from '@sinclair/typebox';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// Random bytes come from a pool refilled in 4 KiB blocks: one syscall per ~400 ids instead of one per
// id, which profiling showed to be the largest cost of a cheap request.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** A ULID: 48-bit millisecond time then 80 random bits, in Crockford base32 (26 characters). */
export function ulid(nowMs = Date.now()): string {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let out = '';
  let time = nowMs;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[time % 32] + out;
    time = Math.floor(time / 32);
  }
  // 80 bits = 16 characters of 5 bits, read from 10 pooled bytes.
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < 10; i++) {
    acc = (acc << 8) | (pool[poolOffset + i] as number);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  poolOffset += 10;
  return out;
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

// Requests of the same millisecond share one generated_at string (under load, several per millisecond).
let isoMs = Number.NaN;
let isoText = '';
function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

export function envelope(requestIdValue: string, nowMs: number, data: unknown, warnings: string[] = []) {
  return { data, meta: { request_id: requestIdValue, generated_at: isoTime(nowMs), warnings } };
}

/** A page of an indexed list: its rows, the cursor of the next page (null on the last) and the index's reach. */
export function indexedPage(
  requestIdValue: string,
  nowMs: number,
  items: unknown[],
  next: string | null,
  indexedThroughBlock: unknown,
  warnings: string[] = [],
) {
  const body = envelope(requestIdValue, nowMs, items, warnings);
  return {
    data: body.data,
    pagination: { next_cursor: next },
    meta: { ...body.meta, indexed_through_block: indexedThroughBlock },
  };
}

/** PUBLIC_URL, or when it was left to a random port (PORT=0), the origin the caller used. */
export function publicOrigin(publicUrl: string, request: { protocol: string; host: string }): string {
  return publicUrl.endsWith(':0') ? `${request.protocol}://${request.host}` : publicUrl;
}
