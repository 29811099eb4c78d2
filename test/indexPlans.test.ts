// The plans of the hot indexed reads on PostgreSQL, at a generated index of 100k tokens and 1M trades
// (the code path of `npm run bench -- index` at a tenth of its scale): every query each read runs
// is explained (EXPLAIN ANALYZE), as planned for its parameters and as the server keeps it once prepared
// and run again, and none may scan trades, tokens or holders whole or sort many more rows than its page. Search answers what a whole scan of the names answers, page after page.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { refreshFields } from '../src/indexer/indexer.ts';
import {
  marketCap,
  marketCapSql,
  pricePerToken,
  quoteRank,
  quoteRankSql,
  quoteUnit,
} from '../src/indexer/marketData.ts';
import type { RpcEndpoint } from '../src/chain/rpc.ts';
import { refreshMarket } from '../src/indexer/marketRefresh.ts';
import { Deployments } from '../src/launchpad/deployments.ts';
import { loadSettings } from '../src/settings.ts';
import { searchText, searchWords } from '../src/indexer/words.ts';
import { type Database, keptPrepared, openDatabase } from '../src/store/db.ts';
import { freshPostgres } from './support/gateway.ts';
import { generatedChainEndpoint, generateIndex, hotReads } from './support/generatedIndex.ts';
import {
  buffersOf,
  explain,
  explainGeneric,
  explainKept,
  explainWith,
  type PlanNode,
  planProblems,
  planText,
  runsKeptPlan,
  scansOf,
} from './support/plans.ts';
import { readServer } from './support/readServer.ts';
import { tempDir } from './support/tempDir.ts';

const SCALE = {
  tokens: 100_000,
  trades: 1_000_000,
  holders: 500_000,
  announcements: 10_000,
  feeCredits: 100_000,
};

let database: Database;
let app: Awaited<ReturnType<typeof readServer>>['app'];
let key: string;
let reads: Record<string, string>;
const captured: { text: string; parameters: readonly unknown[] }[] = [];

beforeAll(async () => {
  const settings = loadSettings({
    LAUNCHPAD_DATA_DIR: tempDir(),
    DATABASE_URL: await freshPostgres(inject('postgresUrl')),
    LIMITS: 'off',
    LOG_LEVEL: 'silent',
  });
  database = await openDatabase({
    ...settings,
    onQuery: (text, parameters) => captured.push({ text, parameters }),
  });
  const escrow = '0x00000000000000000000000000000000000000e1';
  await generateIndex(database, SCALE, { 8453: escrow, 4663: escrow, 143: escrow, 5042: escrow });
  ({ app, key } = await readServer(settings, database));
  const { rows } = await sql<{ creator: string }>`select creator from tokens where chain_id = 8453
    order by created_at desc limit 1`.execute(database.db);
  reads = hotReads(SCALE, rows[0]?.creator as string);
}, 300_000);

afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** The problems in the plans of the queries one read runs (its own reads of the index only). */
async function problemsOf(url: string): Promise<{
  status: number;
  problems: string[];
  queries: number;
  limitParameters: number;
  unnamed: string[];
}> {
  captured.length = 0;
  const r = await app.inject({ url, headers: { 'x-api-key': key } });
  const queries = captured.filter(
    (q) =>
      /^\s*(with|select)/i.test(q.text) &&
      /tokens|trades|token_holders|token_words|fee_events|fee_positions|fee_credits|announcements/.test(
        q.text,
      ),
  );
  const problems: string[] = [];
  for (const q of queries) {
    const plan = await explain(database, q.text, q.parameters);
    for (const p of planProblems(plan, 500)) problems.push(`${p}\n${q.text}\n${planText(plan)}`);
    // The plan the server keeps for it once prepared and run again (a generic one, where it costs less).
    const kept = await explainKept(database, q.text, q.parameters);
    for (const p of planProblems(kept, 500)) problems.push(`kept: ${p}\n${q.text}\n${planText(kept)}`);
    // Nor may its generic plan, which a connection keeps once runs with other parameters cost more,
    // read much more than the plan made for these: one costed for an average wallet hash-joined the
    // fee claims of a wallet credited 100k times (190 ms at 1M).
    const generic = await explainGeneric(database, q.text, q.parameters);
    if (buffersOf(generic) > 2 * buffersOf(plan) + 50)
      problems.push(
        `generic: ${buffersOf(generic)} buffers read against ${buffersOf(plan)}\n${q.text}\n${planText(generic)}`,
      );
  }
  // A LIMIT as a parameter has PostgreSQL plan the prepared read again at every run (store/db.ts:
  // literalLimit), so a page's LIMIT is a literal.
  const limitParameters = queries.filter((q) => /\b(limit|fetch first) \$\d/i.test(q.text)).length;
  // Each is kept prepared, parsed and planned once per connection (store/db.ts: keptPrepared).
  const unnamed = queries.filter((q) => !keptPrepared(q.text)).map((q) => q.text);
  return { status: r.statusCode, problems, queries: queries.length, limitParameters, unnamed };
}

