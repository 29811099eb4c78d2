// The live event stream (GET /v1/events) as an async iterator: Server-Sent Events read with fetch (the
// key goes in the x-api-key header, never in the URL) and parsed by eventsource-parser; a dropped
// connection is resumed after the last event's id, so the caller sees every event once, in order.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { components } from './openapi.ts';

export type EventData = components['schemas']['EventData'];
export type EventName = 'launch' | 'trade' | 'announcement' | 'fee_credit' | 'metadata' | 'removed';

export interface LaunchpadEvent {
  /** The resume cursor: pass it as `lastEventId` to continue after this event. */
  id: string;
  event: EventName;
  data: EventData;
}

export interface StreamEventsOptions {
  baseUrl: string;
  apiKey: string;
  chainId?: number;
  types?: readonly string[];
  tokenAddress?: string;
  confirmations?: number;
  /** Continue after this event id (from an earlier stream with the same filters). */
  lastEventId?: string;
  /** Stops the stream (the iterator then ends). */
  signal?: AbortSignal;
  /** Reconnections in a row without an event before giving up (default 10). */
  maxReconnects?: number;
  /** Called each time the stream is open (the gateway answered 200), the first time and after reconnections. */
  onOpen?: () => void;
}

/** A problem answer the stream cannot go on from (a bad filter, a stale id, a revoked key). */
export class EventStreamError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The gateway's events, in order, resumed across dropped connections; ends when `signal` aborts. */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<LaunchpadEvent> {
  const url = new URL(`${options.baseUrl.replace(/\/v1\/?$/, '').replace(/\/$/, '')}/v1/events`);
  if (options.chainId !== undefined) url.searchParams.set('chain_id', String(options.chainId));
  if (options.types?.length) url.searchParams.set('types', options.types.join(','));
  if (options.tokenAddress) url.searchParams.set('token_address', options.tokenAddress);
  if (options.confirmations !== undefined)
    url.searchParams.set('confirmations', String(options.confirmations));
  let lastId = options.lastEventId;
  let retryMs = 2000;
  let failures = 0;
  while (!options.signal?.aborted) {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          'x-api-key': options.apiKey,
          accept: 'text/event-stream',
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
        signal: options.signal,
      });
    } catch {
      if (options.signal?.aborted || ++failures > (options.maxReconnects ?? 10)) break;
      await sleep(retryMs, options.signal);
      continue;
    }
    if (response.status !== 200) {
      const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string };
      const wait = Number(response.headers.get('retry-after'));
      // Busy or away: wait as told; anything else will not change by asking again.
      if (
        (response.status === 429 || response.status >= 500) &&
        ++failures <= (options.maxReconnects ?? 10)
      ) {
        await sleep((wait > 0 ? wait : retryMs / 1000) * 1000, options.signal);
        continue;
      }
      throw new EventStreamError(response.status, problem.code ?? 'unknown', problem.detail ?? '');
    }
    options.onOpen?.();
    const ready: LaunchpadEvent[] = [];
    const parser = createParser({
      // Every id, the stream's start too (sent before any event): a reconnection resumes from it.
      onId: (id) => {
        if (id) lastId = id;
      },
      onEvent: (m: EventSourceMessage) => {
        if (!m.event || !m.id) return;
        ready.push({ id: m.id, event: m.event as EventName, data: JSON.parse(m.data) as EventData });
      },
      onRetry: (ms) => {
        retryMs = ms;
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        while (ready.length > 0) {
          const next = ready.shift() as LaunchpadEvent;
          failures = 0;
          yield next;
        }
      }
    } catch {
      // The connection dropped: resume after the last event.
    }
    if (options.signal?.aborted || ++failures > (options.maxReconnects ?? 10)) break;
    await sleep(retryMs, options.signal);
  }
}
