// GET /v1/events on the devnet (SQLite, the indexer in process): a launch and a buy made through the
// API and sent arrive as events whose records are the read routes' items; a reorg made on anvil sends
// `removed` before the replacement, and a stream with confirmations never sees the orphan; Last-Event-ID
// resumes with no gap and no duplicate; refusals are problems before the stream starts; limits hold.
import { type Address, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../src/devnet/devnet.ts';
import { launchPoolKey } from '../src/launchpad/pool.ts';
import { streamEvents } from '../src/client/index.ts';
import { pruneEvents } from '../src/indexer/journal.ts';
import { TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  postFresh,
  startDevnetGateway,
  startTestIndexer,
} from './support/devnetGateway.ts';
import { expectDocumented } from './support/documented.ts';
import { call, expectProblem, startGateway, UNLIMITED } from './support/gateway.ts';
import { openStream, type StreamEvent, type TestStream } from './support/sse.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
let env: DevnetGateway;
let base: TestChain;
let indexer: ReturnType<typeof startTestIndexer>;
const streams: TestStream[] = [];

beforeAll(async () => {
  env = await startDevnetGateway({ EVENTS_HEARTBEAT_MS: '300', EVENTS_POLL_MS: '200' });
  base = new TestChain(env.devnet.chains[0] as Devnet['chains'][number]);
  indexer = startTestIndexer(env.gw, env.devnet, [8453]);
  // The suite keeps many streams open at once.
  env.key = await env.gw.createKey({ plan: 'builder', overrides: { ...UNLIMITED, streams: 100 } });
}, 60_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await indexer?.stop();
  await env?.close();
}, 60_000);

/** Opens a stream that the suite closes at the end. */
async function open(query = 'chain_id=8453', headers: Record<string, string> = {}, key = env.key) {
  const s = await openStream(env.gw.origin, key, query, headers);
  streams.push(s);
  return s;
}

async function sendAll(from: Address, steps: { transaction: { to: Address; data: Hex; value: string } }[]) {
  for (const s of steps)
    await base.send(from, s.transaction.to, s.transaction.data, BigInt(s.transaction.value));
}

const get = async (path: string) => {
  const r = await call(env.gw, path, { key: env.key });
  expect(r.status, r.body).toBe(200);
  return r.json;
};

const of = (events: StreamEvent[], event: string, pred: (e: StreamEvent) => boolean = () => true) =>
  events.find((e) => e.event === event && pred(e));

/** A launch and a buy of it, both prepared by the gateway and sent as a wallet would. */
async function launchAndBuy(name: string) {
  const creator = base.account(1);
  const launch = await postFresh(env, '/v1/launches/prepare', {
    chain_id: 8453,
    creator,
    market: 'standard',
    quote_address: zeroAddress,
    token: {
      name,
      symbol: name.slice(0, 4).toUpperCase(),
      image_base64: PNG,
      image_type: 'image/png',
      description: 'on the stream',
      editable_metadata: true,
    },
  });
  expect(launch.status, launch.body).toBe(200);
  await sendAll(creator, launch.json.data.steps);
  const token = launch.json.data.predicted_token_address as Address;
  await base.advance(30);
  const trader = base.account(2);
  const quote = await postFresh(env, '/v1/swaps/quote', {
    chain_id: 8453,
    wallet: trader,
    token_address: token,
    side: 'buy',
    amount_in_raw: (10n ** 16n).toString(),
    slippage_bps: 100,
  });
  expect(quote.status, quote.body).toBe(200);
  const buy = await postFresh(env, '/v1/swaps/prepare', {
    quote_id: quote.json.data.quote_id,
    wallet: trader,
  });
  expect(buy.status, buy.body).toBe(200);
  const receipts = [];
  for (const s of buy.json.data.steps)
    receipts.push(await base.send(trader, s.transaction.to, s.transaction.data, BigInt(s.transaction.value)));
  return { token, buyTx: (receipts.at(-1) as { transactionHash: Hex }).transactionHash };
}

