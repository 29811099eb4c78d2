// The plans of the hot indexed reads on PostgreSQL, at a generated index of 10k tokens and 100k trades
// (the code path of `npm run bench -- index` at a hundredth of its scale): every query each read runs
// is explained (EXPLAIN ANALYZE), and none may scan trades, tokens or holders whole or sort many more
// rows than its page.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChainClients } from '../src/chain/clients.ts';
import { ManualClock } from '../src/clock.ts';
import { openLimiter } from '../src/http/limits/limits.ts';
import { buildServer } from '../src/server.ts';
import { loadSettings } from '../src/settings.ts';
import { ApiKeyStore } from '../src/store/apiKeys.ts';
import { type Database, openDatabase } from '../src/store/db.ts';
import { freshPostgres } from './support/gateway.ts';
import { generateIndex, hotReads } from './support/generatedIndex.ts';
import { explain, planProblems, planText } from './support/plans.ts';
import { tempDir } from './support/tempDir.ts';

const SCALE = { tokens: 10_000, trades: 100_000, holders: 50_000, announcements: 1_000, feeCredits: 10_000 };

let database: Database;
let app: Awaited<ReturnType<typeof buildServer>>;
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
  const clock = new ManualClock(Date.now());
  app = await buildServer({
    settings,
    database,
    chains: new ChainClients({}, 1000),
    clock,
    limiter: await openLimiter(settings, clock),
    logger: false,
  });
  ({ key } = await new ApiKeyStore(database, settings.keyPrefix).create({
    plan: 'partner',
    scopes: ['*'],
    origins: [],
    overrides: {},
  }));
  const { rows } = await sql<{ creator: string }>`select creator from tokens where chain_id = 8453
    order by created_at desc limit 1`.execute(database.db);
  reads = hotReads(SCALE, rows[0]?.creator as string);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** The problems in the plans of the queries one read runs (its own reads of the index only). */
async function problemsOf(url: string): Promise<{ status: number; problems: string[]; queries: number }> {
  captured.length = 0;
  const r = await app.inject({ url, headers: { 'x-api-key': key } });
  const queries = captured.filter(
    (q) =>
      /^(with|select)/i.test(q.text) &&
      /tokens|trades|token_holders|token_words|fee_events|announcements/.test(q.text),
  );
  const problems: string[] = [];
  for (const q of queries) {
    const plan = await explain(database, q.text, q.parameters);
    for (const p of planProblems(plan, 500)) problems.push(`${p}\n${q.text}\n${planText(plan)}`);
  }
  return { status: r.statusCode, problems, queries: queries.length };
}

describe('hot reads of a generated 10k-token, 100k-trade index', () => {
  const labels = Object.keys(hotReads(SCALE, '0x0000000000000000000000000000000000000000'));
  for (const label of labels)
    it(`${label}: no whole scan of a big table, no sort beyond its page`, async () => {
      const { status, problems, queries } = await problemsOf(reads[label] as string);
      // Fee claims read what is owed on chain after the index; there is no chain here (503).
      expect(label === 'wallet fee claims' ? [200, 503] : [200]).toContain(status);
      expect(queries).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    });
});
