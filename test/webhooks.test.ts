// Webhooks end to end on the devnet and PostgreSQL with two gateway processes (A indexes; both deliver):
// deliveries of a launch and a buy made through the API, verified with the standardwebhooks library; a
// receiver answering 500 gets retries and then one success per webhook-id; SIGKILL of both gateways
// mid-backlog loses nothing after a restart; a reorg delivers `removed`; a rotated secret and the old one
// both verify during the overlap; production mode refuses local and metadata targets.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type Address, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { launchPoolKey } from '../src/launchpad/pool.ts';
import { TestChain } from './support/chain.ts';
import { call, expectProblem, freshPostgres, startGateway, tempDir, UNLIMITED } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';
import { createKeyWithCli, type Replica, replicaPool, replicaEnv } from './support/replica.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

let devnet: Devnet;
let chain: TestChain;
let env: Record<string, string>;
let key: string;
let receiver: Server;
let receiverUrl: string;
/** What the receiver answers next. */
let answer = 200;
const received: Received[] = [];
const replicas = replicaPool(() => env);

const replica = replicas.start;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body, status: answer });
      res.writeHead(answer).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const dataDir = tempDir();
  devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  chain = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
  env = replicaEnv(devnet, dataDir, await freshPostgres(inject('postgresUrl')), {
    INDEXER_POLL_MS: '50',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_RETRY_BASE_MS: '200',
  });
  key = await createKeyWithCli(env, 'builder', UNLIMITED);
}, 120_000);
afterAll(async () => {
  replicas.killAll();
  await devnet?.stop();
  receiver?.close();
});

const api = (r: Replica, path: string, init: { method?: string; body?: unknown; k?: string } = {}) =>
  call(r, path, {
    key: init.k ?? key,
    method: init.method ?? 'GET',
    body: init.body,
    headers: init.method === 'POST' && path.endsWith('/prepare') ? { 'idempotency-key': randomUUID() } : {},
  });

