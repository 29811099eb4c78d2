// Builds the fastify app from its dependencies (no globals): transport, auth, problems, routes.
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type onRequestHookHandler,
  type onResponseHookHandler,
  type onSendHookHandler,
  type preHandlerAsyncHookHandler,
  type preValidationHookHandler,
} from 'fastify';
import type { ChainClients } from './chain/clients.ts';
import type { Clock } from './clock.ts';
import { Authenticator } from './http/auth.ts';
import { deprecatedSuccessor, deprecationHeaders, rewriteLegacyUrl } from './http/deprecation.ts';
import { requestId } from './http/envelope.ts';
import { lazyChildLogger } from './http/logging.ts';
import { openapiOptions } from './http/openapi.ts';
import { beginIdempotent, readIdempotencyKey } from './http/idempotency.ts';
import { type Admission, type Limiter, RATE_HEADERS } from './http/limits/limits.ts';
import { limitsFor } from './http/limits/plans.ts';
import { pageSize, UNITS, weigh } from './http/limits/units.ts';
import { ApiError } from './errors.ts';
import { PROBLEM_CONTENT_TYPE, problemBody } from './http/problems.ts';
import { compileValidator, checkInput, validationProblem } from './inputRules.ts';
import { type Operation, ROUTES, type RouteConfig } from './http/catalog.ts';
import { registerConfigRoutes } from './routes/config.ts';
import { registerIpfsRoutes } from './routes/ipfs.ts';
import { registerLaunchRoutes } from './routes/launches.ts';
import { registerSwapRoutes } from './routes/swaps.ts';
import { registerClaimRoutes } from './routes/claims.ts';
import { registerTokenWriteRoutes } from './routes/tokenWrites.ts';
import { registerTransactionRoutes } from './routes/transactions.ts';
import { registerTokenReadRoutes } from './routes/tokens.ts';
import { registerWalletRoutes } from './routes/wallets.ts';
import { registerEventRoutes } from './routes/events.ts';
import { EventFeed } from './operations/eventFeed.ts';
import { onJournalGrowth } from './store/wakeups.ts';
import { registerWebhookRoutes } from './routes/webhooks.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { WebhookDispatcher } from './operations/webhookDispatcher.ts';
import { SecretBox } from './webhooks/sealed.ts';
import { Cursors } from './cursor.ts';
import { ChainMonitor } from './chain/monitor.ts';
import { Metrics } from './http/metrics.ts';
import { QUOTE_LIFETIME_MS } from './swaps/quoteClaims.ts';
import { loadGatewaySecret, QuoteSigner } from './swaps/quoteId.ts';
import { SaltMiner } from './launchpad/saltMiner.ts';
import { MetadataDocuments } from './pinning/documents.ts';
import { type IpfsNode, startIpfsNode } from './pinning/ipfsNode.ts';
import { importDataDirPins, IpfsPinStore } from './pinning/pinStore.ts';
import { Deployments } from './launchpad/deployments.ts';
import { registerDocRoutes } from './routes/docs.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerPlannedRoutes } from './routes/planned.ts';
import type { DeploymentCheck } from './operations/checkDeployment.ts';
import type { Settings } from './settings.ts';
import { type ApiKeyRecord, ApiKeyStore, hasScope } from './store/apiKeys.ts';
import { fingerprint, IdempotencyStore } from './store/idempotency.ts';
import type { Database } from './store/db.ts';

export interface ServerDeps {
  settings: Settings;
  database: Database;
  chains: ChainClients;
  clock: Clock;
  limiter: Limiter;
  /** Mines launch salts off the event loop; default: one started on the first launch. */
  saltMiner?: SaltMiner;
  /** Deployment manifests; default: loaded from settings.manifestsDir. */
  deployments?: Deployments;
  /** The deployment checks run at start (production mode), reported by health and config. */
  deploymentChecks?: readonly DeploymentCheck[];
  /** Extra routes registered with the gateway's hooks (tests use it for instrumented handlers). */
  extraRoutes?: (app: FastifyInstance) => void;
  /** pino logger options, or false for none (benchmarks). */
  logger?: boolean | object;
}

