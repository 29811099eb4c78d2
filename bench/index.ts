// The index at production scale on PostgreSQL: a generated index (1M tokens, 10M trades, 5M holders,
// 100k announcements, 1M fee credits by default; BENCH_INDEX_SCALE=0.01 for a hundredth), kept between
// runs in BENCH_INDEX_DIR, read by 8 concurrent clients while the chain indexer ingests a devnet chain
// into the same database (the gateways reading live state from a node of their own, the indexer from
// the devnet's), then times the market refresh of every token. Baseline in the same run: a bare
// `select 1` round trip, 8 concurrent.
import { sql } from 'kysely';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { numberToHex } from 'viem';
import { parse } from 'yaml';
import { RpcEndpoint } from '../src/chain/rpc.ts';
import { refreshMarket } from '../src/indexer/marketRefresh.ts';
import { spawnAnvil } from '../src/devnet/anvil.ts';
import { devnetEnv, startDevnet } from '../src/devnet/devnet.ts';
import { Deployments } from '../src/launchpad/deployments.ts';
import { loadSettings } from '../src/settings.ts';
import { ApiKeyStore } from '../src/store/apiKeys.ts';
import { openDatabase } from '../src/store/db.ts';
import { TestChain } from '../test/support/chain.ts';
import {
  FIRST_BLOCK,
  GENERATOR_VERSION,
  generateIndex,
  generatedChainEndpoint,
  hotReads,
  keepMarket,
  type IndexScale,
  markMarketForRebuild,
  restoreMarket,
  upgradeHolders,
  upgradeMarket,
} from '../test/support/generatedIndex.ts';
import { freePortRange } from '../test/support/net.ts';
import { settingsOf, startPostgresCluster } from '../test/support/postgres.ts';
import { paced } from './paced.ts';
import { Pauses } from './pauses.ts';
import { processesWith, spawnInOwnSession, startServer, target } from './support.ts';
import type { ChildProcess } from 'node:child_process';

const FACTOR = Number(process.env.BENCH_INDEX_SCALE ?? 1);
const SCALE: IndexScale = {
  tokens: Math.round(1_000_000 * FACTOR),
  trades: Math.round(10_000_000 * FACTOR),
  holders: Math.round(5_000_000 * FACTOR),
  announcements: Math.round(100_000 * FACTOR),
  feeCredits: Math.round(1_000_000 * FACTOR),
};
const CLIENTS = 8;
const SECONDS = Number(process.env.BENCH_INDEX_SECONDS ?? 4);
/**
 * Requests a second each client offers (BENCH_INDEX_RATE). Latency is measured at this fixed load, not
 * with clients sending as fast as answers come: there, by Little's law, 8 clients' p50 is 8 / throughput
 * (p50 <= 3 ms would need 2,667 answers a second on these 2 cores while they also ingest), the queue the
 * clients make rather than a read's cost. That throughput is reported beside it.
 */
const RATE = Number(process.env.BENCH_INDEX_RATE ?? 25);
/**
 * Swaps on the devnet chain the indexer backfills while the reads are measured, and per transaction.
 * (200,000 at full scale: anvil holding 1M of them, 10M logs, was killed by the kernel at 21 GB here.)
 */
const INGEST_TRADES = Number(process.env.BENCH_INGEST_TRADES ?? Math.round(200_000 * FACTOR));
// (About 100M gas each, a block each: 10,000 logs a block.)
const SWAPS_PER_TX = 1000;
/** The deep page read against the first (1,000 at full scale; a hot token has a tenth of 2 in 10 holders). */
const DEEP = Math.min(1000, Math.floor(SCALE.trades / 2500), Math.floor(SCALE.holders / 5000));
/** The deployment's compose file, whose settings the bench's servers take (one place for them). */
const COMPOSE = parse(readFileSync('deploy/compose.yaml', 'utf8'));
/**
 * The database server's memory-sized settings as an operator of this machine (24 GiB) sets them in the
 * compose file's `.env` (README: The PostgreSQL host). The index (24 GB on disk) does not fit in memory
 * and the ingest streams through it: in shared_buffers a page read often is kept (bench42, bench43).
 */
const PG_HOST_ENV: Record<string, string> = {
  POSTGRES_SHARED_BUFFERS: '6GB',
  POSTGRES_CACHE_SIZE: '16GB',
  POSTGRES_MAINTENANCE_MEM: '1GB',
};
/**
 * The database server's settings as `deploy/compose.yaml` runs it, durable as shipped: commits and
 * checkpoints wait for the disk (the tests' own servers do not, fsync off).
 */
const PG_SETTINGS: Record<string, string> = {
  // (`${NAME:-default}`: this host's value, else the compose file's default.)
  ...Object.fromEntries(
    settingsOf(COMPOSE.services.postgres.command as string[]).map(([name, value]) => [
      name,
      value.replace(/\$\{(\w+):-([^}]*)\}/g, (_, v: string, fallback: string) => PG_HOST_ENV[v] ?? fallback),
    ]),
  ),
  fsync: 'on',
  // BENCH_PG_LOG=<dir>: the server logs there every statement over 30 ms, each lock waited for over
  // 10 ms (with the process holding it), autovacuum's work and checkpoints (a diagnosis, not as deployed).
  ...(process.env.BENCH_PG_LOG
    ? {
        logging_collector: 'on',
        log_directory: process.env.BENCH_PG_LOG,
        log_min_duration_statement: '30',
        log_lock_waits: 'on',
        deadlock_timeout: '10ms',
        log_autovacuum_min_duration: '0',
        log_checkpoints: 'on',
        log_line_prefix: '%m [%p] %b ',
      }
    : {}),
};
/** shared_buffers in bytes (the huge pages tuneHost reserves for them). */
const SHARED_BUFFERS_BYTES = (() => {
  const [, n, unit] = /^(\d+)([GM])B$/.exec(PG_SETTINGS.shared_buffers as string) ?? [];
  return Number(n) * 2 ** (unit === 'G' ? 30 : 20);
})();
/**
 * The database server's environment as `deploy/compose.yaml` sets it (one place for it): its allocator
 * keeps what a backend freed and asks for transparent huge pages, instead of faulting each query's
 * memory in again (README: The PostgreSQL host).
 */
const PG_ENV = {
  GLIBC_TUNABLES: String(COMPOSE.services.postgres.environment.GLIBC_TUNABLES),
};
/**
 * The indexer's CPU weight, a fifth of a gateway replica's as deployed (`cpu_shares` in
 * deploy/compose.yaml, of the default 1024; the Kubernetes manifests request a fifth of a replica's CPU):
 * the ingest process runs at the autogroup nice of that weight (a nice step is a factor of 1.25). A
 * backfill then takes every core the gateways leave idle, and yields it when their reads wake.
 */
const INGEST_NICE = Math.round(Math.log(1024 / Number(COMPOSE.services.indexer.cpu_shares)) / Math.log(1.25));
/**
 * The devnet node the indexer backfills from stands for the chain's RPC provider, which a deployment
 * reaches over the network and which uses none of its cores: while the reads are measured it runs at
 * the lowest weight, on what the rest leaves (its `eth_getLogs` baseline is timed before, at the
 * default weight, so the ingest's ratio counts its slowing).
 */
