// Limits over real HTTP with a manual clock (never sleeps): units, plan windows, ceilings, metering rules,
// headers, atomic all-or-nothing charging, trusted proxies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteConfig } from '../src/http/catalog.ts';
import { type Reply, call, expectProblem, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ TRUSTED_PROXIES: '127.0.0.1' });
  // Start at the beginning of a UTC minute so window arithmetic in the tests is exact.
  gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
});
afterAll(() => gw.close());

const chains = '/v1/config?chain_id=8453&include=chains';
const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Parses `"name";r=…;t=…` members of the RateLimit header. */
function rateLimit(r: Reply): Record<string, { r: number; t: number }> {
  const out: Record<string, { r: number; t: number }> = {};
  for (const m of (r.headers.get('ratelimit') ?? '').matchAll(/"([^"]+)";r=(\d+);t=(\d+)/g)) {
    out[m[1] as string] = { r: Number(m[2]), t: Number(m[3]) };
  }
  return out;
}

/** Minute units left on the key, read from X-RateLimit-* of a 1-unit request when minute is tightest. */
async function spentOn(key: string, act: () => Promise<unknown>): Promise<number> {
  const before = Number((await call(gw, chains, { key })).headers.get('x-ratelimit-remaining'));
  await act();
  const after = Number((await call(gw, chains, { key })).headers.get('x-ratelimit-remaining'));
  return before - after - 1;
}

/** A key whose minute window is the tightest, so X-RateLimit-Remaining counts minute units. */
const meteredKey = (scopes = ['*']) =>
  gw.createKey({
    overrides: { burstPerSecond: 1e6, unitsPerMinute: 10_000, daily: 1e8, monthly: 1e9 },
    scopes,
  });

describe('headers', () => {
  it('sends RateLimit-Policy, RateLimit and X-RateLimit-* on keyed responses', async () => {
    const key = await gw.createKey({ plan: 'developer', overrides: {} });
    const r = await call(gw, chains, { key });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toBe(
      '"burst";q=20;w=1;lp-unit="units", "minute";q=300;w=60;lp-unit="units", "day";q=25000;w=86400;lp-unit="units", "month";q=500000;lp-unit="units"',
    );
    // burst has 19 of 20 left: the most constraining policy.
    expect(rateLimit(r)).toEqual({ burst: { r: 19, t: 1 } });
    // X-RateLimit-* describe the minute window, the one clients budget by.
    expect(r.headers.get('x-ratelimit-limit')).toBe('300');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('299');
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
  });

  it('sends no rate headers and charges nothing for health, preflight and failed authentication', async () => {
    const key = await meteredKey();
    const spent = await spentOn(key, async () => {
      for (const r of [
        await call(gw, '/v1/health'),
        await call(gw, chains, {
          method: 'OPTIONS',
          headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' },
        }),
        await call(gw, chains),
        await call(gw, chains, { key: `${key.slice(0, -3)}xyz` }),
        await call(gw, chains, { key, headers: { origin: 'https://not-listed.example' } }),
      ]) {
        expect(r.headers.get('ratelimit')).toBeNull();
      }
    });
    expect(spent).toBe(0);
  });
});

