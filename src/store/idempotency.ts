// Idempotency records (spec: Idempotency; REFERENCE §6.2): one row per (API key, Idempotency-Key),
// taken atomically by insert, completed with the exact response, kept 24 hours.
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Database } from './db.ts';

export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** Longer than any request may run; a record still running after it belongs to a dead process. */
export const LEASE_MS = 120_000;

export type Begin =
  | { kind: 'run' }
  | { kind: 'replay'; status: number; contentType: string; body: string }
  | { kind: 'in_progress' }
  | { kind: 'reused' };

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Method, route template, path parameters and body with sorted keys. */
export function fingerprint(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, route, canonical(params ?? {}), canonical(body ?? null)]))
    .digest('hex');
}

export class IdempotencyStore {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Whether a live record for this key answers an identical request already (done: a replay; running: a
   * duplicate in progress). Admission uses it to spare such requests the ceilings a new one would meet.
   */
  async answered(keyId: string, idemKey: string, print: string): Promise<boolean> {
    const now = this.clock.now();
    const row = await this.database.db
      .selectFrom('idempotency_records')
      .select(['fingerprint', 'state', 'lease_until', 'expires_at'])
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= now || row.fingerprint !== print) return false;
    return row.state === 'done' || Number(row.lease_until) > now;
  }

  /** Takes the record for this request, or says why the request must not run. */
  async begin(keyId: string, idemKey: string, print: string): Promise<Begin> {
    const db = this.database.db;
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      const inserted = await db
        .insertInto('idempotency_records')
        .values({
          key_id: keyId,
          idem_key: idemKey,
          fingerprint: print,
          state: 'running',
          lease_until: now + LEASE_MS,
          status: null,
          content_type: null,
          body: null,
          created_at: now,
          expires_at: now + RETENTION_MS,
        })
        .onConflict((oc) => oc.columns(['key_id', 'idem_key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'run' };

      const row = await db
        .selectFrom('idempotency_records')
        .selectAll()
        .where('key_id', '=', keyId)
        .where('idem_key', '=', idemKey)
        .executeTakeFirst();
      if (!row) continue; // purged meanwhile: insert again
      if (Number(row.expires_at) <= now) {
        await db
          .deleteFrom('idempotency_records')
          .where('key_id', '=', keyId)
          .where('idem_key', '=', idemKey)
          .where('expires_at', '=', row.expires_at)
          .execute();
        continue;
      }
      if (row.fingerprint !== print) return { kind: 'reused' };
      if (row.state === 'done') {
        return {
          kind: 'replay',
          status: Number(row.status),
          contentType: row.content_type ?? 'application/json',
          body: row.body ?? '',
        };
      }
      if (Number(row.lease_until) > now) return { kind: 'in_progress' };
      // The request that held it died: take it over, if nobody else did first.
      const taken = await db
        .updateTable('idempotency_records')
        .set({ lease_until: now + LEASE_MS })
        .where('key_id', '=', keyId)
        .where('idem_key', '=', idemKey)
        .where('state', '=', 'running')
        .where('lease_until', '=', row.lease_until)
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? { kind: 'run' } : { kind: 'in_progress' };
    }
    return { kind: 'in_progress' };
  }

  async complete(keyId: string, idemKey: string, status: number, contentType: string, body: string) {
    await this.database.db
      .updateTable('idempotency_records')
      .set({ state: 'done', status, content_type: contentType, body })
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .execute();
  }

  /** Deletes records older than the retention; returns how many. */
  async purge(): Promise<number> {
    const result = await this.database.db
      .deleteFrom('idempotency_records')
      .where('expires_at', '<=', this.clock.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
