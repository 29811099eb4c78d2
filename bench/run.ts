// npm run bench: every benchmark, each reporting against a baseline measured in the same run.
// BENCH_DURATION (s), BENCH_CONNECTIONS and BENCH_ROUNDS tune the load runs; `npm run bench -- limits` (http, limits, devnet, config, launch, swaps, indexer, ipfs,
// index, sustained, events, webhooks)
// runs one section.
import { benchConfig } from './config.ts';
import { benchDevnet } from './devnet.ts';
import { benchEvents } from './events.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchHttp } from './http.ts';
import { benchIndex } from './index.ts';
import { benchIndexer } from './indexer.ts';
import { benchIpfs } from './ipfs.ts';
import { benchLaunch } from './launch.ts';
import { benchLimits } from './limits.ts';
import { benchSustained } from './sustained.ts';
import { benchSwaps } from './swaps.ts';
import { targets } from './support.ts';

console.log(`# launchpad-gateway benchmarks (${new Date().toISOString()}, node ${process.version})`);
const only = process.argv[2];
if (!only || only === 'http') await benchHttp();
if (!only || only === 'limits') await benchLimits();
if (!only || only === 'devnet') await benchDevnet();
if (!only || only === 'config') await benchConfig();
if (!only || only === 'launch') await benchLaunch();
if (!only || only === 'swaps') await benchSwaps();
if (!only || only === 'indexer') await benchIndexer();
if (!only || only === 'index') await benchIndex();
if (!only || only === 'ipfs') await benchIpfs();
if (!only || only === 'sustained') await benchSustained();
if (!only || only === 'events') await benchEvents();
if (!only || only === 'webhooks') await benchWebhooks();

console.log('\n## Targets');
console.log('| target | value | verdict |');
console.log('|---|---|---|');
for (const t of targets)
  console.log(`| ${t.name} | ${t.value} | ${t.met === null ? 'not measured' : t.met ? 'met' : 'NOT met'} |`);
