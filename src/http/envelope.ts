// The success envelope {data, meta} and request ids.

import { randomFillSync } from 'node:crypto';
import { type TSchema, Type } from '@sinclair/typebox';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// Random bytes come from a pool refilled in 4 KiB blocks: one syscall per ~400 ids instead of one per
// id, which profiling showed to be the largest cost of a cheap request.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

const CROCKFORD_CODES = [...CROCKFORD].map((c) => c.charCodeAt(0));
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
  // 80 bits = 16 characters of 5 bits: two 40-bit halves of 5 pooled bytes each, built as one string.
  const hi = randomHalf(poolOffset);
  const lo = randomHalf(poolOffset + 5);
  poolOffset += 10;
  return (
    prefix +
    String.fromCharCode(
      code(hi, 35),
      code(hi, 30),
      code(hi, 25),
      code(hi, 20),
      code(hi, 15),
      code(hi, 10),
      code(hi, 5),
      code(hi, 0),
      code(lo, 35),
      code(lo, 30),
      code(lo, 25),
      code(lo, 20),
      code(lo, 15),
      code(lo, 10),
      code(lo, 5),
      code(lo, 0),
    )
  );
}

/** Five pooled bytes as one 40-bit number (exact in a double). */
function randomHalf(at: number): number {
  return (
    (pool[at] as number) * 2 ** 32 +
    (((pool[at + 1] as number) << 24) >>> 0) +
    ((pool[at + 2] as number) << 16) +
    ((pool[at + 3] as number) << 8) +
    (pool[at + 4] as number)
  );
}

/** The Crockford character code of the 5 bits of `value` at `shift`. */
function code(value: number, shift: number): number {
  return CROCKFORD_CODES[Math.floor(value / 2 ** shift) % 32] as number;
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