export const EXPOSED_HEADERS = [
  'X-Request-Id',
  ...RATE_HEADERS,
  'Deprecation',
  'Server-Timing',
  'Link',
  'Idempotent-Replayed',
].join(', ');

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: import('./store/apiKeys.ts').ApiKeyRecord | null;
    admission: import('./http/limits/limits.ts').Admission | null;
    idempotencyKey: string | undefined;
    idempotency: import('./http/idempotency.ts').IdempotencyState | null;
  }
  interface FastifyInstance {
    /** The gateway's IPFS node (for the ready banner and tests: its multiaddrs). */
    ipfs: IpfsNode;
  }
}

/** Streams of a revoked or expired key end within this (the spec's key cache is 5 s; this is below). */
const KEY_CHECK_MS = 2000;

// A shared dependency that is away (database, Redis): the request may succeed later, never a 500.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // PostgreSQL: admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up)
  '08000', // connection exceptions
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too many connections
  'SQLITE_BUSY',
]);
const UNREACHABLE_TEXT =
  /Connection terminated|Stream isn't writeable|Connection is closed|timeout exceeded when trying to connect|Client has encountered a connection error|Command timed out/i;

/** The problem for a dependency that is away, or undefined when the error is something else. */
export function dependencyUnavailable(err: unknown): ApiError | undefined {
  const e = err as { code?: string; message?: string; name?: string } | undefined;
  if (!e || (!UNREACHABLE_CODES.has(String(e.code)) && !UNREACHABLE_TEXT.test(String(e.message))))
    return undefined;
  const redis = /Stream isn't writeable|Connection is closed|Command timed out/i.test(String(e.message));
  return new ApiError(
    'temporarily_unavailable',
    redis ? 'The rate limiter is unavailable; retry shortly' : 'The database is unavailable; retry shortly',
    { headers: { 'retry-after': '1' } },
  );
}

/** Maps any thrown value to the problem the client sees; only ApiError details reach the client. */
function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const away = dependencyUnavailable(err);
  if (away) {
    request.log.warn({ err }, 'a dependency is unavailable');
    return away;
  }
  const e = err as FastifyError;
  if (e?.validation) return validationProblem(e.validation as never, e.validationContext);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('invalid_request', 'The request body is larger than the limit', { status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'Content-Length does not match the body');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL is malformed');
  }
  // Body parser errors (e.g. prototype poisoning) carry a 4xx status and a safe message of fastify's own.
  if (e instanceof SyntaxError || (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500 && e.code)) {
    return new ApiError('invalid_request', 'The request could not be read');
  }
  request.log.error({ err }, 'internal_error');
  return new ApiError('internal_error', 'An unexpected error occurred');
}

/**
 * Transport the gateway does not speak, refused before the body is read: a body encoding other than
 * identity (it would be parsed as if it were plain JSON), or a JSON charset other than UTF-8 (RFC 8259).
 */
function unsupportedTransport(headers: FastifyRequest['headers']): ApiError | undefined {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && String(encoding).trim().toLowerCase() !== 'identity')
    return new ApiError(
      'invalid_request',
      `Content-Encoding ${String(encoding)} is not supported; send the body as is`,
    );
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(headers['content-type'] ?? '')?.[1];
  if (charset && !/^utf-?8$/i.test(charset))
    return new ApiError('invalid_request', `charset ${charset} is not supported; JSON is UTF-8`);
  return undefined;
}

