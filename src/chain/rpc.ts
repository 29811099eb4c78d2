// JSON-RPC over HTTP with the failure classes the API maps (timeout → 504 upstream_timeout, malformed
// or failed answer → 502 upstream_error, unreachable → 503 temporarily_unavailable), and batches: a
// request's reads go to the node in one HTTP round trip. viem does the ABI work; this is only transport.
import { telemetry } from '../telemetry.ts';

export type UpstreamKind = 'timeout' | 'invalid' | 'unreachable';

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamKind,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

/** A JSON-RPC error object the node returned for one request (a revert, an unknown method, …). */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcResult = { ok: true; result: unknown } | { ok: false; error: RpcErrorObject };

export interface RpcRequest {
  method: string;
  params: unknown[];
}

export class RpcEndpoint {
  /** HTTP round trips made (for benchmarks and tests). */
  roundTrips = 0;

  constructor(
    readonly url: string,
    private readonly timeoutMs: number,
    /** For metrics: the chain this provider serves. */
    private readonly chainId?: number,
  ) {}

  /** One request (a plain JSON-RPC object, not a batch); a JSON-RPC error is returned, not thrown. */
  async request(method: string, params: unknown[]): Promise<RpcResult> {
    const json = await this.post({ jsonrpc: '2.0', id: 0, method, params });
    const result = toResult(json);
    if (!result) throw new UpstreamFailure('invalid', 'the node sent a malformed answer');
    return result;
  }

  /** Several requests in one HTTP round trip, results in request order. */
  async batch(requests: RpcRequest[]): Promise<RpcResult[]> {
    const json = await this.post(
      requests.map((r, id) => ({ jsonrpc: '2.0', id, method: r.method, params: r.params })),
    );
    // Nodes may answer a batch in any order; match by id.
    if (!Array.isArray(json)) throw new UpstreamFailure('invalid', 'the node sent a malformed answer');
    const byId = new Map<number, RpcResult>();
    for (const item of json as { id?: unknown }[]) {
      const result = toResult(item);
      if (result && typeof item.id === 'number') byId.set(item.id, result);
    }
    return requests.map((_, id) => {
      const r = byId.get(id);
      if (!r) throw new UpstreamFailure('invalid', 'the node left requests of a batch unanswered');
      return r;
    });
  }

  /** A batch whose every request must succeed: the results, or an error naming the failed method. */
  async batchResults<T>(requests: RpcRequest[]): Promise<T[]> {
    if (requests.length === 0) return [];
    const answers = await this.batch(requests);
    return answers.map((a, i) => {
      if (!a.ok) throw new Error(`${requests[i]?.method} failed: ${a.error.message}`);
      return a.result as T;
    });
  }

  private async post(body: unknown): Promise<unknown> {
    const started = performance.now();
    const method = String((Array.isArray(body) ? body[0] : body)?.method ?? 'unknown');
    try {
      const answer = await this.send(body);
      telemetry.rpc(this.chainId, method, (performance.now() - started) / 1000, 'ok');
      return answer;
    } catch (err) {
      telemetry.rpc(this.chainId, method, (performance.now() - started) / 1000, 'error');
      throw err;
    }
  }

  private async send(body: unknown): Promise<unknown> {
    this.roundTrips++;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw failure(err, 'unreachable', 'the node is unreachable');
    }
    try {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return await response.json();
    } catch (err) {
      throw failure(err, 'invalid', 'the node sent a malformed answer');
    }
  }
}

function failure(err: unknown, kind: UpstreamKind, message: string): UpstreamFailure {
  const name = (err as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new UpstreamFailure('timeout', 'no answer in time');
  return new UpstreamFailure(kind, message);
}

function toResult(item: unknown): RpcResult | undefined {
  const o = item as { result?: unknown; error?: RpcErrorObject } | null;
  if (!o || typeof o !== 'object') return undefined;
  if (o.error && typeof o.error.code === 'number') return { ok: false, error: o.error };
  if ('result' in o) return { ok: true, result: o.result };
  return undefined;
}