async function waitFor<T>(what: string, pick: () => T | undefined, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = pick();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms (${received.length} received)`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The first delivery the receiver acknowledged whose body matches. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are inspected field by field
const delivered = (pred: (data: Record<string, any>, r: Received) => boolean) =>
  received.find((r) => r.status === 200 && pred(JSON.parse(r.body), r));

describe('webhooks', () => {
  let a: Replica;
  let b: Replica;
  let secret: string;
  let endpointId: string;
  let token: Address;

  it('delivers the launch and the buy made through the API, signed as Standard Webhooks', async () => {
    a = await replica();
    b = await replica({ INDEXER: 'off' });
    const made = await api(a, '/v1/webhooks', {
      method: 'POST',
      body: { url: receiverUrl, chain_id: 8453, types: ['launch', 'trade'], description: 'test receiver' },
    });
    expect(made.status, made.body).toBe(200);
    secret = made.json.data.secret;
    endpointId = made.json.data.id;
    expect(secret).toMatch(/^whsec_/);
    // Seen from B; never its secret again; not at all for another key.
    const listed = await api(b, '/v1/webhooks');
    expect(listed.json.data).toEqual([
      expect.objectContaining({ id: endpointId, types: ['launch', 'trade'] }),
    ]);
    expect(listed.body).not.toContain(secret.slice(6));
    const other = await createKeyWithCli(env, 'developer');
    expectProblem(await api(b, `/v1/webhooks/${endpointId}`, { k: other }), 404, 'not_found');

    const creator = chain.account(1);
    const launch = await api(a, '/v1/launches/prepare', {
      method: 'POST',
      body: {
        chain_id: 8453,
        creator,
        market: 'standard',
        quote_address: zeroAddress,
        token: { name: 'Hooked', symbol: 'HOOK', image_base64: PNG, image_type: 'image/png' },
      },
    });
    expect(launch.status, launch.body).toBe(200);
    for (const s of launch.json.data.steps)
      await chain.send(creator, s.transaction.to, s.transaction.data, BigInt(s.transaction.value));
    token = launch.json.data.predicted_token_address;
    await chain.advance(30);
    const trader = chain.account(2);
    const quote = await api(a, '/v1/swaps/quote', {
      method: 'POST',
      body: {
        chain_id: 8453,
        wallet: trader,
        token_address: token,
        side: 'buy',
        amount_in_raw: '10000000000000000',
        slippage_bps: 100,
      },
    });
    expect(quote.status, quote.body).toBe(200);
    const buy = await api(b, '/v1/swaps/prepare', {
      method: 'POST',
      body: { quote_id: quote.json.data.quote_id, wallet: trader },
    });
    expect(buy.status, buy.body).toBe(200);
    let buyTx: Hex = '0x';
    for (const s of buy.json.data.steps)
      buyTx = (await chain.send(trader, s.transaction.to, s.transaction.data, BigInt(s.transaction.value)))
        .transactionHash;
    const launched = await waitFor('the launch delivery', () =>
      delivered((d) => d.type === 'launch' && d.token_address === token),
    );
    const traded = await waitFor('the trade delivery', () =>
      delivered((d) => d.type === 'trade' && d.transaction_hash === buyTx),
    );
    const hook = new Webhook(secret);
    for (const r of [launched, traded]) {
      expect(hook.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      expect(r.headers['webhook-id']).toMatch(/^evt_8453_\d+$/);
    }
    // The body is the stream's event data: the trade as the trades route gives it.
    const trades = await api(a, `/v1/tokens/8453/${token}/trades`);
    expect(JSON.parse(traded.body).record).toEqual(trades.json.data[0]);
  }, 120_000);

  it('retries a receiver answering 500, then delivers once per webhook-id', async () => {
    answer = 500;
    const tx = (
      await chain.swap(
        chain.account(2),
        launchPoolKey(token, zeroAddress, 200, chain.current.hook),
        zeroAddress,
        10n ** 15n,
      )
    ).transactionHash;
    const isIt = (r: Received) =>
      (JSON.parse(r.body) as { transaction_hash?: string }).transaction_hash === tx;
    await waitFor('two failed attempts', () =>
      received.filter((r) => isIt(r)).length >= 2 ? true : undefined,
    );
    answer = 200;
    const ok = await waitFor('the success', () => received.find((r) => isIt(r) && r.status === 200));
    const id = ok.headers['webhook-id'];
    expect(new Set(received.filter(isIt).map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => isIt(r) && r.status === 200)).toHaveLength(1);
    const log = await api(b, `/v1/webhooks/${endpointId}/deliveries?limit=5`);
    const entry = log.json.data.find((d: { event_id: string }) => d.event_id === id);
    expect(entry).toMatchObject({ state: 'delivered', last_status: 200 });
    expect(entry.attempts).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('loses nothing when both gateways are killed with SIGKILL mid-backlog', async () => {
    answer = 503;
    const txs: Hex[] = [];
    for (let i = 0; i < 4; i++)
      txs.push(
        (
          await chain.swap(
            chain.account(2),
            launchPoolKey(token, zeroAddress, 200, chain.current.hook),
            zeroAddress,
            10n ** 15n,
          )
        ).transactionHash,
      );
    // Some attempts failed: the backlog is in the outbox.
    await waitFor('failed attempts', () => (received.some((r) => r.status === 503) ? true : undefined));
    for (const r of [a, b]) r.child.kill('SIGKILL');
    await Promise.all([a, b].map((r) => (r.child.exitCode === null ? once(r.child, 'exit') : undefined)));
    answer = 200;
    a = await replica();
    b = await replica({ INDEXER: 'off' });
    for (const tx of txs)
      await waitFor(`the delivery of ${tx}`, () => delivered((d) => d.transaction_hash === tx));
    // In order: each trade's first acknowledged delivery came after the one before it.
    const firstOk = txs.map((tx) =>
      received.indexOf(delivered((d) => d.transaction_hash === tx) as Received),
    );
    expect(firstOk).toEqual([...firstOk].sort((x, y) => x - y));
  }, 90_000);

  it('delivers removed when a reorg undoes a delivered trade', async () => {
    answer = 200;
    const snapshot = (await chain.client.request({ method: 'evm_snapshot', params: [] } as never)) as string;
    const orphan = (
      await chain.swap(
        chain.account(4),
        launchPoolKey(token, zeroAddress, 200, chain.current.hook),
        zeroAddress,
        3n * 10n ** 16n,
      )
    ).transactionHash;
    const first = await waitFor('the orphan trade', () =>
      delivered((d) => d.type === 'trade' && d.transaction_hash === orphan),
    );
    await chain.client.request({ method: 'evm_revert', params: [snapshot] } as never);
    await chain.swap(
      chain.account(4),
      launchPoolKey(token, zeroAddress, 200, chain.current.hook),
      zeroAddress,
      10n ** 16n,
    );
    await chain.client.request({ method: 'anvil_mine', params: ['0x4'] } as never);
    const removed = await waitFor('the removal', () =>
      delivered((d) => d.removed === true && d.transaction_hash === orphan),
    );
    expect(JSON.parse(removed.body)).toEqual({ ...JSON.parse(first.body), removed: true });
    expect(new Webhook(secret).verify(removed.body, removed.headers as Record<string, string>)).toBeTruthy();
  }, 60_000);

  it('signs with both secrets while a rotation overlaps; a ping on demand', async () => {
    const rotated = await api(a, `/v1/webhooks/${endpointId}/rotate-secret`, { method: 'POST' });
    expect(rotated.status, rotated.body).toBe(200);
    const fresh = rotated.json.data.secret as string;
    expect(fresh).not.toBe(secret);
    const ping = await api(b, `/v1/webhooks/${endpointId}/test`, { method: 'POST' });
    const pinged = await waitFor('the ping', () =>
      received.find((r) => r.headers['webhook-id'] === ping.json.data.event_id),
    );
    for (const s of [secret, fresh])
      expect(new Webhook(s).verify(pinged.body, pinged.headers as Record<string, string>)).toMatchObject({
        type: 'ping',
      });
    expect(String(pinged.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // Deleted: gone for good.
    expect((await api(a, `/v1/webhooks/${endpointId}`, { method: 'DELETE' })).json.data).toEqual({
      id: endpointId,
      deleted: true,
    });
    expectProblem(await api(b, `/v1/webhooks/${endpointId}`), 404, 'not_found');
  }, 60_000);
});

describe('webhook targets in production mode', () => {
  it('refuses http, loopback names and addresses, and the metadata service', async () => {
    // Production mode: local targets not allowed (the devnet's default allows them). No dispatcher: the
    // public address registered below must never be sent anything from this machine.
    const gw = await startGateway({ WEBHOOKS_ALLOW_LOCAL: 'off', WEBHOOKS: 'off' });
    try {
      const k = await gw.createKey();
      const refused = async (url: string) => {
        const r = await call(gw, '/v1/webhooks', { key: k, method: 'POST', body: { url } });
        const p = expectProblem(r, 400, 'invalid_parameter');
        expect(p.invalid_parameters[0].name).toBe('url');
      };
      await refused('http://hooks.example.com/in');
      await refused('https://localhost/in'); // a host name that resolves to 127.0.0.1
      await refused('https://127.0.0.1/in');
      await refused('https://169.254.169.254/latest/meta-data');
      await refused('https://[::1]/in');
      // Over the plan's endpoint count: quota_exceeded (a key with 1 allowed).
      const one = await gw.createKey({ overrides: { webhooks: 1 } });
      const first = await call(gw, '/v1/webhooks', {
        key: one,
        method: 'POST',
        body: { url: 'https://93.184.216.34/in' },
      });
      expect(first.status, first.body).toBe(200);
      const second = await call(gw, '/v1/webhooks', {
        key: one,
        method: 'POST',
        body: { url: 'https://93.184.216.34/in' },
      });
      expectProblem(second, 429, 'quota_exceeded');
    } finally {
      await gw.close();
    }
  });
});