/** The catalog's methods for a concrete path (e.g. GET for /v1/tokens/8453/0x…), for Allow. */
function methodsAt(url: string): string[] {
  const path = url.split('?')[0]?.replace(/\/+$/, '') ?? '';
  return [
    ...new Set(
      Object.values(ROUTES)
        .filter((r) => new RegExp(`^/v1${r.url.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path))
        .map((r) => r.method),
    ),
  ];
}

/** A protocol error Node's parser met before any request existed: answered as problem+json, then closed. */
function clientError(docsUrl: string) {
  return (err: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable) return;
    const id = requestId(undefined);
    const detail =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request took too long to arrive'
          : 'The request is not valid HTTP';
    const body = JSON.stringify(problemBody(new ApiError('invalid_request', detail), id, docsUrl));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
}

/**
 * The operation a request is charged and limited as: the deprecated combined metadata form with
 * `update_profile` is a document update (its weight and its pinning ceilings), not an on-chain one.
 */
function chargedAs(operation: Operation, body: unknown): Operation {
  return operation === 'metadata_legacy_prepare' &&
    (body as { operation?: unknown } | null)?.operation === 'update_profile'
    ? 'metadata_document_prepare'
    : operation;
}

/** One log line per request, when its response is done (fastify writes two: incoming and completed). */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    // Below info (LOG_LEVEL=warn) a served request writes nothing: build nothing either.
    const log = request.server.log as Partial<Pick<Logger, 'isLevelEnabled'>>;
    if (!error && !log.isLevelEnabled?.('info')) return;
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) request.log.error({ ...line, err: error }, 'request failed');
    else request.log.info(line, 'request');
  }
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { settings, database, clock, limiter } = deps;
  const app = Fastify({
    logger: deps.logger ?? {
      level: settings.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization'],
      // One readable line per request on a terminal; JSON lines otherwise (log collectors).
      ...(process.stdout.isTTY
        ? {
            transport: {
              target: 'pino-pretty',
              options: {
                translateTime: 'HH:MM:ss.l',
                ignore: 'pid,hostname,reqId,method,url,status,ms',
                messageFormat: '{msg}{if method} {method} {url} → {status} in {ms} ms{end}',
                singleLine: true,
              },
            },
          }
        : {}),
    },
    logController: new OneLinePerRequest(),
    genReqId: (req) => requestId(req.headers['x-request-id']),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: settings.bodyLimitBytes,
    // request.ip honours X-Forwarded-For only from these proxies (per-source ceilings).
    trustProxy: settings.trustedProxies.length > 0 ? settings.trustedProxies : false,
    rewriteUrl: rewriteLegacyUrl,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: clientError(settings.docsUrl),
    // Framework-level failures (bad URL, bad content type) become problems too.
    frameworkErrors: (err, request, reply) => sendProblem(request, reply, toApiError(err, request)),
  });
  app.setValidatorCompiler(compileValidator as never);

  const keys = new ApiKeyStore(database, settings.keyPrefix);
  const idempotency = new IdempotencyStore(database, clock);
  // Records older than 24 h are purged every 10 minutes (and never replayed once expired).
  const purge = setInterval(() => {
    idempotency.purge().catch((err: unknown) => app.log.warn({ err }, 'idempotency purge failed'));
  }, 600_000);
  purge.unref();
  const auth = new Authenticator(keys, settings.keyPrefix, clock, app.log, (source) =>
    limiter.admitKeyLookup(source),
  );
  let closing = false;

  // Health shares its database and limiter checks between requests; a 5xx answer drops them.
  let serverErrorSent = (): void => {};
  function sendProblem(request: FastifyRequest, reply: FastifyReply, err: ApiError) {
    if (err.status >= 500) serverErrorSent();
    reply.header('x-request-id', request.id);
    for (const [name, value] of Object.entries(err.extras.headers ?? {})) reply.header(name, value);
    return reply
      .code(err.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemBody(err, request.id, settings.docsUrl)));
  }

  app.decorateRequest('apiKey', null);
  app.decorateRequest('admission', null);
  app.decorateRequest('idempotencyKey', undefined);
  app.decorateRequest('idempotency', null);
  app.setErrorHandler((err, request, reply) => sendProblem(request, reply, toApiError(err, request)));
  app.setNotFoundHandler((request, reply) => {
    // A known path with another method: the spec's not_found, with Allow naming the methods it has.
    const allowed = methodsAt(request.url);
    if (allowed.length > 0) reply.header('allow', [...allowed, 'OPTIONS'].join(', '));
    return sendProblem(
      request,
      reply,
      new ApiError(
        'not_found',
        allowed.length > 0
          ? `${request.method} is not an operation of this path; it allows ${allowed.join(', ')}`
          : `No operation at ${request.method} ${request.url}`,
      ),
    );
  });

  const checkQuery: preValidationHookHandler = (request, _reply, done) => {
    try {
      checkInput(request.body, request.query);
      done();
    } catch (err) {
      done(err as Error);
    }
  };

  // Transport for every request, routed or not: request id, CORS, deprecation, shutdown. Hooks are
  // callback-style: on the hot path they finish synchronously, which is measurably cheaper than async ones.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const transport = unsupportedTransport(request.headers);
    if (transport) {
      done(transport);
      return;
    }
    const origin = request.headers.origin;
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }
    const successor = deprecatedSuccessor(request.raw);
    if (successor) reply.headers(deprecationHeaders(settings.docsUrl, successor));
    if (closing) {
      reply.header('connection', 'close');
      done(
        new ApiError('temporarily_unavailable', 'The gateway is shutting down', {
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    done();
  });
  // Connections that never sent a byte are dropped during shutdown: a client that aborts many streams at
  // once leaves such connections behind, and closeIdleConnections() did not close them.
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // During shutdown, keep closing connections as they go idle so close() completes after in-flight work.
  app.addHook('preClose', (done) => {
    closing = true;
    clearInterval(purge);
    const timer = setInterval(() => {
      app.server.closeIdleConnections();
      for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    }, 50);
    timer.unref();
    app.server.once('close', () => clearInterval(timer));
    done();
  });

  // Concurrency slots are freed when the response is done (and on the request's close, see admit).
  // Keyed routes only: the others hold no admission.
  const releaseSlots: onResponseHookHandler = (request, _reply, done) => {
    request.admission?.release();
    done();
  };
  // Once a request has taken its idempotency record, its response (errors included) is stored before
  // it is sent, so a retry that arrives after the response replays it exactly. Idempotent routes only.
  const storeAnswer: onSendHookHandler = (request, reply, payload, done) => {
    const state = request.idempotency;
    if (!state) {
      done(null, payload);
      return;
    }
    request.idempotency = null;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    const contentType = String(reply.getHeader('content-type') ?? 'application/json');
    idempotency.complete(state.keyId, state.idemKey, reply.statusCode, contentType, body).then(
      () => done(null, payload),
      (err: unknown) => {
        // Not stored, so not sent: a retry must not replay something else than what a client saw. The
        // client gets the problem of the failure (a database away is a 503 to retry), and the record,
        // still in progress, expires on its own.
        const problem = toApiError(err, request);
        if (problem.status >= 500) serverErrorSent();
        for (const [name, value] of Object.entries(problem.extras.headers ?? {})) reply.header(name, value);
        reply.code(problem.status).type(PROBLEM_CONTENT_TYPE);
        done(null, JSON.stringify(problemBody(problem, request.id, settings.docsUrl)));
      },
    );
  };
  // Keyed routes: authenticate in onRequest, before the body is read (spec metering rule 4); admit in
  // preValidation, once the body names the wallet or creator a ceiling counts, and before validation
  // (rule 5: a request that fails validation still costs its weight).
  app.addHook('onRoute', (route) => {
    const config = route.config as Partial<RouteConfig> | undefined;
    const ownPreValidation = route.preValidation ? [route.preValidation].flat() : [];
    if (!config?.scope || !config.operation) {
      route.preValidation = [checkQuery, ...ownPreValidation];
      return;
    }
    const { scope } = config;
    const authenticate: onRequestHookHandler = (request, _reply, done) => {
      let outcome: ReturnType<typeof auth.authenticate>;
      try {
        outcome = auth.authenticate(request.headers['x-api-key'], request.headers.origin, request.ip);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (!(outcome instanceof Promise)) {
        request.apiKey = outcome;
        done();
        return;
      }
      outcome.then((record) => {
        request.apiKey = record;
        done();
      }, done);
    };
    // What a request is charged, worked out once in `admit` and carried to `charge`.
    interface Charge {
      key: ApiKeyRecord;
      operation: Operation;
      units: number;
      baseOnly: boolean;
      oversized: boolean;
      maxPage: number;
    }
    // Functions of the route, not closures per request: the hot path allocates as little as it can.
    const afterAdmission = (
      c: Charge,
      request: FastifyRequest,
      reply: FastifyReply,
      admission: Admission,
    ) => {
      request.admission = admission;
      // Slots are freed when the response is done (onResponse), or when the client goes away first.
      if (admission.holdsSlots) request.raw.once('close', admission.release);
      reply.headers(admission.headers);
      Authenticator.requireScope(c.key, scope);
      if (c.oversized) {
        throw new ApiError('invalid_parameter', `limit must be at most ${c.maxPage} on this key's plan`, {
          invalid_parameters: [{ name: 'limit', reason: 'range', detail: `limit must be 1 to ${c.maxPage}` }],
        });
      }
      request.idempotencyKey = readIdempotencyKey(config as RouteConfig, request);
      // The input rules of every route (checkQuery), here rather than in a hook of their own.
      checkInput(request.body, request.query);
    };
    const charge = (
      c: Charge,
      request: FastifyRequest,
      reply: FastifyReply,
      done: (err?: Error) => void,
      keyWindowsOnly: boolean,
    ) => {
      let outcome: ReturnType<Limiter['admit']>;
      try {
        outcome = limiter.admit({
          key: c.key,
          operation: c.operation,
          units: c.units,
          baseOnly: c.baseOnly || keyWindowsOnly,
          live: c.operation === 'config' && c.units > 1,
          source: request.ip,
          params: (request.params ?? {}) as Record<string, unknown>,
          body: request.body,
        });
        if (!(outcome instanceof Promise)) {
          afterAdmission(c, request, reply, outcome);
          done();
          return;
        }
      } catch (err) {
        done(err as Error);
        return;
      }
      outcome.then((admission) => afterAdmission(c, request, reply, admission)).then(() => done(), done);
    };
    // Callback-style with a synchronous path: the in-process limiter answers without a promise.
    const admit: preValidationHookHandler = (request, reply, done) => {
      const key = request.apiKey as ApiKeyRecord;
      const query = (request.query ?? {}) as Record<string, unknown>;
      const operation = chargedAs(config.operation as Operation, request.body);
      const rule = UNITS[operation];
      const maxPage = limitsFor(key).maxPage;
      const oversized = rule.perRows !== undefined && pageSize(query) > maxPage;
      const baseOnly = oversized || !hasScope(key, scope);
      const units = baseOnly ? rule.base : weigh(operation, { query, body: request.body });
      const c: Charge = { key, operation, units, baseOnly, oversized, maxPage };
      // A replay, or a duplicate of a request still running, pays its units but meets no ceiling or
      // in-flight cap: it starts no new work (it is answered from the record, or 409, before the handler).
      const idemKey = config.idempotency ? request.headers['idempotency-key'] : undefined;
      if (typeof idemKey === 'string' && !baseOnly) {
        // The record's fingerprint is of the validated body (schema defaults applied): match it.
        const body = structuredClone(request.body);
        request.getValidationFunction('body')?.(body);
        const print = fingerprint(request.method, request.routeOptions.url ?? '', request.params, body);
        idempotency.answered(key.keyId, idemKey.replace(/^"(.*)"$/, '$1'), print).then(
          (answered) => charge(c, request, reply, done, answered),
          () => charge(c, request, reply, done, false),
        );
        return;
      }
      charge(c, request, reply, done, false);
    };
    // After validation (400s before execution are not stored), right before the handler.
    const idempotent: preHandlerAsyncHookHandler = async (request, reply) => {
      if (request.idempotencyKey === undefined) return;
      const key = request.apiKey as ApiKeyRecord;
      request.idempotency =
        (await beginIdempotent(idempotency, request, reply, key.keyId, request.idempotencyKey)) ?? null;
      if (reply.sent) return reply; // replayed
    };
    if (config.idempotency) {
      route.preHandler = [idempotent, ...(route.preHandler ? [route.preHandler].flat() : [])];
      route.onSend = [...(route.onSend ? [route.onSend].flat() : []), storeAnswer];
    }
    route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), authenticate];
    route.onResponse = [...(route.onResponse ? [route.onResponse].flat() : []), releaseSlots];
    route.preValidation = [admit, ...ownPreValidation];
  });
  await app.register(swagger, openapiOptions(settings));

  // Browser preflight: no key, no units; it only confirms transport (spec: Authentication 5).
  app.route({
    method: 'OPTIONS',
    url: '*',
    schema: { hide: true },
    handler: async (_request, reply) => {
      reply
        .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS')
        .header('access-control-allow-headers', 'x-api-key, content-type, idempotency-key, x-request-id')
        .header('access-control-max-age', '600')
        .header('allow', 'GET, POST, PATCH, DELETE, OPTIONS');
      return reply.code(204).send();
    },
  });

  const deployments = deps.deployments ?? Deployments.load(settings.manifestsDir);
  const routeDeps = {
    settings,
    database,
    chains: deps.chains,
    clock,
    limiter,
    deployments,
    deploymentChecks: deps.deploymentChecks,
  };
  const monitor = new ChainMonitor(deps.chains.fresh(), settings.healthProbeMs);
  app.addHook('onClose', async () => monitor.stop());
  if (settings.metricsToken) {
    const metrics = new Metrics(database, monitor);
    metrics.register(app, settings.metricsToken);
    app.addHook('onClose', async () => metrics.close());
  }
  serverErrorSent = registerHealthRoutes(app, { ...routeDeps, monitor }).forgetChecks;
  registerConfigRoutes(app, routeDeps);
  const ipfs = await startIpfsNode(database, settings);
  app.decorate('ipfs', ipfs);
  app.addHook('onClose', async () => ipfs.stop());
  const imported = await importDataDirPins(database, settings.dataDir);
  if (imported > 0) app.log.info({ imported }, 'pins of the data dir moved into the IPFS node');
  const pins = new IpfsPinStore(database, ipfs, settings.pinning);
  const documents = new MetadataDocuments(ipfs, settings.ipfsFetchTimeoutMs);
  // The worker thread starts on the first launch; `launchpad start` warms it ahead (src/cli.ts).
  const saltMiner = deps.saltMiner ?? new SaltMiner();
  app.addHook('onClose', async () => saltMiner.close());
  registerIpfsRoutes(app, { pins, documents, ipfs, fetchTimeoutMs: settings.ipfsFetchTimeoutMs });
  registerLaunchRoutes(app, { ...routeDeps, pins, saltMiner });
  const secret = await loadGatewaySecret(database, settings.dataDir, settings.quoteSecret);
  const quotes = new QuoteSigner(
    secret,
    settings.quoteSecretPrevious
      ? {
          secret: Buffer.from(settings.quoteSecretPrevious, 'utf8'),
          untilMs: clock.now() + QUOTE_LIFETIME_MS,
          now: () => clock.now(),
        }
      : undefined,
  );
  registerSwapRoutes(app, { ...routeDeps, quotes });
  registerClaimRoutes(app, routeDeps);
  registerTokenWriteRoutes(app, { ...routeDeps, pins, documents });
  registerTransactionRoutes(app, routeDeps);
  const cursors = new Cursors(secret);
  registerTokenReadRoutes(app, { ...routeDeps, cursors, documents });
  registerWalletRoutes(app, { ...routeDeps, cursors });
  const feed = new EventFeed(
    {
      ...routeDeps,
      cursors,
      documents,
      keyActive: (keyId) => keys.usable(keyId, clock.now()),
      onGrowth: (wake) => onJournalGrowth(database, wake),
    },
    {
      pollMs: settings.events.pollMs,
      heartbeatMs: settings.events.heartbeatMs,
      keyCheckMs: KEY_CHECK_MS,
      maxBufferedBytes: settings.events.maxBufferedBytes,
      renewMs: 60_000,
    },
  );
  // Streams end (after their last whole event) when the gateway begins to close: close() waits for them.
  app.addHook('preClose', async () => feed.close());
  registerEventRoutes(app, { settings, feed });
  // Webhooks: endpoints managed here; deliveries made by this process's dispatcher (unless WEBHOOKS=off).
  const webhookDeps = {
    ...routeDeps,
    cursors,
    documents,
    secrets: new SecretBox(secret),
    policy: { allowLocal: settings.webhooks.allowLocal },
  };
  registerWebhookRoutes(app, webhookDeps);
  registerAdminRoutes(app, { store: keys, limiter, clock });
  if (settings.webhooks.dispatcher === 'on') {
    const dispatcher = new WebhookDispatcher(
      { ...webhookDeps, onGrowth: (wake) => onJournalGrowth(database, wake) },
      settings.webhooks,
    );
    app.addHook('onReady', async () => dispatcher.start());
    app.addHook('preClose', async () => dispatcher.stop());
  }
  const planned = new Set<string>();
  deps.extraRoutes?.(app);
  registerDocRoutes(app, planned);
  for (const operation of registerPlannedRoutes(app)) planned.add(operation);
  return app;
}