const NODE_NICE = 19;
/**
 * The devnet nodes' allocator (anvil's jemalloc) backs their heaps with transparent huge pages. Each
 * `eth_getLogs` answer (about 20 MB of JSON a range) was built in memory faulted in 4 KB at a time:
 * faults this virtual machine's kernel serves without giving up the core (it has no kernel preemption):
 * a real-time thread sleeping 1 ms beside the reads woke over 12 ms late 47 times in 2 min (at most 44
 * ms; bench128), and the longest such gaps were the node's system time (bench130). With huge pages, 10
 * times in 100 s (bench134). A provider reached over the network costs the gateways' cores nothing.
 */
const NODE_ALLOCATOR = 'thp:always,metadata_thp:always';
/**
 * The measuring side's CPU weight: the read clients' process, and this one while it times the baselines,
 * run at autogroup nice -10, as a load generator on cores of its own would. On these 2 cores, shared with
 * the ingest, the database and the nodes, a client's own wait for a core (up to 339 ms in a run, bench64)
 * counted in every request it had in flight, and is not the gateway's latency. They use little CPU, so
 * the weight only lets them run when woken. (Root only: otherwise they stay at the default.)
 */
const MEASURING_NICE = -10;
/** Sets the autogroup nice of `pid` (a process leading its own session, or this one); false if it may not. */
function autogroupNice(pid: number | 'self', nice: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    return false;
  }
}
/** The bench gateways' METRICS_TOKEN. */
const GC_METRICS_TOKEN = 'bench-index-metrics';

/**
 * A gateway's figures so far, from its /metrics: garbage collections by kind (minor, major,
 * incremental), count and seconds; the connections it opened to PostgreSQL; its young generation (MB).
 */
