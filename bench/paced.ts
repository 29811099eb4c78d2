// A client at a fixed offered load (open loop, as wrk2 does), shared by the index bench's read clients
// and its baseline.

/**
 * Calls `call(k)` for k = 0, 1, … at `rate` a second from `t0`, one call in flight, until `end` or until
 * `stopped()`, and hands `record` each call's time (ms). A call sent late because the one before it was
 * answered after it was due is timed from when it was due: that wait is what a caller at this rate would
 * see (no coordinated omission). One sent late by its own timer is timed from when it was sent: that is
 * the client's time, not the server's.
 */
export async function paced<T>(
  schedule: { rate: number; t0: number; end: number; stopped?: () => boolean },
  call: (k: number) => Promise<T>,
  record: (k: number, ms: number, result: T) => void,
): Promise<void> {
  const interval = 1000 / schedule.rate;
  let answered = 0; // when the call before was answered
  for (let k = 0; !schedule.stopped?.() && schedule.t0 + k * interval < schedule.end; k++) {
    const due = schedule.t0 + k * interval;
    const ahead = due - performance.now();
    if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
    const sent = performance.now();
    const result = await call(k);
    const start = answered > due ? due : sent;
    answered = performance.now();
    record(k, answered - start, result);
  }
}
