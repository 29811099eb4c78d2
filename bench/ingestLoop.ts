// The write load of the index bench, in its own process: the chain indexer ingests a devnet chain into
// the database as fast as it can; at the head, the chain's devnet rows (below the generated blocks) are
// deleted and the range is ingested again, until SIGTERM. Prints a line per pass that ended, and
// `resetting` and `ingesting` around each reset between passes.
import { sql } from 'kysely';
import { AnswerTooLarge, RpcEndpoint } from '../src/chain/rpc.ts';
import { ChainIndexer } from '../src/indexer/indexer.ts';
import { Deployments } from '../src/launchpad/deployments.ts';
import { loadSettings } from '../src/settings.ts';
import { openDatabase } from '../src/store/db.ts';
import { FIRST_BLOCK } from '../test/support/generatedIndex.ts';

const CHAIN = 8453;
const settings = loadSettings(process.env);
const database = await openDatabase(settings);
const deployments = Deployments.load(process.env.MANIFESTS_DIR as string);
// (The indexer's own time-out: RPC_TIMEOUT_MS, 5 s by default.)
const endpoint = new RpcEndpoint(process.env[`RPC_URL_${CHAIN}`] as string, settings.rpcTimeoutMs);
const first = Math.min(...(deployments.get(CHAIN)?.suites ?? []).map((s) => s.first_block));
const head = Number(process.env.INGEST_HEAD);

const TABLES = [
  'tokens',
  'trades',
  'fee_credits',
  'fee_events',
  'fee_positions',
  'token_holders',
  'token_updates',
  'announcements',
  'token_words',
  'index_events',
  'skipped_logs',
];

/**
 * Deletes what the indexer wrote for the devnet chain, so that the next pass ingests it again, and
 * vacuums what it deleted: a pass writes into an index as a live one is, not one whose last 200k swaps'
 * rows lie dead in the very key ranges it writes (the journal's last seq, read each range, walked them).
 */
async function reset() {
  await database.db.transaction().execute(async (trx) => {
    const below = sql`chain_id = ${CHAIN} and block_number < ${FIRST_BLOCK}`;
    await sql`delete from token_market where chain_id = ${CHAIN} and address in
      (select address from tokens where ${below})`.execute(trx);
    for (const table of TABLES) await sql`delete from ${sql.table(table)} where ${below}`.execute(trx);
    await sql`delete from index_blocks where chain_id = ${CHAIN} and number < ${FIRST_BLOCK}`.execute(trx);
    await sql`insert into index_state (chain_id, indexed_through, high_water) values (${CHAIN}, ${first - 1}, ${first - 1})
      on conflict (chain_id) do update set indexed_through = excluded.indexed_through, high_water = excluded.high_water`.execute(
      trx,
    );
  });
  await sql`vacuum ${sql.join([...TABLES, 'token_market', 'index_blocks'].map((t) => sql.table(t)))}`.execute(
    database.db,
  );
}

let stopping = false;
process.on('SIGTERM', () => (stopping = true));
await reset();
console.log('ingesting');
for (let pass = 1; !stopping; pass++) {
  const indexer = new ChainIndexer(CHAIN, endpoint, database, deployments);
  const t = performance.now();
  const cpu = process.cpuUsage();
  let logs = 0;
  let ticks = 0;
  // The process's resident memory after each range, by the logs applied so far: its peak in each
  // quarter of the pass's logs is flat if it does not grow with the history ingested. (By logs, not by
  // blocks: the devnet's empty blocks before its swaps would make the first quarters quiet ones.)
  const samples: [number, number][] = [];
  await indexer.tick(); // sees the head
  let errors = 0;
  let told = 0;
  for (let at = first - 1; !stopping && at < head; ticks++) {
    // A failed range is tried again, as the indexer's own loop does (the node is shared with the reads).
    try {
      logs += await indexer.tick();
    } catch (err) {
      // (A range whose answer is too large is the indexer's own way to a shorter one: counted only.)
      if (!(err instanceof AnswerTooLarge) && !told++)
        console.error(`ingest: ${String(err)} (tried again; later ones are counted)`);
      errors++;
      await new Promise((r) => setTimeout(r, 100));
    }
    at = await indexer.indexedThrough();
    samples.push([logs, process.memoryUsage.rss()]);
  }
  const peaks = [0, 0, 0, 0];
  for (const [applied, rss] of samples) {
    const quarter = Math.min(3, Math.floor((applied * 4) / Math.max(1, logs)));
    peaks[quarter] = Math.max(peaks[quarter] as number, rss);
  }
  const mb = peaks.map((p) => (p / 2 ** 20).toFixed(0)).join(' ');
  const used = process.cpuUsage(cpu);
  if (!stopping)
    console.log(
      `pass ${pass}: ${logs} logs in ${(performance.now() - t).toFixed(0)} ms, ${ticks} ranges, ${errors} failed, peak RSS by quarter of the logs: ${mb} MB, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms`,
    );
  if (stopping) break;
  // (The bench does not count reads that overlap a reset: it is its own work, not the indexer's.)
  console.log('resetting');
  await reset();
  console.log('ingesting');
}
await database.close();
