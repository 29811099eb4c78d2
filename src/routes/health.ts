// GET /v1/health: no key, no units. Database and limiter are required (503 when down); a chain whose
// RPC is down makes the service "degraded" but it still serves the other chains.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChainMonitor } from '../chain/monitor.ts';
import type { Clock } from '../clock.ts';
import { Envelope, envelope, envelopeJson, JSON_CONTENT_TYPE } from '../http/envelope.ts';
import { StringEnum } from '../inputRules.ts';
import type { Limiter } from '../http/limits/limits.ts';
import type { DeploymentCheck } from '../operations/checkDeployment.ts';
import { Health, type HealthChecks } from '../operations/getHealth.ts';
import type { Database } from '../store/db.ts';
import { VERSION } from '../version.ts';
import { routeBase } from '../http/catalog.ts';

const Component = Type.Object({ status: StringEnum(['ok', 'down']), kind: Type.String() });
const HealthData = Type.Object({
  status: StringEnum(['ok', 'degraded', 'down']),
  version: Type.String(),
  database: Component,
  limiter: Component,
  deployment: Type.Object(
    {
      status: StringEnum(['ok', 'failing', 'not_checked']),
      failing: Type.Array(
        Type.Object({
          chain_id: Type.Integer(),
          check: Type.String(),
          expected: Type.String(),
          found: Type.String(),
          ok: Type.Boolean(),
        }),
      ),
    },
    { description: 'The deployment checks run at start in production mode (launchpad doctor)' },
  ),
  chains: Type.Array(
    Type.Object({
      chain_id: Type.Integer(),
      rpc: StringEnum(['ok', 'down', 'not_configured', 'unknown']),
      providers_ok: Type.Integer(),
      providers: Type.Integer(),
      head_block: Type.Union([Type.String(), Type.Null()]),
      head_age_ms: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Milliseconds since the head last moved; null before the first head',
      }),
      last_error: Type.Union([Type.String(), Type.Null()]),
      checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
    {
      description: 'From a background probe per chain (HEALTH_PROBE_MS), never from RPC calls in the request',
    },
  ),
});

export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    monitor: ChainMonitor;
    clock: Clock;
    limiter: Limiter;
    deploymentChecks?: readonly DeploymentCheck[];
  },
) {
  const health = new Health({ ...deps, log: app.log });
  // The report's data changes with the checks, a finished probe, or the millisecond (head ages): under
  // load many requests share one state, so its JSON is built once per state and reused. Only states
  // with every required component up are kept (a report of one that is down is a 503).
  let last = { ms: -1, probes: -1, checks: undefined as HealthChecks | undefined, json: '' };
  const report = (request: FastifyRequest, reply: FastifyReply, checks: HealthChecks) => {
    const ms = Date.now();
    if (ms !== last.ms || health.probes !== last.probes || checks !== last.checks)
      last = { ms, probes: health.probes, checks, json: JSON.stringify(health.report(checks, ms)) };
    reply.type(JSON_CONTENT_TYPE).send(envelopeJson(request.id, deps.clock.now(), last.json));
  };
  app.route({
    ...routeBase('health'),
    schema: {
      ...routeBase('health').schema,
      description:
        'No API key and no units. 200 with status ok or degraded (a chain RPC is down, or a deployment ' +
        'check failed at start); 503 ' +
        'temporarily_unavailable with the same report in `health` when the database or limiter is down.',
      querystring: Type.Object(
        {
          probe: Type.Optional(
            StringEnum(['live', 'ready'], {
              description:
                'live: the process answers (depends on nothing, for orchestrators); ready (default): the full report',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Union([
          Envelope(HealthData),
          Envelope(Type.Object({ status: Type.Literal('alive'), version: Type.String() })),
        ]),
      },
    },
    // The 200 schema is a union (report or liveness), which fast-json-stringify resolves by validating
    // each branch per response; the handler builds exactly the documented shape, so plain JSON.stringify
    // serializes it (measured: health CPU per request, see issue 21's note).
    serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    handler: (request, reply) => {
      if ((request.query as { probe?: string }).probe === 'live')
        return envelope(request.id, deps.clock.now(), { status: 'alive', version: VERSION });
      // Under load the checks are fresh and the chains probed: the report is built without a promise.
      const checks = health.fresh();
      // Sent by report, nothing returned: a returned reply would be awaited as a thenable (fastify).
      if (checks) {
        report(request, reply, checks);
        return;
      }
      return health.check().then((c) => report(request, reply, c));
    },
  });
  return {
    /** Drops the shared checks: the app calls it on every 5xx answer, so an outage shows at once. */
    forgetChecks: () => health.forget(),
  };
}
