// Every HTTP exchange of the soak, as the checks need it: when, which replica, which key, the operation
// and its units, the status, the body (kept for idempotent writes and invalid answers only) and the
// limiter's headers.
import { Agent, request } from 'node:http';
import type { Operation } from '../../src/http/catalog.ts';
import { weigh } from '../../src/http/limits/units.ts';

export type LoadClass = 'read' | 'quote' | 'swap' | 'write';

export interface Exchange {
  start: number;
  end: number;
  replica: number;
  key: string;
  op: Operation;
  cls: LoadClass;
  /** The path template of the operation (for the OpenAPI check). */
  status: number;
  /** Units the request costs (the gateway's own table). */
  units: number;
  contentType: string;
  /** The minute window's used units after this admission, from X-RateLimit-*, and its limit. */
  minuteUsed?: number;
  minuteLimit?: number;
  minuteWindow?: number;
  idempotencyKey?: string;
  body?: string;
  code?: string;
  /** A 5xx problem's detail (it must name the dependency that failed). */
  detail?: string;
  /** Schema errors of a 2xx body or the problem's shape, when it does not hold. */
  invalid?: string;
  /** A network error or our own time-out. */
  error?: string;
}

export const exchanges: Exchange[] = [];

/** An answer's JSON, read loosely: its shape is held to the OpenAPI document separately. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Call {
  replica: { origin: string; index: number };
  key: { name: string; secret: string };
  op: Operation;
  cls: LoadClass;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  idempotencyKey?: string;
  timeoutMs?: number;
  /** Keep the body in the record (idempotent writes). */
  keepBody?: boolean;
  /** The loopback address the request comes from: each client of the soak is its own source. */
  source?: string;
}

export type Validate = (
  op: Operation,
  status: number,
  contentType: string,
  text: string,
) => string | undefined;

/** Sends one request and records it; the parsed JSON body (or undefined). */
export async function call(
  c: Call,
  validate: Validate,
): Promise<{ status: number; json?: Json; text?: string; retryAfterS?: number }> {
  const url = new URL(c.path, c.replica.origin);
  for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, String(v));
  const start = Date.now();
  const record: Exchange = {
    start,
    end: start,
    replica: c.replica.index,
    key: c.key.name,
    op: c.op,
    cls: c.cls,
    status: 0,
    units: weigh(c.op, { query: c.query ?? {}, body: c.body }),
    contentType: '',
    idempotencyKey: c.idempotencyKey,
  };
  exchanges.push(record);
  try {
    const r = await send(url, {
      method: c.method,
      headers: {
        'x-api-key': c.key.secret,
        ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(c.idempotencyKey ? { 'idempotency-key': c.idempotencyKey } : {}),
      },
      body: c.body !== undefined ? JSON.stringify(c.body) : undefined,
      signal: AbortSignal.timeout(c.timeoutMs ?? 30_000),
      source: c.source ?? '127.0.0.1',
    });
    const text = r.text;
    record.end = Date.now();
    record.status = r.status;
    record.contentType = r.headers.get('content-type') ?? '';
    const limit = r.headers.get('x-ratelimit-limit');
    const remaining = r.headers.get('x-ratelimit-remaining');
    const reset = r.headers.get('x-ratelimit-reset');
    if (limit && remaining && reset && r.status !== 429) {
      record.minuteLimit = Number(limit);
      record.minuteUsed = Number(limit) - Number(remaining);
      record.minuteWindow = Math.round((record.end + Number(reset) * 1000) / 60_000);
    }
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (r.status >= 400) record.code = json?.code;
    if (r.status >= 500) record.detail = json?.detail;
    record.invalid = validate(c.op, r.status, record.contentType, text);
    if (c.keepBody || record.invalid) record.body = text;
    const retryAfterS = r.status === 429 ? Number(r.headers.get('retry-after') ?? 1) : undefined;
    return { status: r.status, json, text, retryAfterS };
  } catch (err) {
    record.end = Date.now();
    // Our own time-out (node:http reports it as an abort).
    record.error =
      (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError'
        ? 'timeout'
        : (err as Error).message;
    return { status: 0 };
  }
}

const agents = new Map<string, Agent>();

/** One HTTP exchange from a given loopback source address (the gateway counts per-source ceilings by it). */
function send(
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
    source: string;
  },
): Promise<{ status: number; headers: { get(name: string): string | null }; text: string }> {
  let agent = agents.get(init.source);
  if (!agent)
    agents.set(init.source, (agent = new Agent({ keepAlive: true, localAddress: init.source } as never)));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method, headers: init.headers, signal: init.signal, agent, localAddress: init.source },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: { get: (name) => (res.headers[name.toLowerCase()] as string | undefined) ?? null },
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
