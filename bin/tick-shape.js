// Imported first by every entry point: keeps one of Node's nextTick objects alive for the life of the
// process. V8 holds the shape of those objects only weakly; a full collection while none is queued
// (startup loads enough code to run several) drops it, and every later process.nextTick takes a generic,
// several times slower path for good. One held object keeps the shape, and the fast path.
import { executionAsyncResource } from 'node:async_hooks';

/** The held tick object (inside a tick callback, the running async resource is the tick itself). */
export let heldTick;
process.nextTick(() => {
  heldTick = executionAsyncResource();
});
