// A test's view of GET /v1/events: the raw answer (status, headers, problem) or the parsed stream,
// with every event, comment and retry it carried, and a wait for the events a test expects.
import { createParser } from 'eventsource-parser';

export interface StreamEvent {
  id: string;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- inspected field by field
  data: any;
}

export interface TestStream {
  status: number;
  headers: Headers;
  /** The problem body when the answer was not a stream. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- inspected field by field
  problem: any;
  events: StreamEvent[];
  comments: string[];
  /** Every id the stream carried, the id-only start position first. */
  ids: string[];
  retry: number | undefined;
  /** Whether the server ended the stream. */
  ended: boolean;
  /** Waits until `pick` finds what it wants among the events (up to `ms`). */
  waitFor<T>(pick: (events: StreamEvent[]) => T | undefined, ms?: number): Promise<T>;
  close(): void;
}

export async function openStream(
  origin: string,
  key: string | undefined,
  query = '',
  headers: Record<string, string> = {},
): Promise<TestStream> {
  const abort = new AbortController();
  const res = await fetch(`${origin}/v1/events${query ? `?${query}` : ''}`, {
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    signal: abort.signal,
  });
  const stream: TestStream = {
    status: res.status,
    headers: res.headers,
    problem: undefined,
    events: [],
    comments: [],
    ids: [],
    retry: undefined,
    ended: false,
    async waitFor(pick, ms = 30_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = pick(stream.events);
        if (found !== undefined) return found;
        if (Date.now() > until)
          throw new Error(`not seen within ${ms} ms; events: ${stream.events.map((e) => e.event).join(',')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => abort.abort(),
  };
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.problem = await res.json().catch(() => undefined);
    return stream;
  }
  const parser = createParser({
    onEvent: (m) =>
      stream.events.push({ id: m.id as string, event: m.event as string, data: JSON.parse(m.data) }),
    onComment: (c) => stream.comments.push(c),
    onId: (id) => stream.ids.push(id),
    onRetry: (ms) => (stream.retry = ms),
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by the test
    }
    stream.ended = true;
  })();
  return stream;
}
