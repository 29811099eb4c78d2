// A typed client of the Launchpad API, for TypeScript callers: openapi-fetch over the types generated from
// the gateway's own OpenAPI document (src/client/openapi.ts). Paths, parameters, bodies and 200 answers
// are checked by the compiler.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi.ts';

export type { components, paths } from './openapi.ts';
export type LaunchpadClient = Client<paths>;

/**
 * A client for the gateway at baseUrl (e.g. http://127.0.0.1:8080), sending apiKey as x-api-key. With
 * `retries` (default 3), a 429 is retried after its Retry-After (at most 60 s), as the API asks.
 */
export function createLaunchpadClient(
  baseUrl: string,
  apiKey?: string,
  options: { retries?: number } = {},
): LaunchpadClient {
  const retries = options.retries ?? 3;
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/v1\/?$/, '').replace(/\/$/, ''),
    headers: apiKey ? { 'x-api-key': apiKey } : {},
    fetch: async (request: Request) => {
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(request.clone());
        const wait = Number(response.headers.get('retry-after'));
        if (response.status !== 429 || attempt >= retries || !(wait >= 0 && wait <= 60)) return response;
        await response.body?.cancel();
        await new Promise((r) => setTimeout(r, wait * 1000 + 50));
      }
    },
  });
}

export { type EventData, EventStreamError, type LaunchpadEvent, streamEvents } from './events.ts';
