// npm run bench: every benchmark, each reporting against a baseline measured in the same run.
// BENCH_DURATION (s) and BENCH_CONNECTIONS tune the load runs.
import { benchHttp } from './http.ts';

console.log(`# launchpad-gateway benchmarks (${new Date().toISOString()}, node ${process.version})`);
await benchHttp();