describe('hot reads of a generated 100k-token, 1M-trade index', () => {
  const labels = Object.keys(hotReads(SCALE, '0x0000000000000000000000000000000000000000'));
  for (const label of labels)
    it(`${label}: no whole scan of a big table, no sort beyond its page, its LIMIT a literal, prepared`, async () => {
      const { status, problems, queries, limitParameters, unnamed } = await problemsOf(
        reads[label] as string,
      );
      // Fee claims read what is owed on chain after the index; there is no chain here (503).
      expect(label === 'wallet fee claims' ? [200, 503] : [200]).toContain(status);
      expect(queries).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      expect(limitParameters).toBe(0);
      expect(unnamed).toEqual([]);
    });
});

/** The first `n` tokens whose name or symbol has a word starting with each query word: a whole scan. */
async function scanned(q: string, sort: 'newest' | 'oldest' | 'trending', n: number): Promise<string[]> {
  const tests = searchWords(q).map((w) => sql`lower(t.name || ' ' || t.symbol) ~ ${`(^|[^a-z0-9])${w}`}`);
  const order =
    sort === 'trending'
      ? sql`m.trending_score desc, m.chain_id desc, m.address desc`
      : sql.raw(
          ['created_at', 'chain_id', 'block_number', 'log_index']
            .map((c) => `t.${c} ${sort === 'newest' ? 'desc' : 'asc'}`)
            .join(', '),
        );
  const { rows } = await sql<{ address: string }>`select t.address from tokens t
    left join token_market m on m.chain_id = t.chain_id and m.address = t.address
    where ${sql.join(tests, sql` and `)} ${sort === 'trending' ? sql`and m.trending_score is not null` : sql``}
    order by ${order} limit ${n}`.execute(database.db);
  return rows.map((r) => r.address);
}

describe('wallet fee claims', () => {
  it("read each position's claims by its own range, however few the planner expects", async () => {
    captured.length = 0;
    await app.inject({ url: reads['wallet fee claims'] as string, headers: { 'x-api-key': key } });
    const q = captured.find((c) => /from fee_positions/.test(c.text));
    expect(q).toBeDefined();
    const text = q?.text as string;
    const parameters = q?.parameters ?? [];
    // Each position's claims are a lateral read of their own range, even with no nested loop to plan
    // (as the plan kept at 1M did not, costed for an average wallet): a join read every claim of the
    // wallet (128 buffers at 100k; 1,141 at 1M).
    const joined = await explainWith(database, { enable_nestloop: 'off' }, text, parameters);
    expect(buffersOf(joined)).toBeLessThan(50);
  });
});

