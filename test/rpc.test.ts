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
/** MiB of the answer's string when huge (one past the transport's limit unless a test sets it). */
let answerMiB = MAX_ANSWER_BYTES / 2 ** 20 + 1;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // test_text [text, times]: that text repeated, as the answer's result.
      const asked = JSON.parse(body) as { method: string; params: [string, number] };
      if (asked.method === 'test_text') {
        const [text, times] = asked.params;
        return response.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: text.repeat(times) }));
      }
      if (!huge) return response.end('{"jsonrpc":"2.0","id":0,"result":"0x2a"}');
      // A JSON string of answerMiB MiB, sent in 1 MiB pieces while the client reads.
      const piece = Buffer.alloc(2 ** 20, 'a');
      let left = answerMiB;
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

describe('answers of many chunks', () => {
  it('reads each whole and as sent, side by side and one after another, a short one after a long one', async () => {
    const endpoint = new RpcEndpoint(url, 60_000);
    const asked: [string, number][] = [
      ['ü', 300_000],
      ['a', 1_000_000],
      ['🚀x', 100_000],
      ['\u00e9\u0301', 50_000],
    ];
    const answers = await Promise.all(asked.map((p) => endpoint.request('test_text', p)));
    expect(answers).toEqual(asked.map(([text, times]) => ({ ok: true, result: text.repeat(times) })));
    for (const p of [...asked, ['b', 70_000] as [string, number]].reverse())
      expect(await endpoint.request('test_text', p)).toEqual({ ok: true, result: p[0].repeat(p[1]) });
  }, 60_000);
});

describe('a node answering more than the transport reads', () => {
  it('fails the request with AnswerTooLarge, and the endpoint answers the next one', async () => {
    const endpoint = new RpcEndpoint(url, 60_000);
    await expect(endpoint.request('eth_getLogs', [{}])).rejects.toBeInstanceOf(AnswerTooLarge);
    huge = false;
    expect(await endpoint.request('eth_blockNumber', [])).toEqual({ ok: true, result: '0x2a' });
  }, 60_000);

  it('fails a batch past the limit it was given (a range read), while the same answer is read without one', async () => {
    const endpoint = new RpcEndpoint(url, 60_000);
    huge = true;
    answerMiB = 2;
    const batch = [{ method: 'eth_getLogs', params: [{}] }];
    const refused = endpoint.batch(batch, 2 ** 20);
    await expect(refused).rejects.toBeInstanceOf(AnswerTooLarge);
    await expect(refused).rejects.toThrow('larger than 1 MiB');
    // (The test node answers a batch with one object: read whole, then refused as malformed.)
    await expect(endpoint.batch(batch)).rejects.toThrow('malformed');
    const whole = await endpoint.request('eth_getLogs', [{}]);
    expect(whole.ok && (whole.result as string).length).toBe(2 * 2 ** 20);
  }, 60_000);
});
