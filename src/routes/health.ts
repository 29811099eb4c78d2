// GET /v1/health: no key, no units. Database and limiter are required (503 when down); a chain whose
// RPC is down makes the service "degraded" but it still serves the other chains.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChainMonitor } from '../chain/monitor.ts';

/** Right after start, how long health waits for the first chain probes before answering without them. */
const FIRST_PROBE_WAIT_MS = 150;
/** How long one database or limiter check answers for (monotonic time, not the request clock). */
const CHECK_TTL_MS = 250;

/**
 * `check`'s result, reused for CHECK_TTL_MS after it settles; concurrent callers share one run.
 * `forget()` drops it (any 5xx answer does, so an outage shows on the next health request).
 */
function shared<T>(check: (request: FastifyRequest) => Promise<T>) {
  let last: { at: number; result: Promise<T>; value?: T } | undefined;
  const run = (request: FastifyRequest): Promise<T> => {
    const now = performance.now();
    if (!last || now - last.at > CHECK_TTL_MS) {
      const result = check(request);
      const entry: NonNullable<typeof last> = { at: Number.POSITIVE_INFINITY, result };
      last = entry;
      // The TTL starts when the check settles, so a slow ping is not repeated by every waiting request.
      void result.then(
        (value) => {
          entry.value = value;
          entry.at = performance.now();
        },
        () => {
          entry.at = performance.now();
        },
      );
    }
    return last.result;
  };
  /** The settled result while it is fresh, without a promise (the common case under load). */
  const fresh = (): T | undefined =>
    last && performance.now() - last.at <= CHECK_TTL_MS ? last.value : undefined;
  return Object.assign(run, { fresh, forget: () => (last = undefined) });
}
import type { Clock } from '../clock.ts';
import { Envelope, envelope, envelopeJson, JSON_CONTENT_TYPE } from '../http/envelope.ts';
import { ApiError } from '../errors.ts';
import { StringEnum } from '../http/validation.ts';
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
  const failing = (deps.deploymentChecks ?? []).filter((c) => !c.ok);
  const deployment = {
    status: deps.deploymentChecks
      ? failing.length > 0
        ? ('failing' as const)
        : ('ok' as const)
      : ('not_checked' as const),
    failing,
  };
  // Under load every request would ping the database and the limiter: one ping serves all the health
  // requests of the next CHECK_TTL_MS (and concurrent ones share the ping in flight), unless some answer
  // was a 5xx meanwhile.
  const databaseCheck = shared((request: FastifyRequest) =>
    deps.database.ping().then(
      () => 'ok' as const,
      (err: unknown) => {
        request.log.warn({ err }, 'health: database is down');
        return 'down' as const;
      },
    ),
  );
  const limiterCheck = shared((request: FastifyRequest) =>
    deps.limiter.backend.ping().then(
      () => ({ status: 'ok' as const, kind: deps.limiter.backend.kind }),
      (err: unknown) => {
        request.log.warn({ err }, 'health: limiter is down');
        return { status: 'down' as const, kind: deps.limiter.backend.kind };
      },
    ),
  );
  // The report's data changes with the checks, a finished probe, or the millisecond (head ages): under
  // load many requests share one state, so its JSON is built once per state and reused.
  let last = { ms: -1, probes: -1, database: '', limiter: undefined as unknown, json: '' };
  const report = (
    request: FastifyRequest,
    reply: FastifyReply,
    database: 'ok' | 'down',
    limiter: { status: 'ok' | 'down'; kind: string },
  ) => {
    if (database === 'down' || limiter.status === 'down') {
      const down = [database === 'down' ? 'database' : '', limiter.status === 'down' ? 'limiter' : '']
        .filter(Boolean)
        .join(' and ');
      throw new ApiError('temporarily_unavailable', `A required component is down: ${down}`, {
        headers: { 'retry-after': '1' },
        health: { ...reportData(database, limiter, Date.now()), status: 'down' },
      });
    }
    const ms = Date.now();
    const probes = deps.monitor.probes;
    if (ms !== last.ms || probes !== last.probes || database !== last.database || limiter !== last.limiter) {
      last = { ms, probes, database, limiter, json: JSON.stringify(reportData(database, limiter, ms)) };
    }
    reply.type(JSON_CONTENT_TYPE).send(envelopeJson(request.id, deps.clock.now(), last.json));
  };
  const reportData = (
    database: 'ok' | 'down',
    limiter: { status: 'ok' | 'down'; kind: string },
    ms: number,
  ) => {
    const chains = deps.monitor.status(ms);
    const chainDown = chains.some((c) => c.rpc === 'down') || failing.length > 0;
    return {
      status: chainDown ? ('degraded' as const) : ('ok' as const),
      version: VERSION,
      database: { status: database, kind: deps.database.kind },
      limiter,
      deployment,
      chains,
    };
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
      const database = databaseCheck.fresh();
      const limiter = limiterCheck.fresh();
      // Sent by report, nothing returned: a returned reply would be awaited as a thenable (fastify).
      if (database !== undefined && limiter !== undefined && deps.monitor.probed) {
        report(request, reply, database, limiter);
        return;
      }
      return (async () => {
        const [database] = await Promise.all([
          databaseCheck(request),
          // Until each chain has been probed once (just after start), wait a moment for it, not longer.
          deps.monitor.probed ||
            Promise.race([
              deps.monitor.first,
              new Promise((r) => setTimeout(r, FIRST_PROBE_WAIT_MS).unref()),
            ]),
        ]);
        report(request, reply, database, await limiterCheck(request));
      })();
    },
  });
  return {
    /** Drops the shared checks: the app calls it on every 5xx answer, so an outage shows at once. */
    forgetChecks: () => {
      databaseCheck.forget();
      limiterCheck.forget();
    },
  };
}
