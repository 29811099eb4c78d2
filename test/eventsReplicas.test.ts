// GET /v1/events across processes on PostgreSQL and Redis: the indexer runs in replica A, the stream is
// served by replica B (woken by NOTIFY); B killed with SIGKILL and started again resumes after the last
// event id with nothing lost or repeated; the per-key stream cap holds across replicas; SIGTERM ends a
// stream after its last whole event.
import { once } from 'node:events';
import { type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { TestChain } from './support/chain.ts';
import { call, expectProblem, freshPostgres, tempDir, UNLIMITED } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';
import { startRedis, type TestRedis } from './support/redis.ts';
import { createKeyWithCli, type Replica, replicaPool, replicaEnv } from './support/replica.ts';
import { openStream, type StreamEvent, type TestStream } from './support/sse.ts';

let redis: TestRedis;
let devnet: Devnet;
let chain: TestChain;
let env: Record<string, string>;
const replicas = replicaPool(() => env);
const streams: TestStream[] = [];

const replica = replicas.start;

const key = (plan: string, limits: object) => createKeyWithCli(env, plan, limits);

beforeAll(async () => {
  redis = await startRedis();
  const dataDir = tempDir();
  devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  chain = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
  env = replicaEnv(devnet, dataDir, await freshPostgres(inject('postgresUrl')), {
    REDIS_URL: redis.url,
    INDEXER_POLL_MS: '50',
    // Far above any wake-up: what arrives comes from NOTIFY, not from the poll.
    EVENTS_POLL_MS: '60000',
  });
}, 120_000);
afterAll(async () => {
  for (const s of streams) s.close();
  replicas.killAll();
  await devnet?.stop();
  await redis?.stop();
});

const tradesOf = (s: TestStream, tx: Hex) =>
  s.events.find((e) => e.event === 'trade' && e.data.transaction_hash === tx);

describe('the event stream across replicas on PostgreSQL', () => {
  it('serves on B what the indexer on A committed; B killed and restarted resumes with no gap or duplicate', async () => {
    const a = await replica();
    const b = await replica({ INDEXER: 'off' });
    const k = await key('builder', UNLIMITED);
    const onB = await openStream(b.origin, k, 'chain_id=8453&types=launch,trade');
    streams.push(onB);
    expect(onB.status).toBe(200);
    const trader = chain.account(2);
    const launched = await chain.launch(chain.account(1), { name: 'Across', symbol: 'ACRS' });
    await chain.advance(30);
    const first = await chain.swap(trader, launched.key, zeroAddress, 10n ** 16n);
    const got = await onB.waitFor((e) => tradesOf({ events: e } as TestStream, first.transactionHash));
    expect(onB.events[0]).toMatchObject({ event: 'launch', data: { token_address: launched.token } });
    // The record is what A's read route gives.
    const onA = await call(a, `/v1/tokens/8453/${launched.token}/trades`, { key: k });
    expect(got.data.record).toEqual(onA.json.data[0]);
    // B dies mid-stream; trades go on meanwhile.
    b.child.kill('SIGKILL');
    await once(b.child, 'exit');
    const last = onB.events.at(-1) as StreamEvent;
    const missed: Hex[] = [];
    for (let i = 0; i < 3; i++)
      missed.push((await chain.swap(trader, launched.key, zeroAddress, 10n ** 15n)).transactionHash);
    const b2 = await replica({ INDEXER: 'off' });
    const resumed = await openStream(b2.origin, k, 'chain_id=8453&types=launch,trade', {
      'last-event-id': last.id,
    });
    streams.push(resumed);
    await resumed.waitFor((e) => tradesOf({ events: e } as TestStream, missed[2] as Hex));
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.events.map((e) => e.data.transaction_hash)).toEqual(missed);
    // SIGTERM: the stream ends after whole events, with a closing comment; the process exits.
    b2.child.kill('SIGTERM');
    await resumed.waitFor(() => (resumed.ended ? true : undefined), 15_000);
    expect(resumed.comments.at(-1)).toMatch(/shutting down/);
    const [code] = await once(b2.child, 'exit');
    expect(code).toBe(0);
  }, 180_000);

  it('holds the per-key stream cap across replicas (Redis)', async () => {
    const [a, b] = replicas.all.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    const playground = await key('playground', {});
    const one = await openStream((a as Replica).origin, playground, 'chain_id=8453');
    streams.push(one);
    expect(one.status).toBe(200);
    const other = await openStream(
      (b ?? (await replica({ INDEXER: 'off' }))).origin,
      playground,
      'chain_id=8453',
    );
    expectProblem(
      { status: other.status, headers: other.headers, json: other.problem, body: '' },
      429,
      'quota_exceeded',
    );
    // Closed on A: the slot is free again on the other replica.
    one.close();
    const again = await (async () => {
      for (let i = 0; i < 50; i++) {
        const s = await openStream((a as Replica).origin, playground, 'chain_id=8453');
        if (s.status === 200) return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the slot was not freed');
    })();
    streams.push(again);
  }, 60_000);
});
