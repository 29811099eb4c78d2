// The machine's own stalls, beside the index bench's reads: a thread that does nothing but sleep 1 ms
// at a time, started at real-time priority (`chrt -f 1`, root only), so that no process of the bench
// can keep it from a core while it runs user code. Each wake more than STALL_MS late is a stall of the
// machine itself: the hypervisor holding the virtual CPU, or kernel work that does not give the core
// up (this VM's kernel has no kernel preemption). Prints `ready`, then `stall <epoch ms> <ms late>` for
// each, until SIGTERM.
// With `spin <seconds>` it keeps one core busy instead, reading the clock in a loop, and prints the
// pauses it saw as JSON (`{over10, worstMs}`): on an idle machine, time a spinning process did not run
// is time the host took its core.
const STALL_MS = 5;

if (process.argv[2] === 'spin') {
  const end = performance.now() + Number(process.argv[3]) * 1000;
  let at = performance.now();
  let over10 = 0;
  let worstMs = 0;
  while (at < end) {
    const now = performance.now();
    const gap = now - at;
    if (gap > 10) over10++;
    if (gap > worstMs) worstMs = gap;
    at = now;
  }
  console.log(JSON.stringify({ over10, worstMs }));
  process.exit(0);
}

console.log('ready');
let at = performance.now();
const tick = () => {
  const now = performance.now();
  const late = now - at - 1;
  if (late > STALL_MS) console.log(`stall ${Math.round(performance.timeOrigin + now)} ${late.toFixed(1)}`);
  at = performance.now();
  setTimeout(tick, 1);
};
setTimeout(tick, 1);
process.on('SIGTERM', () => process.exit(0));