describe('units', () => {
  it('weighs configuration by include and market', async () => {
    const key = await meteredKey();
    expect(await spentOn(key, () => call(gw, chains, { key }))).toBe(1);
    // Live sections cost their weight even though this gateway answers 503 without an RPC (rule 5).
    expect(
      await spentOn(key, () => call(gw, '/v1/config?chain_id=8453&include=suites&market=standard', { key })),
    ).toBe(5);
    expect(
      await spentOn(key, () => call(gw, '/v1/config?chain_id=8453&include=quotes&market=rwa', { key })),
    ).toBe(20);
    expect(await spentOn(key, () => call(gw, '/v1/config?chain_id=8453', { key }))).toBe(20);
  });

  it('scales paged reads with the page size and charges oversized pages the base weight', async () => {
    const key = await meteredKey();
    expect(await spentOn(key, () => call(gw, '/v1/tokens?limit=100', { key }))).toBe(8);
    expect(await spentOn(key, () => call(gw, '/v1/tokens', { key }))).toBe(2);
    expect(
      await spentOn(key, () =>
        call(gw, '/v1/tokens/8453/0x1111111111111111111111111111111111111111/trades?limit=50', { key }),
      ),
    ).toBe(6);
    expect(
      await spentOn(key, () =>
        call(gw, '/v1/tokens/8453/0x1111111111111111111111111111111111111111/holders?limit=200', { key }),
      ),
    ).toBe(10);
    const dev = await gw.createKey({
      plan: 'developer',
      overrides: { burstPerSecond: 1e6, unitsPerMinute: 10_000, daily: 1e8, monthly: 1e9 },
    });
    let problem: Record<string, unknown> = {};
    const spent = await spentOn(dev, async () => {
      problem = expectProblem(await call(gw, '/v1/tokens?limit=101', { key: dev }), 400, 'invalid_parameter');
    });
    expect(spent).toBe(2);
    expect(problem.invalid_parameters).toEqual([
      { name: 'limit', reason: 'range', detail: 'limit must be 1 to 100' },
    ]);
  });

  it('charges claim batches per position', async () => {
    const key = await meteredKey();
    const claim = { recipient: wallet(1), fee_escrow: wallet(2), currency: wallet(0), mode: 'to_recipient' };
    const body = { chain_id: 8453, caller: wallet(9), claims: Array.from({ length: 10 }, () => claim) };
    expect(await spentOn(key, () => call(gw, '/v1/claims/fees/prepare', { key, method: 'POST', body }))).toBe(
      30,
    );
  });

  it('charges insufficient scope the base weight, before answering 403', async () => {
    const key = await meteredKey(['config:read']);
    let r: Reply | undefined;
    const spent = await spentOn(key, async () => {
      r = await call(gw, '/v1/launches/prepare', { key, method: 'POST', body: {} });
    });
    expectProblem(r as Reply, 403, 'insufficient_scope');
    expect((r as Reply).headers.get('ratelimit-policy')).toContain('"minute"');
    expect(spent).toBe(20);
  });
});

describe('plan windows', () => {
  it('refuses the 21st request in one second with rate_limit_exceeded and Retry-After', async () => {
    const key = await gw.createKey({ plan: 'playground', overrides: {} });
    for (let i = 0; i < 20; i++) expect((await call(gw, chains, { key })).status).toBe(200);
    const r = await call(gw, chains, { key });
    const p = expectProblem(r, 429, 'rate_limit_exceeded');
    expect(p.violated_policies).toEqual(['burst']);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(rateLimit(r).burst).toEqual({ r: 0, t: 1 });
    gw.clock.advance(1000);
    expect((await call(gw, chains, { key })).status).toBe(200);
  });

  it('counts the minute in units and tells how long until it resets', async () => {
    const key = await gw.createKey({ plan: 'playground', overrides: {} }); // 60 units a minute
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000)); // start of a minute
    for (let i = 0; i < 3; i++) {
      expect((await call(gw, '/v1/config?chain_id=8453', { key })).status).toBe(503); // 20 units each
      gw.clock.advance(1000);
    }
    gw.clock.advance(10_000); // 13 s into the minute
    const r = await call(gw, chains, { key });
    const p = expectProblem(r, 429, 'rate_limit_exceeded');
    expect(p.violated_policies).toEqual(['minute']);
    expect(r.headers.get('retry-after')).toBe('47');
    gw.clock.advance(47_000);
    expect((await call(gw, chains, { key })).status).toBe(200);
  });

  it('honours per-key overrides for day and month', async () => {
    const key = await gw.createKey({ plan: 'partner', overrides: { daily: 3, monthly: 1e6 } });
    for (let i = 0; i < 3; i++) expect((await call(gw, chains, { key })).status).toBe(200);
    const r = await call(gw, chains, { key });
    expect(expectProblem(r, 429, 'rate_limit_exceeded').violated_policies).toEqual(['day']);
    const toMidnight = 86_400_000 - (gw.clock.now() % 86_400_000);
    expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil(toMidnight / 1000));
    const monthly = await gw.createKey({ plan: 'partner', overrides: { monthly: 1 } });
    expect((await call(gw, chains, { key: monthly })).status).toBe(200);
    expect(
      expectProblem(await call(gw, chains, { key: monthly }), 429, 'rate_limit_exceeded').violated_policies,
    ).toEqual(['month']);
  });
});

/** A gateway with a holder-snapshot route whose answers wait until the test releases them. */
async function holdingGateway() {
  const held: (() => void)[] = [];
  const config: RouteConfig = { operation: 'holder_snapshot', scope: 'tokens:read' };
  const slow = await startGateway({}, (app) =>
    app.get('/v1/test/holders', { config }, async () => {
      await new Promise<void>((r) => held.push(r));
      return { data: [], meta: {} };
    }),
  );
  return { slow, held };
}

