// Storage on both databases: migrations, the key store, and the gateway serving keys from each.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { ApiKeyStore, KeyOptionError } from '../src/store/apiKeys.ts';
import { addAmountSum, amountSum, insertMany, openDatabase, type Tables } from '../src/store/db.ts';
import { migrate } from '../src/store/migrations.ts';
import { call, expectProblem, freshPostgres, startGateway, tempDir } from './support/gateway.ts';

const backends = [
  { name: 'sqlite', env: async (): Promise<Record<string, string>> => ({}) },
  { name: 'postgres', env: async () => ({ DATABASE_URL: await freshPostgres(inject('postgresUrl')) }) },
];

describe.each(backends)('$name', ({ name, env }) => {
  /** A database of this backend with no migration applied yet (an upgrade's test migrates it in steps). */
  const unmigrated = async () => {
    const e = await env();
    const file = name === 'sqlite' ? new BetterSqlite(join(tempDir(), 'old.sqlite')) : undefined;
    // (As openDatabase adds it before migrating.)
    if (file) addAmountSum(file);
    return file
      ? new Kysely<Tables>({ dialect: new SqliteDialect({ database: file }) })
      : new Kysely<Tables>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: e.DATABASE_URL }) }),
        });
  };

  it('migrates idempotently and stores keys without their secrets', async () => {
    const e = await env();
    const opts = { databaseUrl: e.DATABASE_URL, dataDir: tempDir() };
    const first = await openDatabase(opts);
    expect(first.kind).toBe(name);
    await first.close();
    const database = await openDatabase(opts); // second start: migrations already applied
    const store = new ApiKeyStore(database, 'lp_');
    const now = new Date('2026-03-01T00:00:00.000Z');
    const { key, record } = await store.create(
      {
        plan: 'builder',
        scopes: ['tokens:read', 'config:read', 'tokens:read'],
        origins: ['https://a.example/x'],
      },
      now,
    );
    expect(key).toMatch(/^lp_launch_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(record.keyId).toBe(key.split('_')[2]);
    const secret = key.split('_').slice(3).join('_');
    const rows = await database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secret);

    const found = await store.find(record.keyId);
    expect(found).toMatchObject({
      plan: 'builder',
      origins: ['https://a.example'],
      status: 'active',
      expiresAt: null,
      lastUsedAt: null,
    });
    expect([...(found?.scopes ?? [])]).toEqual(['config:read', 'tokens:read']);
    expect(found?.createdAt.toISOString()).toBe(now.toISOString());

    await store.touch(record.keyId, new Date('2026-03-02T00:00:00.000Z'));
    expect((await store.find(record.keyId))?.lastUsedAt?.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(await store.revoke(record.keyId)).toBe(true);
    expect(await store.revoke('00000000')).toBe(false);
    expect((await store.list()).map((k) => [k.keyId, k.status])).toEqual([[record.keyId, 'revoked']]);
    expect(await store.find('00000000')).toBeUndefined();

    await expect(store.create({ plan: 'gold' as never, scopes: [], origins: [] })).rejects.toThrow(
      KeyOptionError,
    );
    await expect(store.create({ plan: 'developer', scopes: ['root'], origins: [] })).rejects.toThrow(
      /unknown scopes/,
    );
    await expect(store.create({ plan: 'developer', scopes: [], origins: ['ftp://x'] })).rejects.toThrow(
      /http/,
    );
    await database.close();
  });

  it('sums raw amounts exactly: short ones, 18 and 19 digits, past 2^64, none', async () => {
    const e = await env();
    const database = await openDatabase({ databaseUrl: e.DATABASE_URL, dataDir: tempDir() });
    const amounts: Record<string, string[]> = {
      a: ['1', '999999999999999999', '999999999999999999', '9223372036854775807', '9999999999999999999'],
      b: ['340282366920938463463374607431768211455', '18446744073709551616', '7', '0'],
      c: [],
    };
    const values = Object.entries(amounts).flatMap(([group, list]) =>
      list.length ? list.map((v) => sql`(${group}, ${v})`) : [sql`(${group}, ${null})`],
    );
    const { rows } = await sql<{ g: string; total: string }>`
      with x(g, v) as (values ${sql.join(values)})
      select g, ${amountSum(database.kind, sql`v`)} as total
      from x group by g order by g`.execute(database.db);
    const exact = (list: string[]) => list.reduce((t, v) => t + BigInt(v), 0n).toString();
    expect(rows).toEqual(Object.entries(amounts).map(([g, list]) => ({ g, total: exact(list) })));
    await database.close();
  });

  it('inserts many rows in a transaction: conflicts as asked, nothing kept on rollback', async () => {
    const e = await env();
    const database = await openDatabase({ databaseUrl: e.DATABASE_URL, dataDir: tempDir() });
    // SQLite runs one prepared single-row statement per row; PostgreSQL copies them (COPY … FROM STDIN).
    expect(database.runEach !== undefined).toBe(name === 'sqlite');
    const holders = Array.from({ length: 1_203 }, (_, i) => ({
      chain_id: 8453,
      token: '0x00000000000000000000000000000000000000aa',
      holder: `0x${i.toString(16).padStart(40, '0')}`,
      block_number: 100 + i,
    }));
    const blocks = (hash: string) =>
      Array.from({ length: 3 }, (_, i) => ({ chain_id: 8453, number: 10 + i, hash: `${hash}${i}` }));
    await database.db.transaction().execute(async (trx) => {
      await insertMany(database, trx, 'token_holders', holders);
      // Duplicates ignored: the first block number of each holder stays.
      await insertMany(
        database,
        trx,
        'token_holders',
        holders.map((h) => ({ ...h, block_number: 1 })),
        (oc) => oc.doNothing(),
      );
      await insertMany(database, trx, 'index_blocks', blocks('0xold'));
      await insertMany(database, trx, 'index_blocks', blocks('0xnew'), (oc) =>
        oc.columns(['chain_id', 'number']).doUpdateSet({ hash: (eb) => eb.ref('excluded.hash') }),
      );
    });
    const stored = await database.db
      .selectFrom('token_holders')
      .selectAll()
      .orderBy('block_number')
      .execute();
    expect(stored.length).toBe(1_203);
    expect(stored.map((r) => Number(r.block_number))).toEqual(holders.map((h) => h.block_number));
    const hashes = await database.db.selectFrom('index_blocks').select('hash').orderBy('number').execute();
    expect(hashes.map((r) => r.hash)).toEqual(['0xnew0', '0xnew1', '0xnew2']);
    // Text as chains send it (PostgreSQL copies rows in COPY's text format): tabs, line breaks,
    // backslashes and what COPY would read as null or the end of the data are kept as they are, and an
    // empty text is not a null. (A text longer than a piece of COPY's data, between others: the data
    // is sent in pieces that end with a row.)
    const texts = [
      'tab\there',
      'line\nbreak\r\nend',
      'back\\slash \\N',
      'ü🚀\t'.repeat(12_000),
      '\\.',
      '',
      'ünï 🚀 "q" \'s',
    ];
    const posts = texts.map((description, i) => ({
      chain_id: 8453,
      tx_hash: `0x${String(i).padStart(64, '0')}`,
      log_index: i,
      block_number: 7,
      token: '0x00000000000000000000000000000000000000aa',
      announcement_id: `0x${i}`,
      creator: '0x00000000000000000000000000000000000000bb',
      description,
      uri: description === '' ? '\\N' : '',
      posted_at: 1,
      raw_hex: i % 2 === 0 ? null : '{}',
    }));
    await database.db.transaction().execute((trx) => insertMany(database, trx, 'announcements', posts));
    const read = await database.db.selectFrom('announcements').selectAll().orderBy('log_index').execute();
    expect(read.map((r) => [r.description, r.uri, r.raw_hex])).toEqual(
      posts.map((p) => [p.description, p.uri, p.raw_hex]),
    );
    // A duplicate without a conflict rule fails the statement, and the transaction keeps nothing.
    await expect(
      database.db.transaction().execute(async (trx) => {
        await insertMany(database, trx, 'index_blocks', [{ chain_id: 1, number: 1, hash: '0x1' }]);
        await insertMany(database, trx, 'index_blocks', blocks('0xdup'));
      }),
    ).rejects.toThrow();
    const after = await database.db.selectFrom('index_blocks').select('hash').orderBy('number').execute();
    expect(after.map((r) => r.hash)).toEqual(['0xnew0', '0xnew1', '0xnew2']);
    await database.close();
  });

  it('upgrades an index made before search text: each token gets the words of its name and symbol', async () => {
    const db = await unmigrated();
    try {
      await migrate(db, name as 'sqlite' | 'postgres', 1, '0015_webhooks');
      const token = { chain_id: 8453, address: '0x00000000000000000000000000000000000000a1' };
      await sql`insert into tokens (chain_id, address, suite_id, market, quote_address, creator, pool_id,
        hook, tick_spacing, name, symbol, metadata_uri, block_number, log_index, tx_hash, created_at,
        current_creator, launch_supply, fee_recipient) values (${token.chain_id}, ${token.address}, 's',
        'standard', '0x', '0x', '0x', '0x', 200, 'Dire Wolf', 'DWLF', '', 7, 0, '0x', 1700000000, '0x',
        '1', '0x')`.execute(db);
      for (const word of ['dire', 'wolf', 'dwlf'])
        await sql`insert into token_words (chain_id, word, address, block_number)
          values (${token.chain_id}, ${word}, ${token.address}, 7)`.execute(db);
      await migrate(db, name as 'sqlite' | 'postgres');
      const row = await db.selectFrom('tokens').select('search_words').executeTakeFirstOrThrow();
      expect(row.search_words.split(' ').sort()).toEqual(['', 'dire', 'dwlf', 'wolf']);
      const words = await db
        .selectFrom('token_words')
        .select(['word', 'created_at', 'search_words'])
        .execute();
      expect(words.map((w) => Number(w.created_at))).toEqual([1700000000, 1700000000, 1700000000]);
      // (Each word row carries its token's words.)
      expect(words.map((w) => w.search_words)).toEqual(Array(3).fill(row.search_words));
    } finally {
      await db.destroy();
    }
  });

  it('upgrades an index made before trade totals: each traded token gets its reserve, last block and price', async () => {
    const db = await unmigrated();
    try {
      await migrate(db, name as 'sqlite' | 'postgres', 1, '0023_token_words_token');
      const big = 10n ** 30n;
      const trade = (
        chain: number,
        token: string,
        block: number,
        log: number,
        side: string,
        quote: bigint,
      ) => ({
        chain_id: chain,
        tx_hash: `0x${block}${log}`,
        log_index: log,
        block_number: block,
        block_hash: '0x',
        timestamp: 1700000000 + block,
        token,
        trader: '0x',
        side,
        amount_in_raw: '1',
        amount_out_raw: '1',
        quote_amount_raw: quote.toString(),
        token_amount_raw: '1',
        fee_raw: (quote / 100n).toString(),
        fee_currency: '0x',
        referrer: null,
        comment: '',
        sqrt_price_x96: `${block}${log}`,
      });
      await db
        .insertInto('trades')
        .values([
          trade(8453, '0xa', 5, 0, 'buy', big),
          trade(8453, '0xa', 6, 1, 'sell', 300n),
          trade(8453, '0xa', 6, 0, 'buy', big),
          trade(4663, '0xa', 9, 0, 'buy', 1000n),
        ])
        .execute();
      await migrate(db, name as 'sqlite' | 'postgres');
      const rows = await db.selectFrom('token_totals').selectAll().orderBy('chain_id').execute();
      expect(rows.map((r) => ({ ...r, last_block: Number(r.last_block) }))).toEqual([
        { chain_id: 4663, address: '0xa', last_block: 9, reserve_quote_raw: '990', sqrt_price_x96: '90' },
        {
          chain_id: 8453,
          address: '0xa',
          last_block: 6,
          // Two buys of 10^30 less 1 % fees, a sell of 300 and its fee of 3.
          reserve_quote_raw: (2n * (big - big / 100n) - 303n).toString(),
          sqrt_price_x96: '61',
        },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('upgrades market rows made before they kept search words: each gets its token’s', async () => {
    const db = await unmigrated();
    try {
      await migrate(db, name as 'sqlite' | 'postgres', 1, '0025_token_words_lead');
      for (const [address, words] of [
        ['0xa1', ' dire wolf dwlf'],
        ['0xa2', ''],
      ] as const) {
        await sql`insert into tokens (chain_id, address, suite_id, market, quote_address, creator, pool_id,
          hook, tick_spacing, name, symbol, search_words, metadata_uri, block_number, log_index, tx_hash,
          created_at, current_creator, launch_supply, fee_recipient) values (8453, ${address}, 's',
          'standard', '0x', '0x', '0x', '0x', 200, 'Dire Wolf', 'DWLF', ${words}, '', 7, 0, '0x',
          1700000000, '0x', '1', '0x')`.execute(db);
        await sql`insert into token_market (chain_id, address, market, sqrt_price_x96, reserve_quote_raw,
          activity, trending_score, as_of_block, updated_at, rebuild, market_cap_quote, liquidity_quote,
          volume_24h_quote, usd_source) values (8453, ${address}, 'standard', '1', '0', '{}', 1, 7, 0, 0,
          1, 1, 1, 2)`.execute(db);
      }
      // A market row whose token a reorg has just removed.
      await sql`insert into token_market (chain_id, address, market, sqrt_price_x96, reserve_quote_raw,
        activity, trending_score, as_of_block, updated_at, rebuild, market_cap_quote, liquidity_quote,
        volume_24h_quote, usd_source) values (4663, '0xa1', 'standard', '1', '0', '{}', 1, 7, 0, 0, 1, 1,
        1, 2)`.execute(db);
      await migrate(db, name as 'sqlite' | 'postgres');
      const rows = await db
        .selectFrom('token_market')
        .select(['chain_id', 'address', 'search_words'])
        .orderBy('chain_id')
        .orderBy('address')
        .execute();
      expect(rows).toEqual([
        { chain_id: 4663, address: '0xa1', search_words: '' },
        { chain_id: 8453, address: '0xa1', search_words: ' dire wolf dwlf' },
        { chain_id: 8453, address: '0xa2', search_words: '' },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('upgrades escrow events to fee positions: a row each, at its first block; only claims stay events', async () => {
    const db = await unmigrated();
    try {
      await migrate(db, name as 'sqlite' | 'postgres', 1, '0031_tokens_market_inputs');
      const event = (block: number, recipient: string, currency: string, kind: string, amount: string) => ({
        chain_id: 8453,
        tx_hash: `0x${block}`,
        log_index: 0,
        block_number: block,
        escrow: '0xe5',
        recipient,
        currency,
        kind,
        amount,
      });
      await db
        .insertInto('fee_events')
        .values([
          event(9, '0xa1', '0x00', 'credited', '5'),
          event(7, '0xa1', '0x00', 'credited', '3'),
          event(8, '0xa1', '0x00', 'claimed', '8'),
          event(11, '0xa1', '0xc1', 'credited', '2'),
          event(12, '0xa2', '0x00', 'claimed', '1'),
          // (Credits were events then.)
        ] as never)
        .execute();
      await migrate(db, name as 'sqlite' | 'postgres');
      const positions = await db
        .selectFrom('fee_positions')
        .selectAll()
        .orderBy('recipient')
        .orderBy('currency')
        .execute();
      expect(positions.map((p) => ({ ...p, block_number: Number(p.block_number) }))).toEqual([
        { recipient: '0xa1', chain_id: 8453, escrow: '0xe5', currency: '0x00', block_number: 7 },
        { recipient: '0xa1', chain_id: 8453, escrow: '0xe5', currency: '0xc1', block_number: 11 },
        { recipient: '0xa2', chain_id: 8453, escrow: '0xe5', currency: '0x00', block_number: 12 },
      ]);
      const events = await db
        .selectFrom('fee_events')
        .select(['tx_hash', 'kind'])
        .orderBy('tx_hash')
        .execute();
      expect(events).toEqual([
        { tx_hash: '0x12', kind: 'claimed' },
        { tx_hash: '0x8', kind: 'claimed' },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('serves keyed requests from this database, and hides database faults', async () => {
    const gw = await startGateway(await env());
    try {
      const key = await gw.createKey();
      expect((await call(gw, '/v1/config?chain_id=4663&include=chains', { key })).status).toBe(200);
      const health = await call(gw, '/v1/health');
      expect(health.json.data.database).toEqual({ status: 'ok', kind: name });

      // With the database gone, an uncached key lookup fails inside the gateway: 500, nothing leaked.
      const other = await gw.createKey();
      await gw.database.close();
      const r = await call(gw, '/v1/config?chain_id=4663&include=chains', { key: other });
      const p = expectProblem(r, 500, 'internal_error');
      expect(p.detail).toBe('An unexpected error occurred');
      expect(r.body).not.toMatch(/select|api_keys|at \/|sqlite|pool|stack/i);
      const down = expectProblem(await call(gw, '/v1/health'), 503, 'temporarily_unavailable');
      expect(down.health.database).toEqual({ status: 'down', kind: name });
    } finally {
      await gw.close();
    }
  });
});

describe('sqlite start', () => {
  it('waits for a lock another process holds on a fresh file instead of failing', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'launchpad.sqlite');
    // Another process takes the write lock on the fresh file, as a second starting gateway would.
    const holder = spawn(process.execPath, [
      '-e',
      `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)});
       db.exec('begin immediate; create table held(x)'); console.log('held');
       setTimeout(() => { db.exec('rollback'); db.close(); }, 400);`,
    ]);
    const exited = once(holder, 'exit');
    await once(holder.stdout, 'data');
    const database = await openDatabase({ dataDir });
    expect(database.kind).toBe('sqlite');
    await database.close();
    expect((await exited)[0]).toBe(0); // the holder really held, and released, the lock
  });
});