describe('search of a generated index', () => {
  const cases: [string, 'newest' | 'oldest' | 'trending'][] = [
    ['rocket', 'newest'],
    ['pep', 'newest'],
    ['rocket 47', 'newest'],
    ['rocket 47', 'oldest'],
    ['4711', 'newest'],
    // (A rare prefix of more than a page: its later pages read its kept count's rows in launch order.)
    ['471', 'newest'],
    ['471', 'oldest'],
    ['moon', 'trending'],
    ['gol 99', 'newest'],
    ['zzz', 'newest'],
  ];
  for (const [q, sort] of cases)
    it(`"${q}" by ${sort}: the pages a whole scan gives`, async () => {
      const found: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 3; page++) {
        const url: string = `/v1/tokens/search?q=${encodeURIComponent(q)}&sort=${sort}&limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await app.inject({ url, headers: { 'x-api-key': key } });
        expect(r.statusCode, r.body).toBe(200);
        const body = r.json() as {
          data: { token: { address: string } }[];
          pagination: { next_cursor: string | null };
        };
        found.push(...body.data.map((t) => t.token.address));
        cursor = body.pagination.next_cursor;
        if (!cursor) break;
      }
      expect(found).toEqual(await scanned(q, sort, 60));
      if (q !== 'zzz') expect(found.length).toBeGreaterThan(0);
    });
});

/** The newest token on 8453, whose row new test tokens copy. */
const newestToken = () =>
  database.db
    .selectFrom('tokens')
    .selectAll()
    .where('chain_id', '=', 8453)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();

type TokenRow = Awaited<ReturnType<typeof newestToken>>;

/** Launches `tokens` on 8453 as the indexer writes them: their rows and their search words' rows. */
async function launch(tokens: TokenRow[]) {
  await database.db.insertInto('tokens').values(tokens).execute();
  await database.db
    .insertInto('token_words')
    .values(
      tokens.flatMap((t) =>
        searchWords(t.name, t.symbol).map((word) => ({
          chain_id: 8453,
          word,
          address: t.address,
          block_number: t.block_number,
          created_at: t.created_at,
          search_words: t.search_words,
        })),
      ),
    )
    .execute();
}

/** Removes the tokens whose address starts with `prefix`, and their word rows. */
async function unlaunch(prefix: string) {
  for (const table of ['token_words', 'tokens'] as const)
    await database.db.deleteFrom(table).where('address', 'like', `${prefix}%`).execute();
}

describe('search through tokens launched at one time on one chain', () => {
  it('"rocket 47" in pages of 7: each of 25 such tokens once, in launch order', async () => {
    const base = await newestToken();
    // The newest of all, over three blocks of one timestamp: the pages' cursors fall inside the group.
    const time = Number(base.created_at) + 1000;
    const tokens = Array.from({ length: 25 }, (_, i) => {
      const name = `Tie Rocket 47${i}`;
      return {
        ...base,
        address: `0x${'ee'.repeat(18)}${i.toString(16).padStart(4, '0')}`,
        pool_id: `0x${'ee'.repeat(30)}${i.toString(16).padStart(4, '0')}`,
        name,
        symbol: 'TIE',
        search_words: searchText(name, 'TIE'),
        created_at: time,
        block_number: Number(base.block_number) + 1 + (i % 3),
        log_index: i,
      };
    });
    await launch(tokens);
    try {
      const found: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 6; page++) {
        const url: string = `/v1/tokens/search?q=rocket%2047&sort=newest&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await app.inject({ url, headers: { 'x-api-key': key } });
        expect(r.statusCode, r.body).toBe(200);
        const body = r.json() as {
          data: { token: { address: string } }[];
          pagination: { next_cursor: string };
        };
        found.push(...body.data.map((t) => t.token.address));
        cursor = body.pagination.next_cursor;
      }
      expect(found.slice(0, 25)).toEqual(
        [...tokens]
          .sort((a, b) => b.block_number - a.block_number || b.log_index - a.log_index)
          .map((t) => t.address),
      );
      expect(found).toEqual(await scanned('rocket 47', 'newest', 42));
    } finally {
      await unlaunch(`0x${'ee'.repeat(18)}`);
    }
  });
});