describe('concurrency caps', () => {
  it('holds at most 2 holder snapshots in flight per key, and frees a slot when one finishes', async () => {
    const { slow, held } = await holdingGateway();
    try {
      const [a, b] = [await slow.createKey(), await slow.createKey()];
      const first = call(slow, '/v1/test/holders', { key: a });
      const second = call(slow, '/v1/test/holders', { key: a });
      await expect.poll(() => held.length).toBe(2);
      const third = await call(slow, '/v1/test/holders', { key: a });
      expect(expectProblem(third, 429, 'quota_exceeded').violated_policies).toEqual(['holders-key-inflight']);
      // Another key has its own slots.
      const other = call(slow, '/v1/test/holders', { key: b });
      await expect.poll(() => held.length).toBe(3);
      held.shift()?.();
      expect((await first).status).toBe(200);
      const fourth = call(slow, '/v1/test/holders', { key: a });
      await expect.poll(() => held.length).toBe(3);
      for (const release of held.splice(0)) release();
      expect((await second).status).toBe(200);
      expect((await fourth).status).toBe(200);
      expect((await other).status).toBe(200);
    } finally {
      for (const release of held.splice(0)) release();
      await slow.close();
    }
  });
  it('frees a slot when the client goes away before the answer', async () => {
    const { slow, held } = await holdingGateway();
    try {
      const key = await slow.createKey();
      const gone = new AbortController();
      const first = fetch(`${slow.origin}/v1/test/holders`, {
        headers: { 'x-api-key': key },
        signal: gone.signal,
      }).catch(() => 'aborted');
      const second = call(slow, '/v1/test/holders', { key });
      await expect.poll(() => held.length).toBe(2);
      expectProblem(await call(slow, '/v1/test/holders', { key }), 429, 'quota_exceeded');
      // The first client leaves while its handler is still running: its slot is free at once.
      gone.abort();
      expect(await first).toBe('aborted');
      const third = call(slow, '/v1/test/holders', { key });
      await expect.poll(() => held.length).toBe(3);
      for (const release of held.splice(0)) release();
      expect((await second).status).toBe(200);
      expect((await third).status).toBe(200);
    } finally {
      for (const release of held.splice(0)) release();
      await slow.close();
    }
  });
});

