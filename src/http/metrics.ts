// Prometheus metrics (prom-client) at /metrics: requests by route and status with latency, RPC calls by
// chain and method with latency and errors, limiter admissions and refusals by policy, idempotent
// replays, indexer head lag per chain, failed simulations, event streams open, events sent and streams
// ended by the gateway, webhook deliveries and backlog, IPFS pins, PostgreSQL connections opened. Off
// unless METRICS_TOKEN is set; then the scrape needs `Authorization: Bearer <METRICS_TOKEN>`.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ChainMonitor } from '../chain/monitor.ts';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/db.ts';
import { setTelemetry } from '../telemetry.ts';

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Histogram({
    name: 'launchpad_http_request_duration_seconds',
    help: 'HTTP requests by route, method and status, with their latency',
    labelNames: ['route', 'method', 'status'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly rpc = new Histogram({
    name: 'launchpad_rpc_duration_seconds',
    help: 'JSON-RPC round trips by chain and method (first method of a batch) and outcome',
    labelNames: ['chain', 'method', 'outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly limiter = new Counter({
    name: 'launchpad_limiter_decisions_total',
    help: 'Limiter admissions (policy "all") and refusals by the policy that refused',
    labelNames: ['decision', 'policy'],
    registers: [this.registry],
  });
  readonly replays = new Counter({
    name: 'launchpad_idempotent_replays_total',
    help: 'Requests answered from their idempotency record',
    labelNames: ['operation'],
    registers: [this.registry],
  });
  readonly simulationFailures = new Counter({
    name: 'launchpad_simulation_failures_total',
    help: 'Plans whose simulation reverted, by chain and the problem code it mapped to',
    labelNames: ['chain', 'code'],
    registers: [this.registry],
  });

  readonly streams = new Gauge({
    name: 'launchpad_event_streams',
    help: 'Event streams (GET /v1/events) open on this process',
    registers: [this.registry],
  });
  readonly eventsSent = new Counter({
    name: 'launchpad_events_sent_total',
    help: 'Events written to streams, by SSE event name (launch, trade, …, removed)',
    labelNames: ['event'],
    registers: [this.registry],
  });
  readonly streamsEnded = new Counter({
    name: 'launchpad_event_streams_ended_total',
    help: 'Streams the gateway ended, by reason (slow_client, key_invalid, shutdown)',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'launchpad_webhook_deliveries_total',
    help: 'Webhook attempts by outcome: delivered, retry (failed, tried again later), failed (gave up)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly databaseConnections = new Counter({
    name: 'launchpad_db_connections_opened_total',
    help: 'Connections this process opened to PostgreSQL (kept once open: more than the pool size means reconnects)',
    registers: [this.registry],
  });

  readonly pins = new Histogram({
    name: 'launchpad_ipfs_pin_duration_seconds',
    help: 'Pins of launch images and metadata documents (this node, and the pinning service when set), by outcome',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });

  constructor(database: Database, monitor: ChainMonitor) {
    collectDefaultMetrics({ register: this.registry, prefix: 'launchpad_' });
    new Gauge({
      name: 'launchpad_indexer_head_lag_blocks',
      help: 'Blocks between the chain head (background probe) and what the index has processed',
      labelNames: ['chain'],
      registers: [this.registry],
      async collect() {
        const rows = await database.db
          .selectFrom('index_state')
          .select(['chain_id', 'indexed_through'])
          .execute();
        const heads = new Map(monitor.status().map((s) => [s.chain_id as number, s.head_block]));
        for (const r of rows) {
          const head = heads.get(Number(r.chain_id));
          if (head)
            this.set({ chain: String(r.chain_id) }, Math.max(0, Number(head) - Number(r.indexed_through)));
        }
      },
    });
    new Gauge({
      name: 'launchpad_webhook_backlog_age_seconds',
      help: 'Age of the oldest pending delivery, per webhook endpoint with a backlog',
      labelNames: ['endpoint'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const rows = await database.db
          .selectFrom('webhook_deliveries')
          .select((eb) => ['endpoint_id', eb.fn.min('created_at').as('oldest')])
          .where('state', '=', 'pending')
          .groupBy('endpoint_id')
          .execute();
        for (const r of rows)
          this.set({ endpoint: r.endpoint_id }, Math.max(0, (Date.now() - Number(r.oldest)) / 1000));
      },
    });
    setTelemetry({
      rpc: (chain, method, seconds, outcome) =>
        this.rpc.observe({ chain: String(chain ?? 'unknown'), method, outcome }, seconds),
      limiter: (decision, policy) => this.limiter.inc({ decision, policy }),
      replay: (operation) => this.replays.inc({ operation }),
      simulationFailed: (chain, code) => this.simulationFailures.inc({ chain: String(chain), code }),
      streams: (delta) => this.streams.inc(delta),
      eventSent: (event) => this.eventsSent.inc({ event }),
      streamEnded: (reason) => this.streamsEnded.inc({ reason }),
      webhookDelivery: (outcome) => this.webhookDeliveries.inc({ outcome }),
      pin: (outcome, seconds) => this.pins.observe({ outcome }, seconds),
      databaseConnected: () => this.databaseConnections.inc(),
    });
  }

  /** Serves /metrics behind the bearer token, and times every request. */
  register(app: FastifyInstance, token: string): void {
    const expected = Buffer.from(`Bearer ${token}`);
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      const given = Buffer.from(String(request.headers.authorization ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new ApiError('invalid_api_key', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
      return reply.type(this.registry.contentType).send(await this.registry.metrics());
    });
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.observe(
        { route, method: request.method, status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  close(): void {
    setTelemetry(undefined);
  }
}
