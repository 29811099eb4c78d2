// Every route of the spec (and the routes REFERENCE.md proposes), with the scope it needs: the one place
// that says which key scope an operation takes. Routes without a module yet answer not_found after auth.
import type { Scope } from '../store/scopes.ts';

export interface RouteEntry {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below /v1, in fastify syntax. */
  url: string;
  /** Key scope; null = no key (health, documents). */
  scope: Scope | null;
  summary: string;
  tag: string;
  /** Idempotency-Key: required (launch, metadata document), or honoured when sent (every other POST). */
  idempotency?: 'required' | 'optional';
}

export const ROUTES = {
  health: { method: 'GET', url: '/health', scope: null, summary: 'Service health', tag: 'health' },
  openapi: {
    method: 'GET',
    url: '/openapi.json',
    scope: null,
    summary: 'This OpenAPI document',
    tag: 'health',
  },
  config: {
    method: 'GET',
    url: '/config',
    scope: 'config:read',
    summary: 'Integration configuration',
    tag: 'config',
  },
  token_list: { method: 'GET', url: '/tokens', scope: 'tokens:read', summary: 'Token list', tag: 'tokens' },
  token_search: {
    method: 'GET',
    url: '/tokens/search',
    scope: 'tokens:read',
    summary: 'Token search',
    tag: 'tokens',
  },
  token_detail: {
    method: 'GET',
    url: '/tokens/:chain_id/:token_address',
    scope: 'tokens:read',
    summary: 'Token detail',
    tag: 'tokens',
  },
  creator_tokens: {
    method: 'GET',
    url: '/creators/:address/tokens',
    scope: 'tokens:read',
    summary: 'Tokens of a creator',
    tag: 'tokens',
  },
  token_trades: {
    method: 'GET',
    url: '/tokens/:chain_id/:token_address/trades',
    scope: 'tokens:read',
    summary: 'Trades of a token',
    tag: 'tokens',
  },
  token_announcements: {
    method: 'GET',
    url: '/tokens/:chain_id/:token_address/announcements',
    scope: 'tokens:read',
    summary: 'Announcements of a token',
    tag: 'tokens',
  },
  holder_snapshot: {
    method: 'GET',
    url: '/tokens/:chain_id/:token_address/holders',
    scope: 'tokens:read',
    summary: 'Holder snapshot',
    tag: 'tokens',
  },
  wallet_summary: {
    method: 'GET',
    url: '/wallets/:address',
    scope: 'wallets:read',
    summary: 'Wallet summary',
    tag: 'wallets',
  },
  wallet_activity: {
    method: 'GET',
    url: '/wallets/:address/activity',
    scope: 'wallets:read',
    summary: 'Wallet activity',
    tag: 'wallets',
  },
  fee_claims_read: {
    method: 'GET',
    url: '/wallets/:address/fee-claims',
    scope: 'wallets:read',
    summary: 'Fee-claim positions of a wallet',
    tag: 'wallets',
  },
  transaction_status: {
    method: 'GET',
    url: '/transactions/:chain_id/:tx_hash',
    scope: 'transactions:read',
    summary: 'Transaction status',
    tag: 'transactions',
  },
  events: {
    method: 'GET',
    url: '/events',
    scope: 'events:read',
    summary: 'Live event stream (Server-Sent Events)',
    tag: 'events',
  },
  webhook_create: {
    method: 'POST',
    url: '/webhooks',
    scope: 'webhooks:manage',
    summary: 'Register a webhook endpoint',
    tag: 'webhooks',
    // No Idempotency-Key: the answer carries the signing secret, which no record may keep or replay.
  },
  webhook_list: {
    method: 'GET',
    url: '/webhooks',
    scope: 'webhooks:manage',
    summary: "The key's webhook endpoints",
    tag: 'webhooks',
  },
  webhook_detail: {
    method: 'GET',
    url: '/webhooks/:id',
    scope: 'webhooks:manage',
    summary: 'A webhook endpoint',
    tag: 'webhooks',
  },
  webhook_update: {
    method: 'PATCH',
    url: '/webhooks/:id',
    scope: 'webhooks:manage',
    summary: 'Change a webhook endpoint (URL, filters, disabled)',
    tag: 'webhooks',
  },
  webhook_delete: {
    method: 'DELETE',
    url: '/webhooks/:id',
    scope: 'webhooks:manage',
    summary: 'Delete a webhook endpoint',
    tag: 'webhooks',
  },
  webhook_rotate_secret: {
    method: 'POST',
    url: '/webhooks/:id/rotate-secret',
    scope: 'webhooks:manage',
    summary: "Rotate an endpoint's signing secret (the old one signs too for 24 h)",
    tag: 'webhooks',
    // No Idempotency-Key, as for creation: the answer carries a secret.
  },
  webhook_test: {
    method: 'POST',
    url: '/webhooks/:id/test',
    scope: 'webhooks:manage',
    summary: 'Send a ping delivery',
    tag: 'webhooks',
    idempotency: 'optional',
  },
  webhook_deliveries: {
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    scope: 'webhooks:manage',
    summary: "An endpoint's delivery log",
    tag: 'webhooks',
  },
  swap_quote: {
    method: 'POST',
    url: '/swaps/quote',
    scope: 'swaps:quote',
    summary: 'Swap quote',
    tag: 'swaps',
    idempotency: 'optional',
  },
  swap_prepare: {
    method: 'POST',
    url: '/swaps/prepare',
    scope: 'swaps:prepare',
    summary: 'Prepare a swap',
    tag: 'swaps',
    idempotency: 'optional',
  },
  launch_prepare: {
    method: 'POST',
    url: '/launches/prepare',
    scope: 'launches:prepare',
    summary: 'Prepare a launch',
    tag: 'launches',
    idempotency: 'required',
  },
  vesting_claim_prepare: {
    method: 'POST',
    url: '/claims/vesting/prepare',
    scope: 'claims:prepare',
    summary: 'Prepare vesting claims',
    tag: 'claims',
    idempotency: 'optional',
  },
  dividend_claim_prepare: {
    method: 'POST',
    url: '/claims/dividends/prepare',
    scope: 'claims:prepare',
    summary: 'Prepare dividend claims (tax launches)',
    tag: 'claims',
    idempotency: 'optional',
  },
  fee_claim_prepare: {
    method: 'POST',
    url: '/claims/fees/prepare',
    scope: 'claims:prepare',
    summary: 'Prepare fee claims',
    tag: 'claims',
    idempotency: 'optional',
  },
  metadata_document_prepare: {
    method: 'POST',
    url: '/tokens/:chain_id/:token_address/metadata/document/prepare',
    scope: 'metadata:prepare',
    summary: 'Prepare a metadata-document update',
    tag: 'metadata',
    idempotency: 'required',
  },
  metadata_onchain_prepare: {
    method: 'POST',
    url: '/tokens/:chain_id/:token_address/metadata/onchain/prepare',
    scope: 'metadata:prepare',
    summary: 'Prepare name, symbol and extra-metadata updates',
    tag: 'metadata',
    idempotency: 'optional',
  },
  metadata_legacy_prepare: {
    method: 'POST',
    url: '/tokens/:chain_id/:token_address/metadata/prepare',
    scope: 'metadata:prepare',
    summary: 'Deprecated combined metadata form',
    tag: 'metadata',
    idempotency: 'optional',
  },
  announcement_prepare: {
    method: 'POST',
    url: '/tokens/:chain_id/:token_address/announcements/prepare',
    scope: 'announcements:prepare',
    summary: 'Prepare an announcement',
    tag: 'announcements',
    idempotency: 'optional',
  },
  admin_keys_list: {
    method: 'GET',
    url: '/admin/keys',
    scope: 'admin:keys',
    summary: 'Every API key (operator)',
    tag: 'admin',
  },
  admin_key_create: {
    method: 'POST',
    url: '/admin/keys',
    scope: 'admin:keys',
    summary: 'Create an API key; its secret is shown once (operator)',
    tag: 'admin',
  },
  admin_key_detail: {
    method: 'GET',
    url: '/admin/keys/:id',
    scope: 'admin:keys',
    summary: 'An API key (operator)',
    tag: 'admin',
  },
  admin_key_update: {
    method: 'PATCH',
    url: '/admin/keys/:id',
    scope: 'admin:keys',
    summary: "Set an API key's limit overrides (operator)",
    tag: 'admin',
  },
  admin_key_revoke: {
    method: 'DELETE',
    url: '/admin/keys/:id',
    scope: 'admin:keys',
    summary: 'Revoke an API key (operator)',
    tag: 'admin',
  },
  admin_key_usage: {
    method: 'GET',
    url: '/admin/keys/:id/usage',
    scope: 'admin:keys',
    summary: "An API key's units used and left, and its requests and 429s per route over 24 h (operator)",
    tag: 'admin',
  },
} as const satisfies Record<string, RouteEntry>;

export type Operation = keyof typeof ROUTES;

/** Per-route data fastify keeps in `routeOptions.config`. */
export interface RouteConfig {
  operation: Operation;
  scope: Scope | null;
  idempotency?: 'required' | 'optional';
}

/** Route options shared by every module: path, method, scope and the OpenAPI summary and tag. */
export function routeBase(operation: Operation) {
  const entry: RouteEntry = ROUTES[operation];
  const config: RouteConfig = { operation, scope: entry.scope, idempotency: entry.idempotency };
  return {
    method: entry.method,
    url: `/v1${entry.url}`,
    config,
    schema: { summary: entry.summary, tags: [entry.tag], operationId: operation },
  };
}
