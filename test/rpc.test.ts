// The JSON-RPC transport against a node that answers too much: the request fails with AnswerTooLarge
// (which the indexer answers with a shorter range) instead of the process dying on a string over V8's
// limit, and the endpoint goes on answering.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLarge, MAX_ANSWER_BYTES, RpcEndpoint } from '../src/chain/rpc.ts';

let server: http.Server;
let url: string;
let huge = true;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      if (!huge) return response.end('{"jsonrpc":"2.0","id":0,"result":"0x2a"}');
      // A JSON string one MiB past the limit, sent in 1 MiB pieces while the client reads.
      const piece = Buffer.alloc(2 ** 20, 'a');
      let left = MAX_ANSWER_BYTES / 2 ** 20 + 1;
      response.write('{"jsonrpc":"2.0","id":0,"result":"');
      const more = () => {
        while (left > 0) {
          left--;
          if (!response.write(piece)) return response.once('drain', more);
        }
        response.end('"}');
      };
      response.on('error', () => {});
      more();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('a node answering more than the transport reads', () => {
  it('fails the request with AnswerTooLarge, and the endpoint answers the next one', async () => {
    const endpoint = new RpcEndpoint(url, 60_000);
    await expect(endpoint.request('eth_getLogs', [{}])).rejects.toBeInstanceOf(AnswerTooLarge);
    huge = false;
    expect(await endpoint.request('eth_blockNumber', [])).toEqual({ ok: true, result: '0x2a' });
  }, 60_000);
});