async function gatewayCounts(
  origin: string,
): Promise<{ gc: Map<string, { count: number; sum: number }>; connections: number; youngMb: number }> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${GC_METRICS_TOKEN}` } });
  const text = await res.text();
  const gc = new Map<string, { count: number; sum: number }>();
  for (const m of text.matchAll(
    /^launchpad_nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm,
  )) {
    const kind = gc.get(m[2] as string) ?? { count: 0, sum: 0 };
    kind[m[1] as 'sum' | 'count'] = Number(m[3]);
    gc.set(m[2] as string, kind);
  }
  const connections = Number(/^launchpad_db_connections_opened_total (\S+)$/m.exec(text)?.[1] ?? 0);
  const young = /^launchpad_nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m.exec(text)?.[1];
  return { gc, connections, youngMb: Number(young ?? NaN) / 2 ** 20 };
}

/** A figure in ms, or – when there is none (no answer counted). */
const ms = (v: number | null, digits = 2) => (v === null ? '–' : v.toFixed(digits));
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;

/**
 * ms; `failed`: answers other than 200 (not in the figures); `perS`: answers a second; `paused`: answers
 * not counted, since their request overlapped a reset of the ingest loop; `stalledMs`: the read clients'
 * own longest stall (bench/readClients.ts).
 */
type Latency = {
  p50: number;
  p99: number;
  n: number;
  failed?: number;
  perS?: number;
  paused?: number;
  stalledMs?: number;
  /** The machine's longest stall during the run (bench/machineProbe.ts), when one was over STALL_MS. */
  machineMs?: number;
};

/**
 * The machine's own stalls (bench/machineProbe.ts): when each ended (epoch ms) and how long it was,
 * from a thread at real-time priority where this process may start one (root, chrt).
 */
const machineStalls: { at: number; ms: number }[] = [];
/** Starts the machine's probe; says at which priority it runs. */
async function startMachineProbe(stops: (() => Promise<unknown>)[]): Promise<string> {
  const realtime = process.getuid?.() === 0 && existsSync('/usr/bin/chrt');
  const node = [process.execPath, 'bin/run-ts.js', 'bench/machineProbe.ts'];
  const [command, ...args] = realtime ? ['/usr/bin/chrt', '-f', '1', ...node] : node;
  const child = spawnInOwnSession(command as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  stops.push(async () => void child.kill('SIGTERM'));
  let partial = '';
  await new Promise<void>((ready, failed) => {
    child.once('exit', () => failed(new Error('the machine probe ended')));
    child.stdout?.on('data', (d) => {
      const lines = (partial + String(d)).split('\n');
      partial = lines.pop() as string;
      for (const line of lines) {
        if (line === 'ready') ready();
        const m = /^stall (\d+) ([\d.]+)$/.exec(line);
        if (m) machineStalls.push({ at: Number(m[1]), ms: Number(m[2]) });
      }
    });
  });
  return realtime ? 'real-time priority (SCHED_FIFO 1)' : 'default priority (not root)';
}
/** How long the host probe keeps each core busy, in seconds. */
const HOST_SECONDS = 10;
/**
 * The host's pauses, before anything of the bench runs: processes that keep one core busy (then both)
 * for HOST_SECONDS each (bench/machineProbe.ts spin); how often, and how long at most, one was paused
 * over 10 ms. On the bench's VM a core was taken for 10-12 ms about once a second when both were busy,
 * real-time priority or not, and for a few ms at most when one was (docs/BENCHMARKS.md).
 */
async function hostPauses(cores: number): Promise<{ over10: number; worstMs: number }> {
  const spins = Array.from({ length: cores }, () => {
    const child = spawnInOwnSession(
      process.execPath,
      ['bin/run-ts.js', 'bench/machineProbe.ts', 'spin', String(HOST_SECONDS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    return new Promise<{ over10: number; worstMs: number }>((done, failed) =>
      child.once('exit', (code) =>
        code === 0 ? done(JSON.parse(out)) : failed(new Error(`the host probe ended with ${code}`)),
      ),
    );
  });
  const each = await Promise.all(spins);
  return {
    over10: each.reduce((n, s) => n + s.over10, 0),
    worstMs: Math.max(...each.map((s) => s.worstMs)),
  };
}

/** The longest machine stall that ended between `from` and `to` (epoch ms), 0 when none. */
const machineStallIn = (from: number, to: number) =>
  Math.max(0, ...machineStalls.filter((s) => s.at >= from && s.at <= to).map((s) => s.ms));

/**
 * The ingest loop's resets between its passes (bench/ingestLoop.ts: it deletes and vacuums the 1.6M rows
 * a pass wrote, the bench's own work, not the indexer's): reads are counted only while it ingests. The
 * read clients running are told when a reset begins and ends (SIGUSR1, SIGUSR2).
 */
const resets = new Pauses();
/** The read clients running, told of each reset. */
const readers = new Set<ChildProcess>();
/** Follows a line of the ingest loop. */
function ingestLine(line: string) {
  if (line === 'resetting' && !resets.now) {
    resets.begin();
    for (const r of readers) r.kill('SIGUSR1');
  } else if (line === 'ingesting' && resets.now) {
    resets.end();
    for (const r of readers) r.kill('SIGUSR2');
  }
}

/**
 * p50 and p99 (ms) of each path, read by CLIENTS clients taking them in turn for SECONDS outside resets
 * (or, with `until`, until it settles), from their own process (bench/readClients.ts): at RATE requests
 * a second each, or with `rate` 0 as fast as answers come (the throughput).
 */
async function readLoad(
  origin: string,
  headers: Record<string, string>,
  paths: string[],
  { rate = RATE, until }: { rate?: number; until?: () => Promise<unknown> } = {},
): Promise<Latency[]> {
  const options = {
    origin,
    paths,
    headers,
    connections: CLIENTS,
    seconds: until ? 0 : SECONDS * paths.length,
    rate,
  };
  const from = Date.now();
  const child = spawnInOwnSession(
    process.execPath,
    ['bin/run-ts.js', 'bench/readClients.ts', JSON.stringify(options)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  autogroupNice(child.pid as number, MEASURING_NICE);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
    // Ready: it handles the reset signals from now on, and is told of one under way.
    if (!readers.has(child) && out.startsWith('ready\n')) {
      readers.add(child);
      if (resets.now) child.kill('SIGUSR1');
    }
  });
  const exited = new Promise<string | null>((r) =>
    child.once('exit', (code, signal) => r(code === 0 ? null : `${code ?? signal}`)),
  );
  if (until)
    try {
      await until();
    } finally {
      child.kill('SIGTERM');
    }
  const failure = await exited;
  readers.delete(child);
  // Its figures, once printed, are its own however it then ended (a reset's signal may reach it as it
  // exits, when it handles them no more).
  const [, figures] = out.trim().split('\n');
  if (!figures) throw new Error(`the read clients failed (${failure}) on ${paths.join(', ')}`);
  const machineMs = machineStallIn(from, Date.now());
  return (JSON.parse(figures) as Latency[]).map((l) => ({ ...l, machineMs }));
}

/**
 * p50 and p99 (ms) of `call` made by CLIENTS clients at RATE a second each for SECONDS outside resets,
 * timed as the read clients time theirs (the baseline's own client, in this process).
 */
async function measure(call: () => Promise<void>): Promise<Latency> {
  // (This process's weight only while it measures: it also runs the market refresh.)
  autogroupNice('self', MEASURING_NICE);
  try {
    for (let i = 0; i < 20; i++) await call(); // warm
    const ms: number[] = [];
    const t0 = performance.now();
    const stopped = () => resets.counted(t0, SECONDS);
    await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) =>
        paced({ rate: RATE, t0: t0 + (c * 1000) / RATE / CLIENTS, end: Infinity, stopped }, call, (_k, t) => {
          if (!resets.overlaps(performance.now() - t)) ms.push(t);
        }),
      ),
    );
    ms.sort((a, b) => a - b);
    return { p50: pct(ms, 50), p99: pct(ms, 99), n: ms.length };
  } finally {
    autogroupNice('self', 0);
  }
}

export async function benchIndex() {
  // (Not under the home folder: the database server may run as its own user, who must reach it.)
  const keep = process.env.BENCH_INDEX_DIR ?? join('/var/tmp', `launchpad-gateway-bench-index-${FACTOR}`);
  const marker = join(keep, 'generated.json');
  const wanted = JSON.stringify({ version: GENERATOR_VERSION, scale: SCALE });
  if (existsSync(marker) && readFileSync(marker, 'utf8') !== wanted)
    rmSync(keep, { recursive: true, force: true });
  const host = tuneHost(SHARED_BUFFERS_BYTES);
  // (The server runs as the postgres user when the bench runs as root: it must be able to write there.)
  if (process.env.BENCH_PG_LOG) {
    mkdirSync(process.env.BENCH_PG_LOG, { recursive: true });
    chmodSync(process.env.BENCH_PG_LOG, 0o777);
  }
  const cluster = await startPostgresCluster({ keep, settings: PG_SETTINGS, env: PG_ENV });
  const weighted = autogroupNice('self', MEASURING_NICE) && autogroupNice('self', 0);
  const pgSettings = Object.entries(PG_SETTINGS)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  console.log(
    `\n(The host: ${host.described}. PostgreSQL as deploy/compose.yaml runs it: ${pgSettings}; its allocator: ${PG_ENV.GLIBC_TUNABLES}. The devnet nodes' allocator: ${NODE_ALLOCATOR}. The measuring clients: ${weighted ? `autogroup nice ${MEASURING_NICE}` : 'default weight (not root)'})`,
  );
  const oneBusy = await hostPauses(1);
  const bothBusy = await hostPauses(2);
  console.log(
    `\n(The host itself, the machine otherwise idle (bench/machineProbe.ts spin): one core kept busy for ${HOST_SECONDS} s was paused over 10 ms ${oneBusy.over10} times, at most ${oneBusy.worstMs.toFixed(1)} ms; both cores busy, ${bothBusy.over10} times in ${HOST_SECONDS} s, at most ${bothBusy.worstMs.toFixed(1)} ms)`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-index-'));
  // (Every anvil this process starts inherits it: the devnet nodes and the gateways' own node.)
  process.env._RJEM_MALLOC_CONF = NODE_ALLOCATOR;
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const env: Record<string, string> = {
      ...devnetEnv(devnet, dataDir),
      DATABASE_URL: cluster.url,
      LAUNCHPAD_DATA_DIR: dataDir,
    };
    const deployments = Deployments.load(env.MANIFESTS_DIR as string);
    const escrows = Object.fromEntries(
      devnet.chains.map((c) => [c.chain_id, deployments.get(c.chain_id)?.suites[0]?.contracts.fee_escrow]),
    ) as Record<number, string>;
    const database = await openDatabase(loadSettings(env));
    stops.push(() => database.close());
    console.log(
      `\n## The index at scale on PostgreSQL: ${Object.entries(SCALE)
        .map(([k, v]) => `${v.toLocaleString('en')} ${k}`)
        .join(', ')}`,
    );
    if (!existsSync(marker)) {
      const t = performance.now();
      await generateIndex(database, SCALE, escrows, (line) => console.log(`- generated ${line}`));
      writeFileSync(marker, wanted);
      console.log(`generated in ${((performance.now() - t) / 1000).toFixed(0)} s (kept in ${keep})`);
    } else {
      console.log(`(the generated index kept in ${keep} from an earlier run)`);
      // A run that stopped inside its market refresh left the rows it rewrote: they are put back.
      if (await restoreMarket(database)) console.log('(market rows put back as generated)');
      if (await upgradeMarket(database, SCALE))
        console.log('(market rows given their usd_source, or generated again)');
      if (await upgradeHolders(database))
        console.log('(holder rows given their balances, tokens their counts)');
    }
    // The generated chains' native USD price, as their refresh would have read it from a feed, and their
    // rows' usd_sources as it would have recorded them (every generated token is native-quoted).
    await sql`update market_state set native_usd = 2000, native_usd_at = chain_time where native_usd is null`.execute(
      database.db,
    );
    await sql`update market_state set usd_sources = ${1 << 2} where usd_sources is null`.execute(database.db);
    // The devnet's escrows are those its deployment made this time.
    for (const [chain, escrow] of Object.entries(escrows))
      for (const table of ['fee_events', 'fee_positions'])
        await sql`update ${sql.table(table)} set escrow = ${escrow} where chain_id = ${Number(chain)} and escrow <> ${escrow}`.execute(
          database.db,
        );
    // That update, and the ingest loop's passes of earlier runs (insert, delete, vacuum), leave these
    // tables' indexes larger at each run (fee_events' 230 -> 546 bytes a row in two runs): rebuilt, so
    // that runs compare. (trades' grow by a few percent a run; rebuilding them takes minutes.)
    for (const table of ['fee_events', 'fee_positions', 'fee_credits']) {
      await sql`reindex table ${sql.table(table)}`.execute(database.db);
      await sql`vacuum analyze ${sql.table(table)}`.execute(database.db);
    }
    await disk(database);

    // The devnet chain the indexer backfills meanwhile: a launch and its swaps, 1,000 a transaction.
    const chain = new TestChain(
      devnet.chains.find((c) => c.chain_id === 8453) as (typeof devnet.chains)[number],
    );
    const t = performance.now();
    const { head } = await chain.launchWithSwaps(INGEST_TRADES, SWAPS_PER_TX);
    console.log(
      `\n### Ingest: ${INGEST_TRADES.toLocaleString('en')} swaps on the devnet (${SWAPS_PER_TX} a transaction, one a block), made in ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    const first = Math.min(...(deployments.get(8453)?.suites ?? []).map((s) => s.first_block));
    const getLogs = await logsAlone(chain.chain.rpc_url, first, head);
    // The gateways read live state (fee claims' owed()) from a node of their own, a copy of the devnet
    // chain at its head, as a deployment points its indexer's backfill at another endpoint than its
    // replicas' reads: anvil answers one request at a time while it builds a range's logs.
    const readNode = await startReadNode(chain.chain.rpc_url, head, await freePortRange(1));
    stops.push(() => readNode.stop());

    // Two gateways: as shipped (identical list requests within PAGE_SHARE_MS share one read), and one
    // where every request reads the database (the database's own figures). Each, like the indexer, the
    // read clients and every anvil, runs in a session (so a scheduling group) of its own, as a
    // deployment's services do in their containers or units (bench/support.ts: ownSessions): in the
    // bench's one group they had shared a group's CPU with the devnet node and the indexer, while each
    // PostgreSQL backend has a group of its own (it calls setsid); the bench's own process, which times
    // the bare `select 1`, is then alone in its group. (Newest tokens' p99 while ingesting: 40 -> 15 ms.)
    const startGateway = async (extra: Record<string, string>) => {
      const server = await startServer(
        ['bin/launchpad.js', 'start'],
        {
          ...env,
          RPC_URL_8453: readNode.url,
          PORT: '0',
          LOG_LEVEL: 'silent',
          LIMITS: 'off',
          INDEXER: 'off',
          DEVNET: 'off',
          // (As deployed: /metrics on; the bench reads its garbage-collection figures.)
          METRICS_TOKEN: GC_METRICS_TOKEN,
          ...(process.env.PROFILE_GATEWAY
            ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROFILE_GATEWAY}` }
            : {}),
          ...extra,
        },
        { ownSession: true },
      );
      stops.push(() => server.stop());
      return server;
    };
    const shared = await startGateway({});
    // (Its own data dir: a data dir serves one gateway.)
    const reading = await startGateway({ PAGE_SHARE_MS: '0', LAUNCHPAD_DATA_DIR: join(dataDir, 'reading') });
    const { key: apiKey } = await new ApiKeyStore(database, loadSettings(env).keyPrefix).create({
      plan: 'partner',
      scopes: ['*'],
      origins: [],
      overrides: {},
    });
    const headers = { 'x-api-key': apiKey };
    const get = async (url: string) => {
      const r = await fetch(`${reading.url}${url}`, { headers });
      const body = await r.text();
      if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${body.slice(0, 300)}`);
      return JSON.parse(body) as { pagination?: { next_cursor: string | null } };
    };
    const { rows } = await sql<{ creator: string }>`select creator from tokens where chain_id = 8453
      order by created_at desc limit 1`.execute(database.db);
    const reads = hotReads(SCALE, rows[0]?.creator as string);
    /** The URL of a list's page n, walked through its cursors. */
    const pageN = async (url: string, n: number) => {
      let at = url;
      for (let i = 1; i < n; i++) {
        const next = (await get(at)).pagination?.next_cursor;
        if (!next) throw new Error(`${url} has fewer than ${n} pages`);
        at = `${url}&cursor=${encodeURIComponent(next)}`;
      }
      return at;
    };
    const deep = {
      'tokens newest': await pageN(reads['tokens newest'] as string, DEEP),
      'trades, hot token': await pageN(reads['trades, hot token'] as string, DEEP),
      'holders, hot token': await pageN(reads['holders, hot token'] as string, DEEP),
    };

    // The same reads before the ingest starts (each request reads, same load): what they cost with the
    // cores to themselves, beside the figures while ingesting, which the targets judge.
    const probe = await startMachineProbe(stops);
    const only = new RegExp(process.env.BENCH_INDEX_ONLY ?? '');
    const chosen = Object.entries(reads).filter(([l]) => only.test(l));
    const pool = new pg.Pool({ connectionString: cluster.url, max: CLIENTS });
    stops.push(() => pool.end());
    const baselineBefore = await measure(async () => void (await pool.query('select 1')));
    const before: Record<string, Latency> = {};
    for (const [label, url] of chosen) {
      before[label] = ((await readLoad(reading.url, headers, [url])) as [Latency])[0];
      // The gateway as shipped gets the same load meanwhile (not shown): it starts the judged runs as warm
      // as the other, its young generation grown to the load. (Cold, V8's young generation starts at 1 MB:
      // over the judged runs of four reads it collected 129–210 times, against 5 warm.)
      await readLoad(shared.url, headers, [url]);
    }

    const ingest = spawnInOwnSession(process.execPath, ['bin/run-ts.js', 'bench/ingestLoop.ts'], {
      env: {
        ...process.env,
        ...env,
        INGEST_HEAD: String(head),
        ...(process.env.PROFILE_INGEST
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROFILE_INGEST}` }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let ingestOut = '';
    let partial = '';
    /** When each pass of the ingest ended (performance.now()). */
    const passEnds: number[] = [];
    ingest.stdout?.on('data', (d) => {
      ingestOut += d;
      const lines = (partial + String(d)).split('\n');
      partial = lines.pop() as string;
      for (const line of lines) {
        if (line.startsWith('pass ')) passEnds.push(performance.now());
        ingestLine(line.trim());
      }
    });
    // (Stopped in a reset, it ingests no more: reads after it are counted.)
    ingest.once('exit', () => ingestLine('ingesting'));
    const stopIngest = async () => {
      if (ingest.exitCode !== null) return;
      const exited = new Promise((r) => ingest.once('exit', r));
      ingest.kill('SIGTERM');
      await exited;
    };
    stops.push(stopIngest);
    const port = new URL(chain.chain.rpc_url).port;
    const ingestWeighted =
      autogroupNice(ingest.pid as number, INGEST_NICE) &&
      processesWith(['--port', port]).every((pid) => autogroupNice(pid, NODE_NICE));
    console.log(
      ingestWeighted
        ? `\n(CPU weights meanwhile: the ingest at autogroup nice ${INGEST_NICE}, as deployed; the devnet node, standing for a remote provider, at ${NODE_NICE})`
        : '\n(CPU weights meanwhile: the default (not root))',
    );
    while (!ingestOut.includes('ingesting')) await new Promise((r) => setTimeout(r, 100));

    const readsFrom = performance.now();
    const baseline = await measure(async () => void (await pool.query('select 1')));
    // Fee claims read what is owed live from the gateways' node: its round trip (a bare eth_blockNumber,
    // 8 concurrent) is their floor; the devnet node's, which the indexer backfills from, beside it.
    const node = new RpcEndpoint(chain.chain.rpc_url, 30_000);
    const nodeTrip = await measure(async () => void (await node.request('eth_blockNumber', [])));
    const ownNode = new RpcEndpoint(readNode.url, 30_000);
    const ownTrip = await measure(async () => void (await ownNode.request('eth_blockNumber', [])));
    console.log(
      `\n### Reads, ${CLIENTS} concurrent clients over loopback HTTP, ${RATE} requests a second each (${CLIENTS * RATE} a second in all), for ${SECONDS} s each, while the indexer backfills the ${INGEST_TRADES.toLocaleString('en')} swaps; and the throughput of ${CLIENTS} clients sending as fast as answers come`,
    );
    console.log(
      '| read | each request reads: p50 ms | p99 ms | p99 / select 1 p99 | shared pages (as shipped): p50 ms | p99 ms | each request reads, as fast as answers come: answers/s | its p50 ms | before the ingest, each request reads: p50 ms | p99 ms |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| bare \`select 1\` (baseline) | ${baseline.p50.toFixed(2)} | ${baseline.p99.toFixed(2)} | 1.0 | | | | | ${baselineBefore.p50.toFixed(2)} | ${baselineBefore.p99.toFixed(2)} |`,
    );
    console.log(
      `| bare \`eth_blockNumber\` to the gateways' node (the floor of the live fee-claims read) | ${ownTrip.p50.toFixed(2)} | ${ownTrip.p99.toFixed(2)} | ${(ownTrip.p99 / baseline.p99).toFixed(1)} | | | | | | |`,
    );
    console.log(
      `| bare \`eth_blockNumber\` to the devnet node the indexer backfills from | ${nodeTrip.p50.toFixed(2)} | ${nodeTrip.p99.toFixed(2)} | ${(nodeTrip.p99 / baseline.p99).toFixed(1)} | | | | | | |`,
    );
    const results: Record<string, Latency> = {};
    const sharedResults: Record<string, Latency> = {};
    const gcFrom = [
      ['each request reads', reading, await gatewayCounts(reading.url)],
      ['shared pages', shared, await gatewayCounts(shared.url)],
    ] as const;
    // The reads the targets judge, at the fixed load, first; the throughput runs (clients as fast as
    // answers come, past what the cores serve: nothing else runs then, the ingest least of all) after
    // them, so that the ingest's first pass is timed beside the reads in target, as its target asks.
    for (const [label, url] of chosen) {
      results[label] = ((await readLoad(reading.url, headers, [url])) as [Latency])[0];
      sharedResults[label] = ((await readLoad(shared.url, headers, [url])) as [Latency])[0];
    }
    const deepRuns: [string, Latency, Latency][] = [];
    for (const [label, url] of Object.entries(deep)) {
      const [first, thousandth] = (await readLoad(reading.url, headers, [reads[label] as string, url])) as [
        Latency,
        Latency,
      ];
      deepRuns.push([label, first, thousandth]);
    }
    const gcTo = await Promise.all(gcFrom.map(([, server]) => gatewayCounts(server.url)));
    const pacedDone = performance.now();
    const throughput: Record<string, Latency> = {};
    for (const [label, url] of chosen)
      throughput[label] = ((await readLoad(reading.url, headers, [url], { rate: 0 })) as [Latency])[0];
    for (const [label] of chosen) {
      const r = results[label] as Latency;
      const s = sharedResults[label] as Latency;
      const c = throughput[label] as Latency;
      const b = before[label] as Latency;
      const failed = (x: Latency) => (x.failed ? ` (${x.failed} of ${x.failed + x.n} not 200)` : '');
      console.log(
        `| ${label} | ${ms(r.p50)}${failed(r)} | ${ms(r.p99)} | ${(r.p99 / baseline.p99).toFixed(1)} | ${ms(s.p50)}${failed(s)} | ${ms(s.p99)} | ${(c.perS ?? 0).toFixed(0)}${failed(c)} | ${ms(c.p50)} | ${ms(b.p50)}${failed(b)} | ${ms(b.p99)} |`,
      );
    }
    console.log(
      `\n| page ${DEEP.toLocaleString('en')} against page 1, taken in turn (each request reads) | p50 ms | p99 ms | p50 ratio |`,
    );
    console.log('|---|---:|---:|---:|');
    let deepRatio = 0;
    const deepResults: Latency[] = [];
    for (const [label, first, thousandth] of deepRuns) {
      deepRatio = Math.max(deepRatio, thousandth.p50 / first.p50);
      deepResults.push(first, thousandth);
      console.log(`| ${label}, page 1 | ${first.p50.toFixed(2)} | ${first.p99.toFixed(2)} | 1.0 |`);
      console.log(
        `| ${label}, page ${DEEP.toLocaleString('en')} | ${thousandth.p50.toFixed(2)} | ${thousandth.p99.toFixed(2)} | ${(thousandth.p50 / first.p50).toFixed(2)} |`,
      );
    }
    // A collection stops a gateway's every request in flight: their count and mean pause while the reads
    // at the fixed load ran (from /metrics, as an operator sees them).
    gcFrom.forEach(([name, , from], i) => {
      const to = gcTo[i] as Awaited<ReturnType<typeof gatewayCounts>>;
      const of = (kind: string) => {
        const n = (to.gc.get(kind)?.count ?? 0) - (from.gc.get(kind)?.count ?? 0);
        const s = (to.gc.get(kind)?.sum ?? 0) - (from.gc.get(kind)?.sum ?? 0);
        return `${n} ${kind}, mean ${n ? ms((s * 1000) / n) : '–'} ms`;
      };
      // (A connection opened meanwhile cost the request that waited for it a server process, a login and
      // cold caches: src/store/db.ts.)
      console.log(
        `\n(The gateway's garbage collection over the reads at the fixed load above, ${name}: ${['minor', 'major', 'incremental'].map(of).join('; ')}. Connections it opened to PostgreSQL meanwhile: ${to.connections - from.connections}, ${to.connections} since it started. Its young generation: ${from.youngMb.toFixed(0)} MB before, ${to.youngMb.toFixed(0)} MB after.)`,
      );
    });
    // The measuring side's own stalls: a p99 over the target within one of the clients' own stalls may
    // be the clients' (every request in flight waits with them), not the gateway's.
    const runs = [
      ...Object.entries(results),
      ...Object.entries(sharedResults).map(([l, r]) => [`${l} (shared)`, r] as const),
    ];
    const theirs = runs.filter(([, r]) => r.p99 > 10 && (r.stalledMs ?? 0) >= r.p99);
    console.log(
      `\n(The read clients' own event loop was held up more than 10 ms in ${runs.filter(([, r]) => (r.stalledMs ?? 0) > 10).length} of ${runs.length} runs, at most ${ms(Math.max(0, ...runs.map(([, r]) => r.stalledMs ?? 0)), 0)} ms. Runs whose p99 is over 10 ms and within such a stall: ${theirs.length ? theirs.map(([l, r]) => `${l} (p99 ${ms(r.p99, 1)} ms, stall ${ms(r.stalledMs ?? null, 0)} ms)`).join(', ') : 'none'}.)`,
    );
    // The machine's own stalls meanwhile: what no process of the bench, the gateway's least, decides.
    const stalled = (list: Latency[]) => list.filter((r) => (r.machineMs ?? 0) > 10);
    const worst = (list: Latency[]) => ms(Math.max(0, ...list.map((r) => r.machineMs ?? 0)), 0);
    const judged = runs.map(([, r]) => r);
    const beforeRuns = Object.values(before);
    const overWithStall = runs.filter(([, r]) => r.p99 > 10 && (r.machineMs ?? 0) > 10);
    console.log(
      `\n(The machine itself: a thread that only sleeps 1 ms at a time, at ${probe} (bench/machineProbe.ts), woke more than 10 ms late in ${stalled(judged).length} of these ${runs.length} runs, at most ${worst(judged)} ms; in ${stalled(beforeRuns).length} of the ${beforeRuns.length} runs before the ingest, at most ${worst(beforeRuns)} ms. Runs whose p99 is over 10 ms with such a stall: ${overWithStall.length ? overWithStall.map(([l, r]) => `${l} (p99 ${ms(r.p99, 1)} ms, stall ${ms(r.machineMs ?? null, 0)} ms)`).join(', ') : 'none'}.)`,
    );
    const readsDone = (performance.now() - readsFrom) / 1000;
    const counted = [...Object.values(results), ...Object.values(sharedResults), ...deepResults];
    const resetsMeanwhile = resets.countSince(readsFrom);
    console.log(
      `\n(Counted: ${counted.reduce((n, r) => n + r.n, 0).toLocaleString('en')} answers at ${RATE} a second each client. Not counted: ${counted.reduce((n, r) => n + (r.paused ?? 0), 0).toLocaleString('en')} whose request overlapped one of the ${resetsMeanwhile} resets of the ingest loop between its passes meanwhile, which delete and vacuum the rows a pass wrote.)`,
    );
    while (!ingestOut.includes('pass 1:') && ingest.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    const pass =
      /pass 1: (\d+) logs in (\d+) ms, (\d+) ranges, (\d+) failed, peak RSS by quarter of the logs: ([\d ]+) MB, CPU (\d+) ms/.exec(
        ingestOut,
      );
    if (!pass) throw new Error(`the ingest did not finish its first pass: ${ingestOut}`);
    const ingestS = Number(pass[2]) / 1000;
    const peaks = (pass[5] as string).split(' ').map(Number) as [number, number, number, number];
    console.log(
      `\n### Ingest of the devnet's ${INGEST_TRADES.toLocaleString('en')} swaps, from the suite's first block, while the reads above ran (${readsDone.toFixed(0)} s of reads)`,
    );
    console.log(
      `- eth_getLogs alone, every log of the range (baseline): ${getLogs.logs.toLocaleString('en')} logs in ${getLogs.s.toFixed(1)} s`,
    );
    console.log(
      `- the indexer: ${Number(pass[1]).toLocaleString('en')} logs applied in ${ingestS.toFixed(1)} s (${(ingestS / getLogs.s).toFixed(2)}x), ${pass[3]} ranges (${pass[4]} failed and tried again); its process's CPU time ${(Number(pass[6]) / 1000).toFixed(1)} s`,
    );
    console.log(`- the indexer's peak RSS by quarter of the logs it applied: ${peaks.join(', ')} MB`);
    // (Its first pass is the one judged; it should end while the reads at the fixed load run. The later
    // passes, each after a reset, are shown with the reads they overlapped.)
    const passes = [...ingestOut.matchAll(/pass (\d+): (\d+) logs in (\d+) ms, .*CPU (\d+) ms/g)];
    console.log(
      `- pass 1 ended ${passEnds[0] !== undefined && passEnds[0] <= pacedDone ? 'while the reads at the fixed load ran' : 'after the reads at the fixed load, during the throughput runs'} (${((pacedDone - readsFrom) / 1000).toFixed(0)} s of them)${
        passes.length > 1
          ? `; later passes: ${passes
              .slice(1)
              .map(
                (m, i) =>
                  `${m[1]}: ${(Number(m[3]) / 1000).toFixed(1)} s (${(Number(m[3]) / 1000 / getLogs.s).toFixed(2)}x, CPU ${(Number(m[4]) / 1000).toFixed(1)} s, ended ${(passEnds[i + 1] ?? Infinity) <= pacedDone ? 'in the reads at the fixed load' : 'in the throughput runs'})`,
              )
              .join(', ')}`
          : ''
      }`,
    );
    await stops.splice(stops.indexOf(stopIngest), 1)[0]?.();
    // (Read as shipped: the refresh is measured against the gateway users run, 8 clients meanwhile.)
    const refresh = await marketRefreshAtScale(database, deployments, (work) =>
      readLoad(shared.url, headers, [reads['tokens trending'] as string], { until: work }).then(
        (r) => r[0] as Latency,
      ),
    );
    for (const [how, figures] of [
      ['each request reads', results],
      ['shared pages, as shipped', sharedResults],
    ] as const) {
      const all = Object.values(figures);
      const worst99 = Math.max(...all.map((r) => r.p99));
      const worst50 = Math.max(...all.map((r) => r.p50));
      const failed = all.reduce((n, r) => n + (r.failed ?? 0), 0);
      target(
        `index reads at scale, every answer 200 (while ingesting; ${how})`,
        `${failed} not 200`,
        failed === 0,
      );
      target(
        `index reads at scale, p99 of every read <= 10 ms (while ingesting; ${how})`,
        `${worst99.toFixed(1)} ms`,
        worst99 <= 10,
      );
      target(
        `index reads at scale, p50 of every read <= 3 ms (while ingesting; ${how})`,
        `${worst50.toFixed(1)} ms`,
        worst50 <= 3,
      );
    }
    target(
      `page ${DEEP.toLocaleString('en')} through cursors within 1.5x of page 1 (p50, taken in turn)`,
      `${deepRatio.toFixed(2)}x`,
      deepRatio <= 1.5,
    );
    target(
      `ingest of ${INGEST_TRADES.toLocaleString('en')} swaps <= 3x eth_getLogs alone for the range (with the reads above meanwhile)`,
      `${(ingestS / getLogs.s).toFixed(2)}x`,
      ingestS / getLogs.s <= 3,
    );
    const early = Math.max(peaks[0], peaks[1]);
    const late = Math.max(peaks[2], peaks[3]);
    target(
      "indexer memory bounded: peak RSS over the second half of the logs it applied within 1.2x of the first half's",
      `${(late / early).toFixed(2)}x (${late} MB against ${early} MB)`,
      late <= 1.2 * early,
    );
    target(
      `full market refresh, all ${SCALE.tokens.toLocaleString('en')} tokens recomputed (every row marked), <= 60 s`,
      `${refresh.fullS.toFixed(1)} s`,
      refresh.fullS <= 60,
    );
    target(
      'token list p99 <= 10 ms during the full market refresh (as shipped)',
      `${ms(refresh.readsDuring.p99, 1)} ms`,
      refresh.readsDuring.p99 <= 10,
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await devnet.stop();
    await cluster.stop();
    host.restore();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The state files of the host's DAMON daemons that page memory out (proactive reclaim). */
function pageoutDaemons(): string[] {
  const root = '/sys/kernel/mm/damon/admin/kdamonds';
  const under = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^\d+$/.test(n)) : []);
  return under(root).flatMap((k) => {
    const actions = under(join(root, k, 'contexts')).flatMap((c) =>
      under(join(root, k, 'contexts', c, 'schemes')).map((n) =>
        readFileSync(join(root, k, 'contexts', c, 'schemes', n, 'action'), 'utf8').trim(),
      ),
    );
    return actions.includes('pageout') ? [join(root, k, 'state')] : [];
  });
}