describe('word counts of search', () => {
  /** The statements that one search ran (a page of `limit`: not shared) reading word rows, and its page. */
  const search = async (q: string, limit: number, sort = 'newest') => {
    captured.length = 0;
    const url = `/v1/tokens/search?q=${encodeURIComponent(q)}&sort=${sort}&limit=${limit}`;
    const r = await app.inject({ url, headers: { 'x-api-key': key } });
    expect(r.statusCode, r.body).toBe(200);
    const page = (r.json() as { data: { token: { address: string } }[] }).data.map((t) => t.token.address);
    return { read: captured.filter((c) => c.text.includes('token_words')), page };
  };
  /** Whether a statement counts a word's rows (or reads them up to a count). */
  const counts = (c: { text: string }) => /from token_words where word >= /.test(c.text);

  it("keeps a common word's count", async () => {
    // "rocket 47": both common (counted up to RARE, then up to SORTED_WORD_ROWS), then kept.
    await search('rocket 47', 11);
    expect((await search('rocket 47', 12)).read.filter(counts)).toHaveLength(0);
  });

  it("reads a rare word's tokens with its count, then its rows in the page's own statement", async () => {
    // "4712" (11 tokens), searched here first: its rows are read with its count, no read between.
    const first = await search('4712', 11);
    expect(first.read).toHaveLength(1);
    expect(first.read[0]?.text).toMatch(/select address from token_words where word >= /);
    expect(first.page).toEqual(await scanned('4712', 'newest', 11));
    // Its count kept: one statement, the page's, which reads the word's rows itself.
    const again = await search('4712', 12);
    expect(again.read.filter(counts)).toHaveLength(0);
    expect(again.read).toHaveLength(1);
    expect(again.read[0]?.text).toMatch(/from token_words a\s+where a\.word >= /);
    expect(again.page).toEqual(await scanned('4712', 'newest', 12));
    // Its plan is kept, not made again at each run (1.2 ms of a 1.8 ms page at 1M tokens).
    const statement = again.read[0] as { text: string; parameters: readonly unknown[] };
    expect(await runsKeptPlan(database, statement.text, statement.parameters)).toBe(true);
    // A ranked page reads the tokens with the count, each time.
    for (const limit of [5, 6])
      expect((await search('4712', limit, 'trending')).read.filter(counts)).toHaveLength(1);
  });

  it("finds a token launched after a rare word's count was kept", async () => {
    await search('4713', 20);
    const base = await newestToken();
    const name = 'Late 4713';
    const token = {
      ...base,
      address: `0x${'ef'.repeat(20)}`,
      pool_id: `0x${'ef'.repeat(32)}`,
      name,
      symbol: 'LATE',
      search_words: searchText(name, 'LATE'),
      created_at: Number(base.created_at) + 1000,
      block_number: Number(base.block_number) + 1,
    };
    await launch([token]);
    try {
      const { read, page } = await search('4713', 21);
      expect(read.filter(counts)).toHaveLength(0);
      expect(page[0]).toBe(token.address);
      expect(page).toEqual(await scanned('4713', 'newest', 21));
    } finally {
      await unlaunch(token.address);
    }
  });
});

