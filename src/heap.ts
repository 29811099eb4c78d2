// V8's heap settings of a serving process.
import v8 from 'node:v8';

/** How many times larger the young generation grows at once (V8's default: 2); up to its maximum. */
const YOUNG_GROWTH = 64;

/**
 * Sets V8's heap for serving (process-wide; called first, at start).
 *
 * No allocation-site pretenuring: under load V8 judged the sites that build a request's rows (pg's row
 * parsing among them) long-lived and allocated them in the old generation, where, dead a moment later,
 * they kept the young objects they point to alive through each scavenge: a reading gateway's scavenges
 * averaged 8.1 ms with it and 1.6 ms without it (bench index, 1M tokens, while ingesting). A request's
 * data lives for the request only.
 *
 * No memory reducer: after 100 s without a full collection its watchdog runs up to two collections that
 * compact the whole heap and shrink its limits, however busy the process (a gateway over the 1M-token
 * index, 8 clients: a 76 ms pause at 114 s, then more full collections under the shrunk limit; 186 ms in
 * a bench run). V8 reads its `memory_reducer` flag only when the heap is made, but the count of its
 * collections at each step: 0 has it stand down. (At start only: V8 checks that count against the
 * collections it has started, and it starts none in its first 8 s.)
 *
 * The young generation back to its size in one step: V8 shrinks it to its minimum (1 MB) at a scavenge
 * that finds the process allocating under 1 MB/s (an idle gateway's trickle does, within a few minutes),
 * and grows it again only by doubling, each time as much has survived as it holds. A gateway's requests
 * leave little alive, so it took hundreds of scavenges to regrow, each one a pause and each one promoting
 * what was then in flight: a gateway idle for 150 s then made 38–42 scavenges a 4 s run at 200 requests a
 * second (1–2 before its idle spell), and a full collection. V8 reads the factor at each step.
 */
export function servingHeap(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  v8.setFlagsFromString('--memory-reducer-gc-count=0');
  v8.setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH}`);
}
