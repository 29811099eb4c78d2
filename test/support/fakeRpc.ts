// A minimal JSON-RPC endpoint on 127.0.0.1 for health and shutdown tests: the head block, null for
// anything else, single requests and batches, with an optional delay.
import { createServer, type Server } from 'node:http';

export interface FakeRpc {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startFakeRpc(opts: { head?: bigint; delayMs?: number } = {}): Promise<FakeRpc> {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      state.requests++;
      const parsed = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const answer = ({ id, method }: { id: number; method: string }) => ({
        jsonrpc: '2.0',
        id,
        result: method === 'eth_blockNumber' ? `0x${(opts.head ?? 100n).toString(16)}` : null,
      });
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
      }, opts.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A loopback URL where nothing listens. */
export async function deadUrl(): Promise<string> {
  const rpc = await startFakeRpc();
  await rpc.close();
  return rpc.url;
}
