// The success envelope {data, meta} and request ids.
import { type TSchema, Type } from '@sinclair/typebox';
import { ulid } from 'ulidx';

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

export function envelope(requestIdValue: string, nowMs: number, data: unknown, warnings: string[] = []) {
  return {
    data,
    meta: { request_id: requestIdValue, generated_at: new Date(nowMs).toISOString(), warnings },
  };
}
