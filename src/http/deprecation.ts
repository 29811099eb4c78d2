// Legacy request forms (spec: Versioning → Route replacements). Deprecated forms are rewritten to their
// focused route before routing, so they behave exactly like it, and answer with Deprecation + Link.
import type { IncomingMessage } from 'node:http';

/** RFC 9745 Structured-Field Date: when the combined forms were deprecated (2026-01-01T00:00:00Z). */
export const DEPRECATION_DATE = '@1767225600';
export const MIGRATION_PATH = '/launchpad/api/migration';

export interface Replacement {
  legacy: string;
  focused: string;
  retired?: boolean;
}

/** The spec's table, in the order it lists the forms; the docs page and OpenAPI read it too. */
export const REPLACEMENTS: Replacement[] = [
  { legacy: 'GET /v1/tokens?q=...', focused: 'GET /v1/tokens/search?q=...' },
  { legacy: 'GET /v1/tokens?creator=...', focused: 'GET /v1/creators/{address}/tokens' },
  {
    legacy: 'GET /v1/tokens/{chain}/{token}/activity?kind=trades',
    focused: 'GET /v1/tokens/{chain}/{token}/trades',
  },
  {
    legacy: 'GET /v1/tokens/{chain}/{token}/activity?kind=announcements',
    focused: 'GET /v1/tokens/{chain}/{token}/announcements',
  },
  { legacy: 'GET /v1/wallets/{address}/claims?kind=fee', focused: 'GET /v1/wallets/{address}/fee-claims' },
  { legacy: 'POST /v1/claims/prepare with kind=fee', focused: 'POST /v1/claims/fees/prepare', retired: true },
  {
    legacy:
      'POST /v1/tokens/{chain}/{token}/metadata/prepare with update_name, update_symbol or update_extra_metadata',
    focused: 'POST /v1/tokens/{chain}/{token}/metadata/onchain/prepare',
  },
  {
    legacy: 'POST /v1/tokens/{chain}/{token}/metadata/prepare with update_profile',
    focused: 'POST /v1/tokens/{chain}/{token}/metadata/document/prepare',
  },
  {
    legacy: 'POST /v1/tokens/{chain}/{token}/metadata/profile/prepare',
    focused: 'POST /v1/tokens/{chain}/{token}/metadata/document/prepare',
  },
];

const DEPRECATED = Symbol('launchpad.deprecated');
type Marked = IncomingMessage & { [DEPRECATED]?: string };

/** Marks a request as a deprecated form; `successor` is the focused path for the successor Link. */
export function markDeprecated(req: IncomingMessage, successor: string): void {
  (req as Marked)[DEPRECATED] = successor;
}

export function deprecatedSuccessor(req: IncomingMessage): string | undefined {
  return (req as Marked)[DEPRECATED];
}

export function deprecationHeaders(docsUrl: string, successor: string): Record<string, string> {
  return {
    deprecation: DEPRECATION_DATE,
    link: `<${docsUrl}${MIGRATION_PATH}>; rel="deprecation"; type="text/html", <${successor}>; rel="successor-version"`,
  };
}

function withQuery(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/**
 * fastify's rewriteUrl: maps a deprecated URL form to its focused route (or returns the URL unchanged).
 * Forms that are chosen by the request body (POST …/metadata/prepare) are dispatched by their route.
 */
export function rewriteLegacyUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!/^\/v1\/(tokens|wallets)(\/|$)/.test(path)) return url;
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  const method = req.method;
  let target: string | undefined;

  if (method === 'GET' && /^\/v1\/tokens\/?$/.test(path)) {
    const hasQ = params.has('q');
    const creator = params.getAll('creator');
    if (hasQ && creator.length === 0) target = withQuery('/v1/tokens/search', params);
    else if (!hasQ && creator.length === 1) {
      params.delete('creator');
      target = withQuery(`/v1/creators/${encodeURIComponent(creator[0] as string)}/tokens`, params);
    }
  } else if (method === 'GET') {
    const activity = /^(\/v1\/tokens\/[^/]+\/[^/]+)\/activity\/?$/.exec(path);
    const claims = /^(\/v1\/wallets\/[^/]+)\/claims\/?$/.exec(path);
    const kind = params.getAll('kind');
    if (activity && kind.length === 1 && (kind[0] === 'trades' || kind[0] === 'announcements')) {
      params.delete('kind');
      target = withQuery(`${activity[1]}/${kind[0]}`, params);
    } else if (claims && kind.length === 1 && kind[0] === 'fee') {
      params.delete('kind');
      target = withQuery(`${claims[1]}/fee-claims`, params);
    }
  } else if (method === 'POST') {
    const profile = /^(\/v1\/tokens\/[^/]+\/[^/]+\/metadata)\/profile\/prepare\/?$/.exec(path);
    if (profile) target = withQuery(`${profile[1]}/document/prepare`, params);
  }
  if (!target) return url;
  markDeprecated(req, target.split('?')[0] as string);
  return target;
}