/**
 * Sets the host as a production database host is set (README: The PostgreSQL host), where this process
 * may (root), each setting only where the host's own falls short; `restore` puts them back (also on
 * exit). `described` says what holds.
 * - Enough 2 MB pages for `sharedBytes` of PostgreSQL's shared memory (shared_buffers). In 4 KB pages,
 *   every new server process faults in each page of shared_buffers it touches, at about 100 µs a fault
 *   on this VM: a fresh connection's first read of a hot token's 24 h took 1.7 s (13,907 faults)
 *   against 0.42 s in 2 MB pages, and the full market refresh alone 77.6 s against 46.9 s.
 * - Reclaim ahead of need: kswapd keeps 2% of memory free (watermark_scale_factor 200, not 0.1%), and a
 *   transparent huge page is assembled in the background (defrag `defer`), not in the fault that asked
 *   for it. The index is larger than memory and the ingest writes it, so memory runs out each few
 *   seconds: with the kernel's defaults, the processes themselves reclaimed (29 times and 188
 *   compaction stalls in a second) and reads stalled all at once.
 * - No proactive reclaim: a DAMON daemon that pages out memory not touched for a few seconds (some
 *   virtual machines run one to hand memory back) evicts the index's pages between the reads that need
 *   them, which then wait on the disk. It is stopped for the run and started again after.
 */
