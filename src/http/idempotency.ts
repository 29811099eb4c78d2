// Idempotency-Key handling for POST routes: the header rules, taking the record before the handler runs,
// replaying a completed response byte for byte, and storing the response once execution has begun.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteConfig } from './catalog.ts';
import { fingerprint, type IdempotencyStore } from '../store/idempotency.ts';
import { ApiError } from '../errors.ts';
import { telemetry } from '../telemetry.ts';

export interface IdempotencyState {
  keyId: string;
  idemKey: string;
}

/** Whether the route needs the header for this request (the combined metadata form follows its body). */
function mode(config: RouteConfig, body: unknown): RouteConfig['idempotency'] {
  if (config.operation === 'metadata_legacy_prepare') {
    return (body as { operation?: unknown } | null)?.operation === 'update_profile' ? 'required' : 'optional';
  }
  return config.idempotency;
}

/** The header value: 1..255 characters, as a bare token or a structured-field string. */
export function readIdempotencyKey(config: RouteConfig, request: FastifyRequest): string | undefined {
  const need = mode(config, request.body);
  if (!need) return undefined;
  const raw = request.headers['idempotency-key'];
  // Node joins a repeated header into "a, b": which key was meant is unknowable, so refuse it.
  const sent = request.raw.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'idempotency-key');
  if (sent.length > 1)
    throw new ApiError('invalid_idempotency_key', 'Idempotency-Key was sent more than once; send one');
  if (raw === undefined) {
    if (need === 'required') {
      throw new ApiError('missing_idempotency_key', 'This operation needs an Idempotency-Key header');
    }
    return undefined;
  }
  const value = typeof raw === 'string' && /^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (typeof value !== 'string' || value.length < 1 || value.length > 255) {
    throw new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters');
  }
  return value;
}

/**
 * Runs after validation, right before the handler. Returns the state to complete in onSend, or
 * answers the request itself (replay) or throws (reused, in progress).
 */
export async function beginIdempotent(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  keyId: string,
  idemKey: string,
): Promise<IdempotencyState | undefined> {
  const print = fingerprint(request.method, request.routeOptions.url ?? '', request.params, request.body);
  const outcome = await store.begin(keyId, idemKey, print);
  switch (outcome.kind) {
    case 'run':
      return { keyId, idemKey };
    case 'reused':
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
    case 'in_progress':
      throw new ApiError(
        'idempotency_in_progress',
        'An identical request with this Idempotency-Key is still running',
        {
          headers: { 'retry-after': '2' },
        },
      );
    case 'replay':
      telemetry.replay(
        String((request.routeOptions.config as { operation?: string } | undefined)?.operation),
      );
      reply
        .code(outcome.status)
        .header('content-type', outcome.contentType)
        .header('idempotent-replayed', 'true');
      await reply.send(outcome.body);
      return undefined;
  }
}