describe('the event stream', () => {
  let token: Address;

  it('sends the launch and the trade made through the API, each record as the read routes give it', async () => {
    const all = await open('chain_id=8453');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(all.headers.get('x-accel-buffering')).toBe('no');
    expect(all.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(all.headers.get('content-encoding')).toBeNull();
    expect(all.headers.get('x-ratelimit-remaining')).not.toBeNull();
    const trades = await open('chain_id=8453&types=trade');
    const launched = await launchAndBuy('Stream Dog');
    token = launched.token;
    const launch = await all.waitFor((e) => of(e, 'launch', (x) => x.data.token_address === token));
    const trade = await all.waitFor((e) =>
      of(e, 'trade', (x) => x.data.record.transaction_hash === launched.buyTx),
    );
    expect(all.retry).toBe(2000);
    // The envelope: where it happened.
    expect(launch.data).toMatchObject({ type: 'launch', chain_id: 8453, token_address: token });
    expect(trade.data).toMatchObject({
      type: 'trade',
      chain_id: 8453,
      token_address: token,
      transaction_hash: launched.buyTx,
      block_number: trade.data.record.block_number,
      block_hash: trade.data.record.block_hash,
      log_index: trade.data.record.log_index,
    });
    // The records: exactly the read routes' items (market data moves with every refresh: its shape only).
    const listed = (await get('/v1/tokens?chain_id=8453')).data.find(
      (t: { token: { address: string } }) => t.token.address === token,
    );
    const { market_data: eventMarket, ...launchRecord } = launch.data.record;
    const { market_data: listedMarket, ...listedRecord } = listed;
    expect(launchRecord).toEqual(listedRecord);
    expect(Object.keys(eventMarket).sort()).toEqual(Object.keys(listedMarket).sort());
    expect(launchRecord.token.description).toBe('on the stream'); // the pinned document was read
    const traded = (await get(`/v1/tokens/8453/${token}/trades`)).data;
    expect(trade.data.record).toEqual(
      traded.find((t: { transaction_hash: string }) => t.transaction_hash === launched.buyTx),
    );
    // Fee credits of the trade: each a fee_components item of it.
    const credits = all.events.filter(
      (e) => e.event === 'fee_credit' && e.data.transaction_hash === launched.buyTx,
    );
    expect(credits.map((c) => c.data.record)).toEqual(trade.data.record.fee_components);
    // Every data line is the published EventData; ids are opaque and distinct; the filter holds.
    for (const e of all.events) expectDocumented('/v1/events', e.data);
    expect(new Set(all.events.map((e) => e.id)).size).toBe(all.events.length);
    await trades.waitFor((e) => of(e, 'trade', (x) => x.data.transaction_hash === launched.buyTx));
    expect(trades.events.every((e) => e.event === 'trade')).toBe(true);
    // The heartbeat (every 300 ms here).
    await all.waitFor(() => (all.comments.length > 0 ? true : undefined), 5000);
  }, 120_000);

  it('sends a metadata change and a token-filtered stream only that token', async () => {
    const mine = await open(`chain_id=8453&token_address=${token.toLowerCase()}&types=metadata,trade`);
    const other = await launchAndBuy('Other Cat');
    const rename = await postFresh(env, `/v1/tokens/8453/${token}/metadata/onchain/prepare`, {
      actor: base.account(1),
      name: 'Stream Dog Renamed',
    });
    expect(rename.status, rename.body).toBe(200);
    await sendAll(base.account(1), rename.json.data.steps);
    const change = await mine.waitFor((e) => of(e, 'metadata'));
    expect(change.data.record).toEqual((await get(`/v1/tokens/8453/${token}`)).data);
    expect(change.data.record.token.name).toBe('Stream Dog Renamed');
    await new Promise((r) => setTimeout(r, 500));
    expect(mine.events.some((e) => e.data.token_address === other.token)).toBe(false);
  }, 120_000);

  it('sends removed for events a reorg undid, before the replacement; confirmations never show the orphan', async () => {
    const zero = await open('chain_id=8453&types=trade');
    const deep = await open('chain_id=8453&types=trade&confirmations=3');
    const trader = base.account(4);
    const key = launchPoolKey(token, zeroAddress, 200, base.current.hook);
    const snapshot = (await base.client.request({ method: 'evm_snapshot', params: [] } as never)) as string;
    const orphan = await base.swap(trader, key, zeroAddress, 3n * 10n ** 16n);
    const first = await zero.waitFor((e) =>
      of(e, 'trade', (x) => x.data.transaction_hash === orphan.transactionHash),
    );
    await base.client.request({ method: 'evm_revert', params: [snapshot] } as never);
    const survivor = await base.swap(trader, key, zeroAddress, 1n * 10n ** 16n);
    await base.client.request({ method: 'anvil_mine', params: ['0x4'] } as never);
    const removed = await zero.waitFor((e) => of(e, 'removed'));
    expect(removed.data).toEqual({ ...first.data, removed: true });
    const replacement = await zero.waitFor((e) =>
      of(e, 'trade', (x) => x.data.transaction_hash === survivor.transactionHash),
    );
    expect(zero.events.indexOf(removed)).toBeLessThan(zero.events.indexOf(replacement));
    // Three blocks deep: the survivor arrives; the orphan and its removal never did.
    await deep.waitFor((e) => of(e, 'trade', (x) => x.data.transaction_hash === survivor.transactionHash));
    expect(deep.events.some((e) => e.event === 'removed')).toBe(false);
    expect(deep.events.some((e) => e.data.transaction_hash === orphan.transactionHash)).toBe(false);
  }, 120_000);

  it('resumes after Last-Event-ID with no gap and no duplicate; refuses ids of other filters and unknown ones', async () => {
    const first = await open('chain_id=8453&types=launch,trade');
    const a = await launchAndBuy('Resume One');
    await first.waitFor((e) => of(e, 'trade', (x) => x.data.token_address === a.token));
    first.close();
    const seen = first.events;
    const last = seen.at(-1) as StreamEvent;
    // While nobody listens: a launch and a trade.
    const b = await launchAndBuy('Resume Two');
    const resumed = await open('chain_id=8453&types=launch,trade', { 'last-event-id': last.id });
    await resumed.waitFor((e) => of(e, 'trade', (x) => x.data.token_address === b.token));
    expect(resumed.events[0]).toMatchObject({ event: 'launch', data: { token_address: b.token } });
    // From the first event: everything after it, once, in the order the streams above saw it.
    const full = await open('chain_id=8453&types=launch,trade', { 'last-event-id': seen[0]?.id as string });
    await full.waitFor((e) => of(e, 'trade', (x) => x.data.token_address === b.token));
    const ids = [...seen.slice(1), ...resumed.events].map((e) => e.id);
    expect(full.events.slice(0, ids.length).map((e) => e.id)).toEqual(ids);
    expect(full.events.map((e) => e.data)).toEqual([...seen.slice(1), ...resumed.events].map((e) => e.data));
    // The id a stream starts with, before any event: resuming from it loses what came meanwhile.
    const quiet = await open('chain_id=8453&types=launch');
    await quiet.waitFor(() => (quiet.ids.length > 0 ? true : undefined));
    quiet.close();
    const meanwhile = await base.launch(base.account(3), { name: 'Meanwhile', symbol: 'MEAN' });
    const back = await open('chain_id=8453&types=launch', { 'last-event-id': quiet.ids[0] as string });
    await back.waitFor((e) => of(e, 'launch', (x) => x.data.token_address === meanwhile.token));
    // Another filter's id, and an id that is no id.
    const other = await open('chain_id=8453&types=trade', { 'last-event-id': last.id });
    expectProblem(
      { status: other.status, headers: other.headers, json: other.problem, body: '' },
      409,
      'cursor_filter_mismatch',
    );
    // An id the journal no longer holds (pruned to its newest event): cursor_stale, before any byte.
    await pruneEvents(env.gw.database, 8453, 1);
    const pruned = await open('chain_id=8453&types=launch,trade', { 'last-event-id': seen[0]?.id as string });
    expectProblem(
      { status: pruned.status, headers: pruned.headers, json: pruned.problem, body: '' },
      409,
      'cursor_stale',
    );
    const junk = await open('chain_id=8453', { 'last-event-id': 'nope' });
    expectProblem(
      { status: junk.status, headers: junk.headers, json: junk.problem, body: '' },
      400,
      'invalid_parameter',
    );
  }, 120_000);

  it('the typed client iterates the stream and resumes by itself', async () => {
    const stop = new AbortController();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of streamEvents({
        baseUrl: env.gw.origin,
        apiKey: env.key,
        chainId: 8453,
        types: ['launch'],
        signal: stop.signal,
      })) {
        got.push(e.data.token_address);
        if (got.length === 2) stop.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const one = await base.launch(base.account(3), { name: 'Iter One', symbol: 'ITR1' });
    const two = await base.launch(base.account(3), { name: 'Iter Two', symbol: 'ITR2' });
    await reading;
    expect(got).toEqual([one.token, two.token]);
  }, 60_000);

  it('refuses bad queries, keys and scopes before the stream starts', async () => {
    const problem = async (query: string, status: number, code: string, key: string | null = env.key) => {
      const s = await openStream(env.gw.origin, key ?? undefined, query);
      return expectProblem({ status: s.status, headers: s.headers, json: s.problem, body: '' }, status, code);
    };
    await problem('chain_id=1', 422, 'unsupported_chain');
    await problem('types=launch,swap', 400, 'invalid_parameter');
    await problem('confirmations=65', 400, 'invalid_parameter');
    await problem('token_address=0x12', 400, 'invalid_parameter');
    await problem('since=1', 400, 'unknown_parameter');
    await problem('chain_id=8453&chain_id=143', 400, 'duplicate_parameter');
    await problem('', 401, 'missing_api_key', null);
    const readOnly = await env.gw.createKey({ scopes: ['tokens:read'] });
    await problem('', 403, 'insufficient_scope', readOnly);
  });

  it('holds the service-wide stream cap (EVENTS_MAX_STREAMS)', async () => {
    const small = await startGateway({ EVENTS_MAX_STREAMS: '2', LOG_LEVEL: 'silent' });
    try {
      const [a, b, c] = await Promise.all([small.createKey(), small.createKey(), small.createKey()]);
      const held = [await openStream(small.origin, a, ''), await openStream(small.origin, b, '')];
      expect(held.map((s) => s.status)).toEqual([200, 200]);
      const third = await openStream(small.origin, c as string, '');
      const refused = expectProblem(
        { status: third.status, headers: third.headers, json: third.problem, body: '' },
        429,
        'quota_exceeded',
      );
      expect(refused.violated_policies).toEqual(['events-service-streams']);
      for (const s of held) s.close();
    } finally {
      await small.close();
    }
  });

  it('holds the per-key stream cap, and ends the streams of a revoked key within 5 s', async () => {
    const playground = await env.gw.createKey({ plan: 'playground', overrides: {} });
    const one = await open('chain_id=8453', {}, playground);
    expect(one.status).toBe(200);
    const s = await openStream(env.gw.origin, playground, 'chain_id=8453');
    const refused = expectProblem(
      { status: s.status, headers: s.headers, json: s.problem, body: '' },
      429,
      'quota_exceeded',
    );
    expect(refused.violated_policies).toEqual(['events-key-streams']);
    expect(Number(s.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The stream costs 5 units.
    expect(one.headers.get('x-ratelimit-remaining')).toBe('55');
    const keyId = /launch_([0-9a-f]{8})_/.exec(playground)?.[1] as string;
    await env.gw.keys.revoke(keyId);
    const revokedAt = Date.now();
    await one.waitFor(() => (one.ended ? true : undefined), 6000);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    expect(one.comments.at(-1)).toMatch(/no longer valid/);
  });
});