function tuneHost(sharedBytes: number): { described: string; restore(): void } {
  const meminfo = () =>
    Object.fromEntries(
      readFileSync('/proc/meminfo', 'utf8')
        .split('\n')
        .map((l) => l.split(/:\s+/))
        .map(([k, v]) => [k, Number.parseInt(v ?? '0', 10)]),
    ) as Record<string, number>;
  const info = meminfo();
  const pages = Math.ceil((sharedBytes * 1.1) / ((info.Hugepagesize ?? 2048) * 1024));
  // (A setting of several words shows the one in force in brackets.)
  const read = (file: string) => {
    const text = readFileSync(file, 'utf8').trim();
    return /\[(\w+)\]/.exec(text)?.[1] ?? text;
  };
  const daemons = pageoutDaemons();
  const wanted: [file: string, value: string, short: (now: string) => boolean][] = [
    ['/proc/sys/vm/nr_hugepages', String(pages), (now) => Number(now) < pages],
  ];
  // (BENCH_INDEX_RECLAIM=host: the kernel's reclaim as the host has it, to compare.)
  if (process.env.BENCH_INDEX_RECLAIM !== 'host')
    wanted.push(
      ['/proc/sys/vm/watermark_scale_factor', '200', (now) => Number(now) < 200],
      ['/sys/kernel/mm/transparent_hugepage/defrag', 'defer', (now) => now === 'always' || now === 'madvise'],
      ...daemons.map((state): [string, string, (now: string) => boolean] => [
        state,
        'off',
        (now) => now === 'on',
      ]),
    );
  const undo: (() => void)[] = [];
  for (const [file, value, short] of wanted) {
    if (!existsSync(file)) continue;
    const before = read(file);
    if (!short(before)) continue;
    try {
      writeFileSync(file, value);
      undo.push(() => writeFileSync(file, before));
    } catch {
      // not root: the host's own setting stays
    }
  }
  const restore = () => {
    for (const u of undo.splice(0).reverse()) u();
  };
  process.once('exit', restore); // (also when the bench fails before its own `restore`)
  const m = meminfo();
  const huge = (m.HugePages_Total ?? 0) * (m.Hugepagesize ?? 0) * 1024 >= sharedBytes;
  const has = (file: string) => (existsSync(file) ? read(file) : 'n/a');
  return {
    described: `shared memory in ${huge ? '2 MB pages' : '4 KB pages (too few huge pages here)'}; vm.watermark_scale_factor ${has('/proc/sys/vm/watermark_scale_factor')}; transparent huge page defrag ${has('/sys/kernel/mm/transparent_hugepage/defrag')}; proactive reclaim (DAMON pageout) ${daemons.length === 0 ? 'none' : daemons.map(has).join(', ')}`,
    restore,
  };
}

