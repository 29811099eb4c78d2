// POST /v1/launches/prepare: adapts HTTP to prepareLaunch, with a Server-Timing header of its phases.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, publicOrigin } from '../http/envelope.ts';
import { LaunchPrepareBody } from '../launchpad/launchRequest.ts';
import { type LaunchDeps, prepareLaunch } from '../operations/prepareLaunch.ts';
import { routeBase } from '../http/catalog.ts';

/** Server-Timing (W3C): where a launch prepare spends its time (pinning, chain reads, mining, simulation). */
class ServerTiming {
  private readonly parts: string[] = [];
  add(name: string, startedAt: number): void {
    this.parts.push(`${name};dur=${(performance.now() - startedAt).toFixed(1)}`);
  }
  header(): string {
    return this.parts.join(', ');
  }
}

export function registerLaunchRoutes(app: FastifyInstance, deps: LaunchDeps) {
  const base = routeBase('launch_prepare');
  app.route({
    ...base,
    schema: {
      ...base.schema,
      body: LaunchPrepareBody,
      response: { 200: Envelope(Type.Object({}, { additionalProperties: true })) },
    },
    handler: async (request, reply) => {
      const timing = new ServerTiming();
      const data = await prepareLaunch(deps, {
        body: request.body as LaunchPrepareBody,
        origin: publicOrigin(deps.settings.publicUrl, request),
        timing,
      });
      reply.header('server-timing', timing.header());
      return envelope(request.id, deps.clock.now(), data);
    },
  });
}
