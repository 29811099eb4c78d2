// Reads on PostgreSQL go as named prepared statements (store/db.ts), one per text and connection;
// DATABASE_PREPARED=off (a transaction-mode pooler that does not keep them) sends none; a prepared
// `select *` whose table changed under it (another replica's migration) runs again unnamed. Every
// connection runs without JIT, and is kept once open.
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { appendEvents } from '../src/indexer/journal.ts';
import { loadSettings } from '../src/settings.ts';
import { openDatabase } from '../src/store/db.ts';
import { freshPostgres } from './support/gateway.ts';
import { tempDir } from './support/tempDir.ts';

async function open(prepared: 'on' | 'off') {
  const url = await freshPostgres(inject('postgresUrl'));
  return openDatabase(
    loadSettings({ LAUNCHPAD_DATA_DIR: tempDir(), DATABASE_URL: url, DATABASE_PREPARED: prepared }),
  );
}

describe('reads on PostgreSQL', () => {
  it('are prepared once per connection, and none with DATABASE_PREPARED=off', async () => {
    for (const setting of ['on', 'off'] as const) {
      const database = await open(setting);
      try {
        const statements = await database.db.connection().execute(async (conn) => {
          for (let i = 0; i < 3; i++)
            await conn.selectFrom('tokens').select('address').where('chain_id', '=', 8453).limit(1).execute();
          const { rows } = await sql<{
            statement: string;
          }>`select statement from pg_prepared_statements`.execute(conn);
          return rows.map((r) => r.statement);
        });
        const tokenReads = statements.filter((s) => s.includes('from "tokens"'));
        expect(tokenReads, setting).toHaveLength(setting === 'on' ? 1 : 0);
        if (setting === 'off') expect(statements).toEqual([]);
      } finally {
        await database.close();
      }
    }
  });

  it('keep their connections once open: a burst after a quiet spell meets the ones the last burst opened', async () => {
    const database = await open('on');
    try {
      /** The server process of each of five reads made at once (each on a connection of its own). */
      const burst = async () =>
        new Set(
          await Promise.all(
            [1, 2, 3, 4, 5].map(async () => {
              const { rows } = await sql<{
                pid: number;
              }>`select pg_backend_pid() as pid, pg_sleep(0.1)`.execute(database.db);
              return rows[0]?.pid;
            }),
          ),
        );
      const first = await burst();
      expect(first.size).toBe(5);
      // Past node-postgres's default idle timeout (10 s), which closed them.
      await new Promise((r) => setTimeout(r, 11_000));
      expect([...(await burst())].sort()).toEqual([...first].sort());
    } finally {
      await database.close();
    }
  }, 30_000);

  it('run without JIT on every connection', async () => {
    const database = await open('on');
    try {
      const settings = await Promise.all(
        [1, 2, 3].map(() =>
          database.db.connection().execute(async (conn) => {
            const { rows } = await sql<{ jit: string }>`show jit`.execute(conn);
            return rows[0]?.jit;
          }),
        ),
      );
      expect(settings).toEqual(['off', 'off', 'off']);
      // (The server's own default is on: the connection's setting is what changes it.)
      const { rows } = await sql<{ reset_val: string }>`select reset_val from pg_settings
        where name = 'jit'`.execute(database.db);
      expect(rows[0]?.reset_val).toBe('on');
    } finally {
      await database.close();
    }
  });

  it("read the journal's last seq by its key after the journal grew under the connection", async () => {
    const database = await open('on');
    try {
      // (Known empty, as after a vacuum of a journal emptied: no minimum size assumed for it.)
      await sql`vacuum index_events`.execute(database.db);
      await database.db.transaction().execute(async (trx) => {
        const entry = (n: number) => ({
          type: 'trade' as const,
          block_number: n,
          block_hash: '0x01',
          tx_hash: '0x02',
          log_index: 0,
          token: '0x03',
        });
        // Ranges appended to a journal of a few rows: a plan kept from them reads it whole.
        for (let n = 1; n <= 8; n++) await appendEvents(database, trx, 8453, [entry(n)]);
        await sql`insert into index_events (chain_id, seq, type, block_number, block_hash, tx_hash, log_index, token)
          select 8453, s, 'trade', s, '0x01', '0x02', 0, '0x03' from generate_series(9, 100000) s`.execute(
          trx,
        );
        const scans = async () => {
          const { rows } = await sql<{ seq_scan: string }>`select seq_scan from pg_stat_xact_user_tables
            where relname = 'index_events'`.execute(trx);
          return Number(rows[0]?.seq_scan);
        };
        const before = await scans();
        await appendEvents(database, trx, 8453, [entry(100_001)]);
        expect(await scans()).toBe(before);
        const { rows } = await sql<{ last: string }>`select max(seq) as last from index_events`.execute(trx);
        expect(Number(rows[0]?.last)).toBe(100_001);
      });
    } finally {
      await database.close();
    }
  });

  it('answers a prepared select * after its table gained a column, unnamed from then on', async () => {
    const database = await open('on');
    try {
      await database.db.connection().execute(async (conn) => {
        await sql`create table changing (a integer)`.execute(conn);
        await sql`insert into changing values (1)`.execute(conn);
        const read = () => sql<Record<string, number>>`select * from changing where a = ${1}`.execute(conn);
        expect((await read()).rows).toEqual([{ a: 1 }]);
        await sql`alter table changing add column b integer default 2`.execute(conn);
        expect((await read()).rows).toEqual([{ a: 1, b: 2 }]);
        expect((await read()).rows).toEqual([{ a: 1, b: 2 }]);
      });
    } finally {
      await database.close();
    }
  });
});