describe('a ranked search', () => {
  it('walks the ranked indexes alone, and reads only its page of tokens and market rows', async () => {
    captured.length = 0;
    const r = await app.inject({
      url: '/v1/tokens/search?q=moon&sort=trending&limit=25',
      headers: { 'x-api-key': key },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect((r.json() as { data: unknown[] }).data).toHaveLength(25);
    const page = captured.find((c) => /from "token_market"/.test(c.text));
    expect(page).toBeDefined();
    const plan = await explain(database, page?.text as string, page?.parameters ?? []);
    const scans = scansOf(plan);
    const rowsOf = (n: PlanNode) => (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1);
    // Each chain's range: its trending index, without a row of the table read for the words.
    const ranges = scans.filter((n) => /trending_score/.test(n['Index Name'] ?? ''));
    expect(ranges.map((n) => [n['Node Type'], n['Heap Fetches']])).toEqual(
      ranges.map(() => ['Index Only Scan', 0]),
    );
    expect(ranges.length).toBe(4);
    // The tokens and the market rows of the page only, one each.
    const rows = scans.filter((n) => !ranges.includes(n));
    for (const table of ['tokens', 'token_market'])
      expect(
        rows.filter((n) => (n['Relation Name'] ?? '').startsWith(table)).reduce((a, n) => a + rowsOf(n), 0),
        table,
      ).toBe(26);
  });
});

describe('words a prefix starts', () => {
  it('finds a token whose word the prefix did not start when its count of words was kept', async () => {
    const db = database.db;
    const search = async (limit: number) => {
      const url = `/v1/tokens/search?q=rocket&limit=${limit}`;
      const r = await app.inject({ url, headers: { 'x-api-key': key } });
      expect(r.statusCode, r.body).toBe(200);
      return (r.json() as { data: { token: { address: string; name: string } }[] }).data;
    };
    // (The count of words "rocket" starts is kept now, for a minute.)
    expect((await search(5)).every((t) => /rocket/i.test(t.token.name))).toBe(true);
    const base = await db
      .selectFrom('tokens')
      .selectAll()
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const address = `0x${'ef'.repeat(19)}01`;
    const name = 'Rocketeerz Launch';
    await db
      .insertInto('tokens')
      .values({
        ...base,
        chain_id: 8453,
        address,
        pool_id: `0x${'ef'.repeat(32)}`,
        name,
        symbol: 'RKZ',
        search_words: searchText(name, 'RKZ'),
        created_at: Number(base.created_at) + 1000,
      })
      .execute();
    await db
      .insertInto('token_words')
      .values(
        searchWords(name, 'RKZ').map((word) => ({
          chain_id: 8453,
          word,
          address,
          block_number: base.block_number,
          created_at: Number(base.created_at) + 1000,
          search_words: searchText(name, 'RKZ'),
        })),
      )
      .execute();
    try {
      // A page of another size (not a shared one), with the count still kept: the new word is read.
      expect((await search(6))[0]?.token.address).toBe(address);
    } finally {
      await db.deleteFrom('token_words').where('address', '=', address).execute();
      await db.deleteFrom('tokens').where('address', '=', address).execute();
    }
  });
});

describe('shared pages', () => {
  it('reads identical list requests close together once, each answered as its own', async () => {
    const url = '/v1/tokens?sort=market_cap&chain_id=143&limit=7';
    const ask = (u: string) =>
      app.inject({ url: u, headers: { 'x-api-key': key, 'x-request-id': `r-${Math.random()}` } });
    const reads = () => captured.filter((q) => /"tokens" as "t"/.test(q.text)).length;
    await new Promise((r) => setTimeout(r, 300)); // nothing shared from before
    captured.length = 0;
    const answers = await Promise.all([ask(url), ask(url), ask(url), ask(url)]);
    expect(reads()).toBe(1);
    const bodies = answers.map((r) => r.json());
    for (const b of bodies) expect(b.data).toEqual(bodies[0].data);
    expect(new Set(bodies.map((b) => b.meta.request_id)).size).toBe(4);
    expect(answers[0]?.headers['content-type']).toBe('application/json; charset=utf-8');
    // Another page or another page size is its own read.
    const next = encodeURIComponent(bodies[0].pagination.next_cursor);
    await ask(`${url}&cursor=${next}`);
    expect(reads()).toBe(2);
    await ask(url.replace('limit=7', 'limit=8'));
    expect(reads()).toBe(3);
    // Past half of PAGE_SHARE_MS the shared page still answers while it is read again; past all of it,
    // the list is read again before the answer.
    await new Promise((r) => setTimeout(r, 150));
    expect((await ask(url)).json().data).toEqual(bodies[0].data);
    await new Promise((r) => setTimeout(r, 50));
    expect(reads()).toBe(4);
    await new Promise((r) => setTimeout(r, 300));
    await ask(url);
    expect(reads()).toBe(5);
  });
});

describe('a metadata update at scale', () => {
  it("replaces the token's fields and words without reading a big table whole", async () => {
    const db = database.db;
    const token = await db
      .selectFrom('tokens')
      .select('address')
      .where('chain_id', '=', 4663)
      .orderBy('address')
      .limit(1)
      .executeTakeFirstOrThrow();
    // (A launch records its name and symbol as its first updates.)
    await db
      .insertInto('token_updates')
      .values(
        [
          ['name', 'Renamed Zebra'],
          ['symbol', 'ZBR'],
        ].map(([field, value], i) => ({
          chain_id: 4663,
          token: token.address,
          field: field as string,
          value: value as string,
          raw_hex: null,
          block_number: 2_000_000,
          log_index: i,
          tx_hash: `0x${'ab'.repeat(32)}`,
        })),
      )
      .execute();
    captured.length = 0;
    await db.transaction().execute((trx) => refreshFields(trx, 4663, [token.address]));
    const statements = captured.filter((q) => !/^(begin|commit)/i.test(q.text));
    expect(statements.some((q) => /delete from "token_words"/.test(q.text))).toBe(true);
    for (const q of statements) {
      const plan = await explain(database, q.text, q.parameters);
      expect(planProblems(plan, 100), `${q.text}\n${planText(plan)}`).toEqual([]);
    }
    const words = await db
      .selectFrom('token_words')
      .select('word')
      .where('chain_id', '=', 4663)
      .where('address', '=', token.address)
      .orderBy('word')
      .execute();
    expect(words.map((w) => w.word)).toEqual(searchWords('Renamed Zebra', 'ZBR').sort());
  });
});

describe('market refresh of most of a chain', () => {
  it("computes the quiet tokens' ranks in the database exactly as the refresh's own arithmetic does", async () => {
    // Seeded inputs over the whole range: prices both ways round, zero, supplies and reserves from 1 raw
    // unit to past 2^53 millionths of a unit, quotes of 0 to 18 decimals.
    let seed = 7n;
    const next = (bits: bigint) => {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) % (1n << 64n);
      return (seed * (seed >> 7n)) % (1n << bits);
    };
    const cases = Array.from({ length: 3000 }, (_, i) => ({
      sqrt: i % 97 === 0 ? 0n : next(BigInt(40 + (i % 120))),
      supply: next(BigInt(1 + (i % 100))),
      reserve: i % 89 === 0 ? 0n : next(BigInt(1 + (i % 110))),
      tokenIs0: i % 2 === 0,
      decimals: [0, 2, 6, 8, 18][i % 5] as number,
    }));
    const token = (c: (typeof cases)[number]) => (c.tokenIs0 ? `0x${'1'.repeat(40)}` : `0x${'f'.repeat(40)}`);
    const quote = `0x${'a'.repeat(40)}`;
    const values = sql.join(
      cases.map(
        (c, i) =>
          sql`(${i}::integer, ${c.sqrt.toString()}::numeric, ${c.supply.toString()}::numeric, ${c.reserve.toString()}::numeric, ${c.tokenIs0}::boolean, ${quoteUnit(c.decimals)}::numeric)`,
      ),
    );
    const { rows } = await sql<{ i: number; cap: number; liquidity: number }>`select i,
        ${quoteRankSql(marketCapSql(sql`sqrt`, sql`supply`, sql`token_is_0`), sql`unit`)} as cap,
        ${quoteRankSql(sql`reserve`, sql`unit`)} as liquidity
      from (values ${values}) as v (i, sqrt, supply, reserve, token_is_0, unit) order by i`.execute(
      database.db,
    );
    const expected = cases.map((c, i) => ({
      i,
      cap: quoteRank(marketCap(pricePerToken(c.sqrt, token(c), quote), c.supply), c.decimals),
      liquidity: quoteRank(c.reserve, c.decimals),
    }));
    expect(rows).toEqual(expected);
    // (Not a vacuous match: the inputs give many distinct figures.)
    expect(new Set(rows.map((r) => r.cap)).size).toBeGreaterThan(2000);
  });

  it('builds the chain partition anew, with the rows that updating each one gives', async () => {
    const db = database.db;
    const chainId = 143;
    const deployments = Deployments.load(loadSettings({ LAUNCHPAD_DATA_DIR: tempDir() }).manifestsDir);
    const endpoint = generatedChainEndpoint();
    const refresh = () => refreshMarket({ chainId, endpoint, database, deployments, nowMs: 1 });
    const partition = async () =>
      (await sql<{ oid: number }>`select 'token_market_143'::regclass::oid as oid`.execute(db)).rows[0]?.oid;
    const rows = async () =>
      (
        await sql<Record<string, unknown>>`select * from token_market where chain_id = ${chainId}
          order by address`.execute(db)
      ).rows;
    const tokens = Number(
      (await sql<{ n: string }>`select count(*) as n from tokens where chain_id = ${chainId}`.execute(db))
        .rows[0]?.n,
    );
    expect(tokens).toBeGreaterThan(10_000);
    // A quarter of them quoted in currencies the manifest lists (USDC: 6 decimals, a stablecoin;
    // WMON: 18, unpriced), the rest in the generated suite's native one, which it does not list.
    await sql`update tokens set suite_id = 'monad-mainnet-launchpad-v4-minimal', quote_address = case
        when md5(address) < '2' then '0x754704Bc059F8C67012fEd69BC8A327a5aafb603'
        else '0xEE8c0E9f1BFFb4Eb878d8f15f368A02a35481242' end
      where chain_id = ${chainId} and md5(address) < '4'`.execute(db);

    // Every row marked for rebuilding (a deep reorg's mark): the partition is built anew.
    await sql`update token_market set rebuild = 1 where chain_id = ${chainId}`.execute(db);
    const before = await partition();
    expect(await refresh()).toBe(tokens);
    expect(await partition()).not.toBe(before);
    const built = await rows();
    expect(built).toHaveLength(tokens);
    expect(built.filter((r) => r.rebuild !== 0)).toEqual([]);

    // Rows spoilt and marked: a few are updated in place, most have the partition built anew with the
    // others as they were; both give what the first build gave.
    const spoil = (n: number) =>
      sql`update token_market set rebuild = 1, market_cap_quote = -5, trending_score = -5,
        reserve_quote_raw = '7', activity = '{}' where chain_id = ${chainId} and address in
        (select address from token_market where chain_id = ${chainId} order by address desc limit ${n})`.execute(
        db,
      );
    await spoil(2_000);
    const kept = await partition();
    await refresh();
    expect(await partition()).toBe(kept);
    expect(await rows()).toEqual(built);
    await spoil(Math.ceil(tokens * 0.6));
    await refresh();
    expect(await partition()).not.toBe(kept);
    expect(await rows()).toEqual(built);

    // Lists read the new partition through the table's indexes.
    const list = await app.inject({
      url: `/v1/tokens?sort=market_cap&chain_id=${chainId}&limit=5`,
      headers: { 'x-api-key': key },
    });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toHaveLength(5);
    const plan = planText(
      await explain(
        database,
        `select address from token_market where chain_id = ${chainId} order by trending_score desc limit 5`,
        [],
      ),
    );
    expect(plan).toMatch(/Index (Only )?Scan on token_market_143 using token_market_143_next_\w+ \(rows 5\)/);
    // Its pages all-visible from the start, so a list's index-only scan visits none of them, and
    // autovacuum on again for the partition it became.
    const covered = await explain(
      database,
      `select address, search_words from token_market where chain_id = ${chainId}
        order by trending_score desc limit 5`,
      [],
    );
    const scan = covered.Plans?.[0];
    expect([scan?.['Node Type'], scan?.['Heap Fetches']]).toEqual(['Index Only Scan', 0]);
    const { rows: visible } = await sql<{ visible: boolean; options: string[] | null }>`
      select relallvisible = relpages and relpages > 0 as visible, reloptions as options from pg_class
      where oid = 'token_market_143'::regclass`.execute(db);
    expect(visible).toEqual([{ visible: true, options: null }]);
    // The old partition was dropped once swapped out.
    const { rows: left } = await sql`select 1 from pg_class where relname like 'token_market_143_%'
      and relkind in ('r', 'p')`.execute(db);
    expect(left).toEqual([]);
  });

  it("reads a chain's tokens for its full refresh from their index alone, not their wide rows", async () => {
    const db = database.db;
    const chainId = 5042;
    const deployments = Deployments.load(loadSettings({ LAUNCHPAD_DATA_DIR: tempDir() }).manifestsDir);
    await sql`update token_market set rebuild = 1 where chain_id = ${chainId}`.execute(db);
    // (As autovacuum leaves a table its writes have settled in: its pages marked all-visible.)
    await sql`vacuum (analyze) tokens`.execute(db);
    const from = captured.length;
    await refreshMarket({ chainId, endpoint: generatedChainEndpoint(), database, deployments, nowMs: 1 });
    const quiet = captured.slice(from).find((c) => /with u as materialized/.test(c.text));
    expect(quiet).toBeDefined();
    const { text, parameters } = quiet as (typeof captured)[number];
    // It wrote into the partition the refresh built and swapped in: explained against a table like it.
    const table = /insert into "(token_market_\d+_next)"/.exec(text)?.[1] as string;
    expect(table).toBe(`token_market_${chainId}_next`);
    await sql`create table ${sql.table(table)} (like token_market including defaults)`.execute(db);
    try {
      const scans = scansOf(await explain(database, text, parameters)).filter(
        (n) => n['Relation Name'] === 'tokens',
      );
      expect(scans.map((n) => [n['Node Type'], n['Index Name'], n['Heap Fetches']])).toEqual([
        ['Index Only Scan', 'tokens_market_inputs', 0],
      ]);
      expect(scans[0]?.['Actual Rows']).toBeGreaterThan(10_000);
    } finally {
      await sql`drop table ${sql.table(table)}`.execute(db);
    }
  });

  it('runs the refreshes asked of one database one at a time, in the order asked', async () => {
    const deployments = Deployments.load(loadSettings({ LAUNCHPAD_DATA_DIR: tempDir() }).manifestsDir);
    const generated = generatedChainEndpoint();
    const calls: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    // The first refresh's node holds its block read until released.
    const endpoint = (name: string) =>
      ({
        batchResults: async (batch: { method: string; params: unknown[] }[]) => {
          calls.push(name);
          if (name === 'first') await held;
          return generated.batchResults(batch);
        },
      }) as unknown as RpcEndpoint;
    const refresh = (name: string) =>
      refreshMarket({ chainId: 143, endpoint: endpoint(name), database, deployments, nowMs: 2 });
    const first = refresh('first');
    const second = refresh('second');
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toEqual(['first']);
    release();
    await first;
    const done = calls.length;
    await second;
    expect(calls[done]).toBe('second');
    expect(calls.slice(0, done).every((c) => c === 'first')).toBe(true);
  });
});
