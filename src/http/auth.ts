// API-key authentication (spec: Authentication): key format, cached lookups, origin and scope checks.
import type { Clock } from '../clock.ts';
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  hasScope,
  keyPattern,
  secretMatches,
} from '../store/apiKeys.ts';
import { ApiError } from '../errors.ts';
import type { Scope } from '../store/scopes.ts';

/** Spec: valid authorization data is cached at most 5 s, an unknown key id at most 2 s. */
export const POSITIVE_TTL_MS = 5000;
export const NEGATIVE_TTL_MS = 2000;
const MAX_CACHED = 10_000;
const TOUCH_EVERY_MS = 60_000;

interface CacheEntry {
  record: ApiKeyRecord | undefined;
  until: number;
}

export interface AuthLogger {
  warn(obj: object, msg: string): void;
}

export class Authenticator {
  private readonly pattern: RegExp;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly pending = new Map<string, Promise<ApiKeyRecord | undefined>>();
  private readonly touched = new Map<string, number>();
  /**
   * The secret that last verified against each cached record (a new record, every POSITIVE_TTL_MS,
   * starts without one). Comparing with it in constant time costs a fraction of hashing the presented
   * secret, which profiles showed to be the largest part of a key check.
   */
  private readonly verified = new WeakMap<ApiKeyRecord, string>();

  constructor(
    private readonly store: ApiKeyStore,
    prefix: string,
    private readonly clock: Clock,
    private readonly log: AuthLogger,
    /** Runs before a database lookup (the per-source ceiling on uncached lookups); may throw. */
    private readonly beforeLookup: (source: string) => Promise<void> = async () => {},
  ) {
    this.pattern = keyPattern(prefix);
  }

  /**
   * Resolves the key in the x-api-key header, in the order of the spec's outcome table. Answers
   * synchronously when the key id is cached (the common case) and with a promise after a database lookup.
   */
  authenticate(
    header: string | string[] | undefined,
    origin: string | undefined,
    source: string,
  ): ApiKeyRecord | Promise<ApiKeyRecord> {
    if (header === undefined)
      throw new ApiError('missing_api_key', 'Send your API key in the x-api-key header');
    const match = typeof header === 'string' ? this.pattern.exec(header) : null;
    if (!match) throw new ApiError('invalid_api_key', 'The API key is malformed');
    const [, keyId, secret] = match as unknown as [string, string, string];
    const hit = this.cache.get(keyId);
    if (hit && hit.until > this.clock.now()) return this.check(hit.record, secret, origin);
    return this.lookup(keyId, source).then((record) => this.check(record, secret, origin));
  }

  private check(record: ApiKeyRecord | undefined, secret: string, origin: string | undefined) {
    if (!record || !this.secretVerifies(record, secret)) {
      throw new ApiError('invalid_api_key', 'The API key does not verify');
    }
    const now = this.clock.now();
    if (record.status !== 'active') throw new ApiError('invalid_api_key', 'The API key has been revoked');
    if (record.expiresAt && record.expiresAt.getTime() <= now) {
      throw new ApiError('invalid_api_key', 'The API key has expired');
    }
    if (origin !== undefined && !record.origins.includes(origin)) {
      throw new ApiError('origin_not_allowed', `Origin ${origin} is not allowed for this API key`);
    }
    this.touch(record.keyId, now);
    return record;
  }

  private secretVerifies(record: ApiKeyRecord, secret: string): boolean {
    const known = this.verified.get(record);
    if (known !== undefined && sameString(known, secret)) return true;
    if (!secretMatches(secret, record.secretHash)) return false;
    this.verified.set(record, secret);
    return true;
  }

  /** The scope check, separate so that admission can charge the base weight first (metering rule 3). */
  static requireScope(record: ApiKeyRecord, scope: Scope): void {
    if (!hasScope(record, scope)) throw new ApiError('insufficient_scope', `This operation needs ${scope}`);
  }

  /** One database lookup per key id at a time; concurrent requests for the same id share it. */
  private async lookup(keyId: string, source: string): Promise<ApiKeyRecord | undefined> {
    const now = this.clock.now();
    let inflight = this.pending.get(keyId);
    if (!inflight) {
      inflight = this.beforeLookup(source)
        .then(() => this.store.find(keyId))
        .finally(() => this.pending.delete(keyId));
      this.pending.set(keyId, inflight);
    }
    const record = await inflight;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.delete(keyId);
    this.cache.set(keyId, { record, until: now + (record ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
    return record;
  }

  /** Records last use at most once a minute per key, off the request path. */
  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId) ?? 0;
    if (now - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    this.store.touch(keyId, new Date(now)).catch((err: unknown) => {
      this.log.warn({ err, key_id: keyId }, 'could not record key use');
    });
  }
}

/**
 * Whether two strings are equal, in time that depends on their length only (never on where they first
 * differ), without the buffers a crypto.timingSafeEqual call would allocate per request.
 */
function sameString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
