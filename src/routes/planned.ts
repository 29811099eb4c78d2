// Spec routes this version does not serve yet: each still takes its key and scope checks, then answers
// not_found, so clients see the documented route and an honest answer. Also the retired claims route.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { type Operation, ROUTES, routeBase } from '../http/catalog.ts';
import { REQUEST_BODIES } from './requestBodies.ts';

export function registerPlannedRoutes(app: FastifyInstance): Set<Operation> {
  const planned = new Set<Operation>();
  for (const operation of Object.keys(ROUTES) as Operation[]) {
    const base = routeBase(operation);
    if (app.hasRoute({ method: base.method, url: base.url })) continue;
    planned.add(operation);
    app.route({
      ...base,
      schema: {
        ...base.schema,
        description: 'Planned: this gateway version answers not_found.',
        ...(REQUEST_BODIES[operation] ? { body: REQUEST_BODIES[operation] } : {}),
      },
      handler: async (request) => {
        throw new ApiError(
          'not_found',
          `${request.method} ${base.url} is not available in this gateway version`,
        );
      },
    });
  }
  app.post('/v1/claims/prepare', { schema: { hide: true } }, async () => {
    throw new ApiError('not_found', 'POST /v1/claims/prepare is retired', {
      suggested_endpoint: '/v1/claims/fees/prepare',
    });
  });
  return planned;
}
