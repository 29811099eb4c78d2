// /v1/admin/keys: HTTP adapted to the operator's key operations (src/operations/adminKeys.ts). Scope
// admin:keys, which only a key granted it by name holds (never `*`).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Operation, routeBase } from '../http/catalog.ts';
import { envelope } from '../http/envelope.ts';
import {
  type AdminKeyDeps,
  type CreateKeyInput,
  createKey,
  getKey,
  keyUsage,
  listKeys,
  revokeKey,
  setKeyLimits,
} from '../operations/adminKeys.ts';
import { AdminKeyCreateBody, AdminKeyUpdateBody } from './requestBodies.ts';

const Params = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{8}$' }) });

export function registerAdminRoutes(app: FastifyInstance, deps: AdminKeyDeps) {
  const route = (
    operation: Operation,
    schema: object,
    run: (request: FastifyRequest) => Promise<unknown>,
  ) => {
    const base = routeBase(operation);
    app.route({
      ...base,
      schema: { ...base.schema, ...schema },
      handler: async (request: FastifyRequest) => envelope(request.id, deps.clock.now(), await run(request)),
    } as never);
  };
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  route('admin_keys_list', {}, () => listKeys(deps));
  route('admin_key_create', { body: AdminKeyCreateBody }, (request) =>
    createKey(deps, request.body as CreateKeyInput),
  );
  route('admin_key_detail', { params: Params }, (request) => getKey(deps, { id: id(request) }));
  route('admin_key_update', { params: Params, body: AdminKeyUpdateBody }, (request) =>
    setKeyLimits(deps, {
      id: id(request),
      limits: (request.body as { limits: Record<string, number> }).limits,
    }),
  );
  route('admin_key_revoke', { params: Params }, (request) => revokeKey(deps, { id: id(request) }));
  route('admin_key_usage', { params: Params }, (request) => keyUsage(deps, { id: id(request) }));
}
