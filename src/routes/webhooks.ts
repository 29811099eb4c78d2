// /v1/webhooks: HTTP adapted to the webhook operations (src/operations/webhooks.ts). The key's own
// endpoints only; its plan bounds how many it may have.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { envelope } from '../http/envelope.ts';
import { pageSize } from '../http/limits/units.ts';
import { limitsFor } from '../http/limits/plans.ts';
import { PageCursor, PageLimit } from '../inputRules.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  type WebhookDeps,
  type WebhookFilters,
} from '../operations/webhooks.ts';
import type { ApiKeyRecord } from '../store/apiKeys.ts';
import { type Operation, routeBase } from '../http/catalog.ts';
import { WebhookCreateBody, WebhookUpdateBody } from './requestBodies.ts';

const Params = Type.Object({ id: Type.String({ pattern: '^wh_[0-9a-f]{24}$' }) });

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookDeps) {
  const route = (
    operation: Operation,
    schema: object,
    run: (request: FastifyRequest, keyId: string) => Promise<unknown>,
  ) => {
    const base = routeBase(operation);
    app.route({
      ...base,
      schema: { ...base.schema, ...schema },
      handler: async (request: FastifyRequest) =>
        envelope(request.id, deps.clock.now(), await run(request, (request.apiKey as ApiKeyRecord).keyId)),
    } as never);
  };
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  route('webhook_create', { body: WebhookCreateBody }, (request, keyId) =>
    createWebhook(deps, {
      ...(request.body as WebhookFilters & { url: string }),
      keyId,
      maxEndpoints: limitsFor(request.apiKey as ApiKeyRecord).webhooks,
    }),
  );
  route('webhook_list', {}, (_request, keyId) => listWebhooks(deps, { keyId }));
  route('webhook_detail', { params: Params }, (request, keyId) =>
    getWebhook(deps, { keyId, id: id(request) }),
  );
  route('webhook_update', { params: Params, body: WebhookUpdateBody }, (request, keyId) =>
    updateWebhook(deps, {
      ...(request.body as WebhookFilters & { disabled?: boolean }),
      keyId,
      id: id(request),
    }),
  );
  route('webhook_delete', { params: Params }, (request, keyId) =>
    deleteWebhook(deps, { keyId, id: id(request) }),
  );
  route('webhook_rotate_secret', { params: Params }, (request, keyId) =>
    rotateWebhookSecret(deps, { keyId, id: id(request) }),
  );
  route('webhook_test', { params: Params }, (request, keyId) =>
    testWebhook(deps, { keyId, id: id(request) }),
  );

  const deliveries = routeBase('webhook_deliveries');
  app.route({
    ...deliveries,
    schema: {
      ...deliveries.schema,
      params: Params,
      querystring: Type.Object({ limit: PageLimit, cursor: PageCursor }, { additionalProperties: false }),
    },
    handler: async (request: FastifyRequest) => {
      const q = request.query as { cursor?: string };
      const keyId = (request.apiKey as ApiKeyRecord).keyId;
      const page = await listWebhookDeliveries(deps, {
        keyId,
        id: id(request),
        limit: pageSize(q),
        cursor: q.cursor,
      });
      const body = envelope(request.id, deps.clock.now(), page.items);
      return { data: body.data, pagination: { next_cursor: page.next }, meta: body.meta };
    },
  } as never);
}
