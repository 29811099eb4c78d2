// Per-request loggers created on first use. fastify makes a pino child logger for every request; when
// the request logs nothing at an enabled level (e.g. LOG_LEVEL=warn and no fault) that child is pure cost,
// about a quarter of a cheap request's time in profiles. This one builds the pino child only when a log
// line is actually written.
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;

class LazyRequestLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly opts: object,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  private write(level: Level, args: unknown[]): void {
    // pino answers isLevelEnabled; fastify's null logger (logger: false) has no such method and logs nothing.
    const parent = this.parent as unknown as Partial<Logger>;
    if (!parent.isLevelEnabled?.(level)) return;
    this.real ??= this.parent.child(this.bindings, this.opts);
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  info(...args: unknown[]) {
    this.write('info', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
  silent() {}
  child(bindings: Bindings, opts?: object): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.opts);
    return this.real.child(bindings, opts);
  }
}

export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: object,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, opts) as unknown as FastifyBaseLogger;
}
