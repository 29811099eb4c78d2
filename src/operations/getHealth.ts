// The service's health: the database and the limiter (required: a 503 when either is down), each chain's
// RPC from the background probe and the deployment checks run at start (either makes the service
// "degraded", still serving the other chains). The two pings are shared: under load one ping answers
// every health request of the next CHECK_TTL_MS, and concurrent requests share the ping in flight.
import type { ChainMonitor } from '../chain/monitor.ts';
import { ApiError } from '../errors.ts';
import type { Limiter } from '../http/limits/limits.ts';
import type { Database } from '../store/db.ts';
import { VERSION } from '../version.ts';
import type { DeploymentCheck } from './checkDeployment.ts';

/** Right after start, how long health waits for the first chain probes before answering without them. */
const FIRST_PROBE_WAIT_MS = 150;
/** How long one database or limiter check answers for (monotonic time, not the request clock). */
const CHECK_TTL_MS = 250;

export interface HealthDeps {
  database: Database;
  monitor: ChainMonitor;
  limiter: Limiter;
  deploymentChecks?: readonly DeploymentCheck[];
  log: { warn(obj: object, msg: string): void };
}

/** The required components' state, as the checks found it. */
export interface HealthChecks {
  database: 'ok' | 'down';
  limiter: { status: 'ok' | 'down'; kind: string };
}

/**
 * `check`'s result, reused for CHECK_TTL_MS after it settles; concurrent callers share one run.
 * `forget()` drops it (any 5xx answer does, so an outage shows on the next health request).
 */
function shared<T>(check: () => Promise<T>) {
  let last: { at: number; result: Promise<T>; value?: T } | undefined;
  const run = (): Promise<T> => {
    const now = performance.now();
    if (!last || now - last.at > CHECK_TTL_MS) {
      const result = check();
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

/** One gateway's health: its shared checks and the report built from them. */
export class Health {
  private readonly failing: DeploymentCheck[];
  private readonly databaseCheck;
  private readonly limiterCheck;

  constructor(private readonly deps: HealthDeps) {
    this.failing = (deps.deploymentChecks ?? []).filter((c) => !c.ok);
    this.databaseCheck = shared(() =>
      deps.database.ping().then(
        () => 'ok' as const,
        (err: unknown) => {
          deps.log.warn({ err }, 'health: database is down');
          return 'down' as const;
        },
      ),
    );
    this.limiterCheck = shared(() =>
      deps.limiter.backend.ping().then(
        () => ({ status: 'ok' as const, kind: deps.limiter.backend.kind }),
        (err: unknown) => {
          deps.log.warn({ err }, 'health: limiter is down');
          return { status: 'down' as const, kind: deps.limiter.backend.kind };
        },
      ),
    );
  }

  /** How many chain probes have finished (the report changes with each). */
  get probes(): number {
    return this.deps.monitor.probes;
  }

  /** The last checks handed out: the same object while they do not change (nothing per request). */
  private lastChecks: HealthChecks | undefined;

  /** The checks when they are fresh and every chain was probed: answered without a promise. */
  fresh(): HealthChecks | undefined {
    const database = this.databaseCheck.fresh();
    const limiter = this.limiterCheck.fresh();
    if (database === undefined || limiter === undefined || !this.deps.monitor.probed) return undefined;
    const last = this.lastChecks;
    if (last?.database !== database || last.limiter !== limiter) this.lastChecks = { database, limiter };
    return this.lastChecks;
  }

  /** The checks, run (or shared) now; just after start, the first chain probes are waited for briefly. */
  async check(): Promise<HealthChecks> {
    const [database] = await Promise.all([
      this.databaseCheck(),
      this.deps.monitor.probed ||
        Promise.race([
          this.deps.monitor.first,
          new Promise((r) => setTimeout(r, FIRST_PROBE_WAIT_MS).unref()),
        ]),
    ]);
    return { database, limiter: await this.limiterCheck() };
  }

  /** The report at `ms`; temporarily_unavailable (with the report) when a required component is down. */
  report(checks: HealthChecks, ms: number) {
    const { database, limiter } = checks;
    if (database === 'down' || limiter.status === 'down') {
      const down = [database === 'down' ? 'database' : '', limiter.status === 'down' ? 'limiter' : '']
        .filter(Boolean)
        .join(' and ');
      throw new ApiError('temporarily_unavailable', `A required component is down: ${down}`, {
        headers: { 'retry-after': '1' },
        health: { ...this.data(checks, ms), status: 'down' },
      });
    }
    return this.data(checks, ms);
  }

  /** Drops the shared checks: the app calls it on every 5xx answer, so an outage shows at once. */
  forget(): void {
    this.databaseCheck.forget();
    this.limiterCheck.forget();
  }

  private data(checks: HealthChecks, ms: number) {
    const chains = this.deps.monitor.status(ms);
    const chainDown = chains.some((c) => c.rpc === 'down') || this.failing.length > 0;
    return {
      status: chainDown ? ('degraded' as const) : ('ok' as const),
      version: VERSION,
      database: { status: checks.database, kind: this.deps.database.kind },
      limiter: checks.limiter,
      deployment: {
        status: this.deps.deploymentChecks
          ? this.failing.length > 0
            ? ('failing' as const)
            : ('ok' as const)
          : ('not_checked' as const),
        failing: this.failing,
      },
      chains,
    };
  }
}
