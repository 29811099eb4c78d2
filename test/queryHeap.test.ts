// What the index's queries allocate dies young: the rows a query returns through the pool
// (store/db.ts: settlingClient) must not outlive two scavenges, or every scavenge copies and promotes
// them and its pause grows with them (a gateway's reads wait for each).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { freshPostgres } from './support/gateway.ts';
import { tempDir } from './support/tempDir.ts';

// In a fresh process: 8 loops of a 25-row query through the pool, after a warm-up; V8's figures of
// each scavenge (--trace-gc-nvp) between the two marks.
const LOOP = `
const { openDatabase } = await import('./src/store/db.ts');
const { sql } = await import('kysely');
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR });
const q = sql.raw("select g, repeat('x', 300) as a, repeat('y', 300) as b, md5(g::text) as c from generate_series(1, 25) g");
for (let i = 0; i < 200; i++) await q.execute(database.db);
console.log('LOOP START');
await Promise.all(Array.from({ length: 8 }, async () => { for (let i = 0; i < 1500; i++) await q.execute(database.db); }));
console.log('LOOP END');
await database.close();
`;

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await freshPostgres(inject('postgresUrl'));
});

describe('query results on PostgreSQL', () => {
  it('die young: the scavenges while queries run promote almost nothing', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--trace-gc-nvp', '--import', 'tsx', '--input-type=module', '-e', LOOP],
      { env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: tempDir() }, maxBuffer: 64 * 2 ** 20 },
    );
    const loop = stdout.slice(stdout.indexOf('LOOP START'), stdout.indexOf('LOOP END'));
    const figure = (line: string, name: string) =>
      Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
    const scavenges = loop.split('\n').filter((l) => / gc=s /.test(l));
    const allocated = scavenges.reduce((n, l) => n + figure(l, 'allocated'), 0);
    const promoted = scavenges.reduce((n, l) => n + figure(l, 'promoted'), 0);
    expect(scavenges.length).toBeGreaterThan(3);
    expect(allocated).toBeGreaterThan(100 * 2 ** 20);
    // (Through node-postgres's own promise: 127 of 370 MB; through its callback: 0.3 of 428 MB.)
    expect(promoted / allocated).toBeLessThan(0.02);
  }, 120_000);
});
