// GET /v1/health: no key, no units. Database and limiter are required (503 when down); a chain whose
// RPC is down makes the service "degraded" but it still serves the other chains.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ChainClients } from '../chain/clients.ts';
import type { Clock } from '../clock.ts';
import { Envelope, envelope } from '../http/envelope.ts';
import { ApiError } from '../errors.ts';
import { StringEnum } from '../http/validation.ts';
import { CHAIN_IDS } from '../launchpad/chains.ts';
import type { Limiter } from '../http/limits/limits.ts';
import type { DeploymentCheck } from '../operations/checkDeployment.ts';
import type { Database } from '../store/db.ts';
import { VERSION } from '../version.ts';
import { routeBase } from './catalog.ts';

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
      rpc: StringEnum(['ok', 'down', 'not_configured']),
      providers_ok: Type.Integer(),
      providers: Type.Integer(),
      head_block: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    chains: ChainClients;
    clock: Clock;
    limiter: Limiter;
    deploymentChecks?: readonly DeploymentCheck[];
  },
) {
  const failing = (deps.deploymentChecks ?? []).filter((c) => !c.ok);
  const deployment = {
    status: deps.deploymentChecks
      ? failing.length > 0
        ? ('failing' as const)
        : ('ok' as const)
      : ('not_checked' as const),
    failing,
  };
  app.route({
    ...routeBase('health'),
    schema: {
      ...routeBase('health').schema,
      description:
        'No API key and no units. 200 with status ok or degraded (a chain RPC is down, or a deployment ' +
        'check failed at start); 503 ' +
        'temporarily_unavailable with the same report in `health` when the database or limiter is down.',
      response: { 200: Envelope(HealthData) },
    },
    handler: async (request) => {
      const [database, chains] = await Promise.all([
        deps.database.ping().then(
          () => 'ok' as const,
          (err: unknown) => {
            request.log.warn({ err }, 'health: database is down');
            return 'down' as const;
          },
        ),
        Promise.all(CHAIN_IDS.map((id) => deps.chains.probe(id))),
      ]);
      const limiter = await deps.limiter.backend.ping().then(
        () => ({ status: 'ok' as const, kind: deps.limiter.backend.kind }),
        (err: unknown) => {
          request.log.warn({ err }, 'health: limiter is down');
          return { status: 'down' as const, kind: deps.limiter.backend.kind };
        },
      );
      const chainDown = chains.some((c) => c.rpc === 'down') || failing.length > 0;
      const report = {
        status:
          database === 'down' || limiter.status === 'down'
            ? ('down' as const)
            : chainDown
              ? ('degraded' as const)
              : ('ok' as const),
        version: VERSION,
        database: { status: database, kind: deps.database.kind },
        limiter,
        deployment,
        chains,
      };
      if (report.status === 'down') {
        throw new ApiError('temporarily_unavailable', 'A required component is down: database', {
          health: report,
        });
      }
      return envelope(request.id, deps.clock.now(), report);
    },
  });
}