/**
 * The scheduled market refresh of every chain over the generated index: a full one (every row marked
 * for rebuilding: each token's row recomputed from its trade totals and its last 24 h of trades) with the
 * trending list read by CLIENTS clients meanwhile, then an incremental one after the native USD price
 * moved (only tokens with trades since, or in the last 24 h). The generated tokens are not on a chain:
 * the refresh's block read is answered with the generated chain's time, a never-traded pool's price
 * with the generated one (1:1), and its price-feed read fails (no USD price: that is the move).
 */
async function marketRefreshAtScale(
  database: Awaited<ReturnType<typeof openDatabase>>,
  deployments: Deployments,
  readWhile: (work: () => Promise<unknown>) => Promise<Latency>,
): Promise<{ fullS: number; readsDuring: Latency }> {
  const db = database.db;
  // The devnet chain's own rows go; each chain is indexed through its last generated block again.
  await sql`delete from token_market where chain_id = 8453 and address in
    (select address from tokens where chain_id = 8453 and block_number < ${FIRST_BLOCK})`.execute(db);
  await sql`delete from token_totals where chain_id = 8453 and address in
    (select address from tokens where chain_id = 8453 and block_number < ${FIRST_BLOCK})`.execute(db);
  await sql`delete from tokens where chain_id = 8453 and block_number < ${FIRST_BLOCK}`.execute(db);
  await sql`delete from trades where chain_id = 8453 and block_number < ${FIRST_BLOCK}`.execute(db);
  await sql`update index_state s set indexed_through = m.b, high_water = m.b from
    (select chain_id, max(block_number) b from trades group by chain_id) m where m.chain_id = s.chain_id`.execute(
    db,
  );
  // The refresh rewrites every market row: they are kept as they are and put back after.
  await keepMarket(database);
  try {
    return await refreshBoth(database, deployments, readWhile);
  } finally {
    const t = performance.now();
    await restoreMarket(database);
    console.log(`- (market rows put back in ${((performance.now() - t) / 1000).toFixed(0)} s)`);
  }
}

