// The machine's own stalls, beside the index bench's reads: a thread that does nothing but sleep 1 ms
// at a time, started at real-time priority (`chrt -f 1`, root only), so that no process of the bench
// can keep it from a core while it runs user code. Each wake more than STALL_MS late is a stall of the
// machine itself: the hypervisor holding the virtual CPU, or kernel work that does not give the core
// up (this VM's kernel has no kernel preemption). Prints `ready`, then `stall <epoch ms> <ms late>` for
// each, until SIGTERM.
const STALL_MS = 5;

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
