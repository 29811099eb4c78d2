// A JSON-RPC proxy on 127.0.0.1 in front of a devnet node, for tests of what the gateway does when
// its RPC misbehaves: it counts round trips, can stall or answer garbage, run an action before
// forwarding, or rewrite answers.
import { createServer, type Server } from 'node:http';

export type RpcBody =
  { method: string; params: unknown[]; id: number } | { method: string; params: unknown[]; id: number }[];

export interface RpcProxy {
  url: string;
  /** Every request body received (a batch is one entry). */
  bodies: RpcBody[];
  mode: 'pass' | 'stall' | 'garbage';
  /** Runs before a body is forwarded. */
  before?: (body: RpcBody) => Promise<void>;
  /** Rewrites a forwarded answer. */
  transform?: (body: RpcBody, answer: unknown) => unknown;
  close(): Promise<void>;
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const proxy = { bodies: [] as RpcBody[], mode: 'pass' } as RpcProxy;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', async () => {
      const body = JSON.parse(raw) as RpcBody;
      proxy.bodies.push(body);
      if (proxy.mode === 'stall') return; // never answers
      if (proxy.mode === 'garbage') {
        res.setHeader('content-type', 'application/json');
        res.end('{"jsonrpc":"2.0", this is not json');
        return;
      }
      await proxy.before?.(body);
      const forwarded = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      let answer = (await forwarded.json()) as unknown;
      if (proxy.transform) answer = proxy.transform(body, answer);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