/** The full refresh (with reads meanwhile), then the incremental one after a moved native price. */
async function refreshBoth(
  database: Awaited<ReturnType<typeof openDatabase>>,
  deployments: Deployments,
  readWhile: (work: () => Promise<unknown>) => Promise<Latency>,
): Promise<{ fullS: number; readsDuring: Latency }> {
  const endpoint = generatedChainEndpoint();
  const chains = [8453, 4663, 143, 5042] as const;
  const run = async () => {
    const t = performance.now();
    const counts = await Promise.all(
      chains.map((chainId) => refreshMarket({ chainId, endpoint, database, deployments, nowMs: Date.now() })),
    );
    return { s: (performance.now() - t) / 1000, tokens: counts.reduce((a, b) => a + b, 0) };
  };
  const t = performance.now();
  await markMarketForRebuild(database);
  console.log('\n### Market refresh, the four chains side by side (as the indexers run it)');
  console.log(
    `- (every market row marked for rebuilding in ${((performance.now() - t) / 1000).toFixed(0)} s)`,
  );
  let full: { s: number; tokens: number } | undefined;
  const readsFrom = Date.now();
  const readsDuring = await readWhile(async () => (full = await run()));
  // The machine's own stalls meanwhile (see the reads above): in a refresh's long run, how many.
  const stalls = machineStalls.filter((st) => st.at >= readsFrom && st.ms > 10).map((st) => st.ms);
  const done = full as unknown as { s: number; tokens: number };
  // The native price the next refresh finds moved (its feed then reads as unavailable).
  await sql`update market_state set native_usd = 2000`.execute(database.db);
  const before = Date.now();
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from token_market where updated_at < ${before}`.execute(database.db);
  const incremental = await run();
  const { rows: after } = await sql<{
    n: string;
  }>`select count(*) as n from token_market where updated_at < ${before}`.execute(database.db);
  console.log(
    `- full (every row marked, every token recomputed): ${done.tokens.toLocaleString('en')} tokens in ${done.s.toFixed(1)} s`,
  );
  console.log(
    `- incremental right after, the native USD price moved meanwhile (tokens with trades since or in the last 24 h): ${incremental.tokens.toLocaleString('en')} tokens in ${incremental.s.toFixed(1)} s; rows it did not recompute and left as they were: ${Number(after[0]?.n).toLocaleString('en')} of ${Number(rows[0]?.n).toLocaleString('en')}`,
  );
  console.log(
    `- token list by trending meanwhile (as shipped), ${CLIENTS} clients at ${RATE} a second each: p50 ${ms(readsDuring.p50)} ms, p99 ${ms(readsDuring.p99)} ms (${readsDuring.n} requests); meanwhile the machine's probe woke over 10 ms late ${stalls.length} times (at most ${ms(Math.max(0, ...stalls), 0)} ms), and the read clients' own event loop was held up at most ${ms(readsDuring.stalledMs ?? null, 0)} ms`,
  );
  return { fullS: done.s, readsDuring };
}

/**
 * The baseline of the ingest: every log of blocks first..head, fetched with eth_getLogs and parsed,
 * nothing else, 2 blocks a request (20,000 logs, about as many as one of the indexer's ranges).
 */
async function logsAlone(url: string, first: number, head: number): Promise<{ logs: number; s: number }> {
  const endpoint = new RpcEndpoint(url, 120_000);
  const t = performance.now();
  let logs = 0;
  for (let from = first; from <= head; from += 2) {
    const range = { fromBlock: numberToHex(from), toBlock: numberToHex(Math.min(head, from + 1)) };
    const [found] = await endpoint.batchResults<unknown[]>([{ method: 'eth_getLogs', params: [range] }]);
    logs += found?.length ?? 0;
  }
  return { logs, s: (performance.now() - t) / 1000 };
}

/**
 * A node of the gateways' own: anvil holding a copy of the chain at `url` as of block `at`, with an
 * empty block of its own on top (it fetches the state it is asked for from there once, then answers
 * from its own copy), on 127.0.0.1:`port`.
 */
async function startReadNode(url: string, at: number, port: number) {
  // (Under the devnet's guard: it stops with this process, however this process ends.)
  const child = spawnAnvil([
    '--fork-url',
    url,
    '--fork-block-number',
    String(at),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--silent',
  ]);
  child.stderr?.resume();
  const node = new RpcEndpoint(`http://127.0.0.1:${port}`, 5_000);
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error("the gateways' node did not start");
    const ready = await node.request('eth_blockNumber', []).then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (tries > 200) throw new Error("the gateways' node did not answer");
    await new Promise((r) => setTimeout(r, 50));
  }
  // A block of its own: the fork's block stays the devnet's, whose header anvil asks the devnet for at
  // each read pinned to it (a snapshot pins the latest block), so that the gateways' live reads waited
  // for the devnet node busy with the ingest's eth_getLogs (fee claims' p50 12.9 ms in a run where that
  // node's own p99 was 158 ms). Past it, only state never read before is fetched from the devnet.
  await node.request('anvil_mine', ['0x1']);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin?.end();
      await exited;
    },
  };
}