describe('ceilings', () => {
  it('limits launch preparation per key and per creator, and charges nothing when refused', async () => {
    const key = await meteredKey();
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const launch = (creator: string) =>
      call(gw, '/v1/launches/prepare', { key, method: 'POST', body: { creator }, headers: idem() });
    expect((await launch(wallet(1))).status).toBe(400);
    const sameCreator = await launch(wallet(1));
    expect(expectProblem(sameCreator, 429, 'quota_exceeded').violated_policies).toEqual([
      'launch-creator-minute',
    ]);
    expect(sameCreator.headers.get('retry-after')).toBe('60');
    expect((await launch(wallet(2))).status).toBe(400);
    expect((await launch(wallet(3))).status).toBe(400);
    // Refused requests cost nothing (rule 4): the key windows are charged all-or-nothing.
    const spent = await spentOn(key, async () => {
      const fourth = await launch(wallet(4));
      expect(expectProblem(fourth, 429, 'quota_exceeded').violated_policies).toEqual(['launch-key-minute']);
    });
    expect(spent).toBe(0);
    gw.clock.advance(60_000);
    expect((await launch(wallet(4))).status).toBe(400);
  });

  it('limits swap quotes per wallet across every key', async () => {
    const keys = [await meteredKey(), await meteredKey()];
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const quote = (key: string, w: string) =>
      call(gw, '/v1/swaps/quote', { key, method: 'POST', body: { wallet: w } });
    for (let i = 0; i < 60; i++) expect((await quote(keys[i % 2] as string, wallet(77))).status).toBe(400);
    expect(
      expectProblem(await quote(keys[0] as string, wallet(77)), 429, 'quota_exceeded').violated_policies,
    ).toEqual(['swap-quote-wallet-minute']);
    // The same wallet in another case is the same wallet.
    expectProblem(
      await quote(keys[1] as string, wallet(77).toUpperCase().replace('0X', '0x')),
      429,
      'quota_exceeded',
    );
    expect((await quote(keys[1] as string, wallet(78))).status).toBe(400);
  });

  it('counts per source behind a trusted proxy, and ignores X-Forwarded-For otherwise', async () => {
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const from = (ip: string) => ({ 'x-forwarded-for': ip, ...idem() });
    let n = 100;
    const launch = async (ip: string) =>
      call(gw, '/v1/launches/prepare', {
        key: await meteredKey(),
        method: 'POST',
        body: { creator: wallet(n++) },
        headers: from(ip),
      });
    for (let i = 0; i < 6; i++) expect((await launch('203.0.113.7')).status).toBe(400);
    expect(expectProblem(await launch('203.0.113.7'), 429, 'quota_exceeded').violated_policies).toEqual([
      'launch-source-minute',
    ]);
    expect((await launch('198.51.100.1')).status).toBe(400);

    const direct = await startGateway();
    try {
      const key = await direct.createKey();
      for (let i = 0; i < 6; i++) {
        const r = await call(direct, '/v1/launches/prepare', {
          key: await direct.createKey(),
          method: 'POST',
          body: { creator: wallet(i) },
          headers: from(`10.0.0.${i}`),
        });
        expect(r.status).toBe(400);
      }
      const r = await call(direct, '/v1/launches/prepare', {
        key,
        method: 'POST',
        body: { creator: wallet(9) },
        headers: from('10.9.9.9'),
      });
      expect(expectProblem(r, 429, 'quota_exceeded').violated_policies).toEqual(['launch-source-minute']);
    } finally {
      await direct.close();
    }
  });

  it('counts a token within a key, an actor within a key, and a chain+caller across keys', async () => {
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const key = await meteredKey();
    const token = (t: number) => `/v1/tokens/8453/${wallet(t)}/metadata/document/prepare`;
    const doc = (t: number, actor: number) =>
      call(gw, token(t), { key, method: 'POST', body: { actor: wallet(actor) }, headers: idem() });
    expect((await doc(1, 1)).status).toBe(400);
    expect((await doc(1, 2)).status).toBe(400);
    expect(expectProblem(await doc(1, 3), 429, 'quota_exceeded').violated_policies).toEqual([
      'document-token-minute',
    ]);
    expect((await doc(2, 4)).status).toBe(400); // another token

    const announce = (actor: number) =>
      call(gw, `/v1/tokens/8453/${wallet(5)}/announcements/prepare`, {
        key,
        method: 'POST',
        body: { actor: wallet(actor) },
      });
    for (let i = 0; i < 20; i++) expect((await announce(50)).status).toBe(400);
    expect(expectProblem(await announce(50), 429, 'quota_exceeded').violated_policies).toEqual([
      'actor-minute',
    ]);
    expect((await announce(51)).status).toBe(400);

    const keys = [await meteredKey(), await meteredKey()];
    const claim = { recipient: wallet(1), fee_escrow: wallet(2), currency: wallet(0), mode: 'to_recipient' };
    const batch = (k: string, chain: number, caller: number) =>
      call(gw, '/v1/claims/fees/prepare', {
        key: k,
        method: 'POST',
        body: { chain_id: chain, caller: wallet(caller), claims: [claim] },
      });
    // Admitted, then refused: the escrow is not a suite's.
    for (let i = 0; i < 10; i++) expect((await batch(keys[i % 2] as string, 8453, 60)).status).toBe(422);
    expect(
      expectProblem(await batch(keys[0] as string, 8453, 60), 429, 'quota_exceeded').violated_policies,
    ).toEqual(['fee-claim-caller-minute']);
    expect((await batch(keys[0] as string, 4663, 60)).status).toBe(422); // another chain
  });

  it('answers an idempotent replay from its record even when the ceiling would refuse a new request', async () => {
    gw.clock.advance(60_000 - (gw.clock.now() % 60_000));
    const key = await meteredKey();
    const claim = { recipient: wallet(1), fee_escrow: wallet(2), currency: wallet(0), mode: 'to_recipient' };
    const body = { chain_id: 8453, caller: wallet(70), claims: [claim] };
    const first = { 'idempotency-key': crypto.randomUUID() };
    const send = (headers: Record<string, string>) =>
      call(gw, '/v1/claims/fees/prepare', { key, method: 'POST', body, headers });
    const original = await send(first);
    expect(original.status).toBe(422);
    for (let i = 0; i < 9; i++) expect((await send(idem())).status).toBe(422);
    // The caller's ceiling is spent: a new request is refused, the replay is answered (and charged).
    expect(expectProblem(await send(idem()), 429, 'quota_exceeded').violated_policies).toEqual([
      'fee-claim-caller-minute',
    ]);
    let replay: Reply | undefined;
    const spent = await spentOn(key, async () => {
      replay = await send(first);
    });
    expect(replay?.status).toBe(422);
    expect(replay?.headers.get('idempotent-replayed')).toBe('true');
    expect(replay?.body).toBe(original.body);
    expect(spent).toBe(3); // its units, as a new request would pay
  });

  it('admits a request heavier than a whole window when that window is otherwise empty', async () => {
    // A Developer key: burst 20 units a second; a batch of 10 fee positions weighs 30.
    const key = await gw.createKey({ plan: 'developer', overrides: {} });
    gw.clock.advance(1_000 - (gw.clock.now() % 1_000));
    const claims = Array.from({ length: 10 }, (_, i) => ({
      recipient: wallet(100 + i),
      fee_escrow: wallet(2),
      currency: wallet(0),
      mode: 'to_recipient',
    }));
    const batch = () =>
      call(gw, '/v1/claims/fees/prepare', {
        key,
        method: 'POST',
        body: { chain_id: 8453, caller: wallet(99), claims },
      });
    expect((await batch()).status).toBe(422); // admitted (then refused: the escrow is not a suite's)
    expect(expectProblem(await batch(), 429, 'rate_limit_exceeded').violated_policies).toEqual(['burst']);
    gw.clock.advance(1_000);
    expect((await batch()).status).toBe(422);
  });

  it('applies service-wide ceilings across keys and sources, and live-config ceilings only to live reads', async () => {
    const fresh = await startGateway({ TRUSTED_PROXIES: '127.0.0.1' });
    try {
      fresh.clock.advance(60_000 - (fresh.clock.now() % 60_000));
      const keys = await Promise.all(Array.from({ length: 30 }, () => fresh.createKey()));
      const launch = (i: number) =>
        call(fresh, '/v1/launches/prepare', {
          key: keys[i % 30] as string,
          method: 'POST',
          body: { creator: wallet(1000 + i) },
          headers: { ...idem(), 'x-forwarded-for': `203.0.113.${i % 250}` },
        });
      for (let i = 0; i < 60; i++) expect((await launch(i)).status).toBe(400);
      expect(expectProblem(await launch(60), 429, 'quota_exceeded').violated_policies).toEqual([
        'launch-service-minute',
      ]);

      // 15 live configuration reads per source a minute; static chain reads do not count.
      const live = (ip: string) =>
        call(fresh, '/v1/config?chain_id=8453&include=suites&market=standard', {
          key: keys[0] as string,
          headers: { 'x-forwarded-for': ip },
        });
      for (let i = 0; i < 20; i++) {
        expect(
          (
            await call(fresh, chains, {
              key: keys[0] as string,
              headers: { 'x-forwarded-for': '198.51.100.9' },
            })
          ).status,
        ).toBe(200);
      }
      for (let i = 0; i < 15; i++) expect((await live('198.51.100.9')).status).toBe(503);
      expect(expectProblem(await live('198.51.100.9'), 429, 'quota_exceeded').violated_policies).toEqual([
        'live-config-source-minute',
      ]);
      expect((await live('198.51.100.10')).status).toBe(503);
    } finally {
      await fresh.close();
    }
  });

  it('limits uncached key lookups per source', async () => {
    const fresh = await startGateway();
    try {
      for (let i = 0; i < 60; i++) {
        const bogus = `lp_launch_${i.toString(16).padStart(8, '0')}_not-a-real-secret-value`;
        expectProblem(await call(fresh, chains, { key: bogus }), 401, 'invalid_api_key');
      }
      const r = await call(fresh, chains, { key: 'lp_launch_ffffffff_not-a-real-secret-value' });
      expect(expectProblem(r, 429, 'quota_exceeded').violated_policies).toEqual(['key-lookup-source-minute']);
      // Cached ids are not lookups.
      expectProblem(
        await call(fresh, chains, { key: 'lp_launch_00000001_not-a-real-secret-value' }),
        401,
        'invalid_api_key',
      );
    } finally {
      await fresh.close();
    }
  });
});