/** Bytes per trade and per token, tables with their indexes, and each index's size. */
async function disk(database: Awaited<ReturnType<typeof openDatabase>>) {
  const db = database.db;
  // (A partitioned table's figures are its partitions'. Rows are counted, not taken from the planner's
  // estimate, which a kept index's churn between runs had moved: fee_events at 1.36M for 1M.)
  const { rows: sizes } = await sql<{ table: string; heap: string; indexes: string }>`
    select c.relname as table, sum(pg_table_size(t.relid)) as heap, sum(pg_indexes_size(t.relid)) as indexes
    from pg_class c cross join lateral (select relid from pg_partition_tree(c.oid) where isleaf
      union all select c.oid where c.relkind = 'r') t
    where c.relname in ('tokens', 'trades', 'token_holders', 'token_words', 'token_market', 'token_totals',
      'fee_credits', 'fee_events', 'fee_positions', 'announcements')
    group by c.relname order by sum(pg_total_relation_size(t.relid)) desc`.execute(db);
  const rows = [];
  for (const r of sizes) {
    const counted = await sql<{ n: string }>`select count(*) as n from ${sql.table(r.table)}`.execute(db);
    rows.push({ ...r, rows: counted.rows[0]?.n ?? '0' });
  }
  console.log('\n### Disk');
  console.log('| table | rows | table bytes/row | index bytes/row |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.table} | ${Number(r.rows).toLocaleString('en')} | ${(Number(r.heap) / Math.max(1, Number(r.rows))).toFixed(0)} | ${(Number(r.indexes) / Math.max(1, Number(r.rows))).toFixed(0)} |`,
    );
  const { rows: idx } = await sql<{ name: string; size: string }>`
    select c.relname as name, coalesce((select sum(pg_relation_size(t.relid))
      from pg_partition_tree(i.indexrelid) t), pg_relation_size(i.indexrelid)) as size
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid in ('tokens'::regclass, 'trades'::regclass, 'token_holders'::regclass,
      'token_market'::regclass, 'token_totals'::regclass) order by 2 desc`.execute(db);
  console.log(
    `indexes: ${idx.map((i) => `${i.name} ${(Number(i.size) / 2 ** 20).toFixed(0)} MB`).join(', ')}`,
  );
}
