// quote_id: an opaque, HMAC-SHA256-signed token carrying everything prepare needs to re-quote. The
// secret is QUOTE_SECRET, or one generated once and kept in the database, so every replica on it signs
// and verifies alike. Verification is constant-time; any change to the token fails it.
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/db.ts';

/**
 * The gateway's signing secret (quote ids, cursors): the operator's QUOTE_SECRET, else the one in the
 * database, made by the first process that needs it (an older single-node install's data-dir secret is
 * adopted, so its quotes and cursors stay valid).
 */
export async function loadGatewaySecret(
  database: Database,
  dataDir: string,
  configured?: string,
): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  const db = database.db;
  const stored = () =>
    db.selectFrom('gateway_secrets').select('value').where('name', '=', 'signing').executeTakeFirst();
  const found = await stored();
  if (found) return Buffer.from(found.value, 'hex');
  const legacy = join(dataDir, 'quote-secret');
  const value = existsSync(legacy) ? readFileSync(legacy, 'utf8').trim() : randomBytes(32).toString('hex');
  // Two processes starting together: the first insert wins, and both read it back.
  await db
    .insertInto('gateway_secrets')
    .values({ name: 'signing', value, created_at: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return Buffer.from(((await stored()) as { value: string }).value, 'hex');
}

export class QuoteSigner {
  // Key objects, made once: createHmac given a Buffer prepares a key on every call (12-15 µs on Node 24,
  // against about 2 µs with a KeyObject).
  private readonly key: KeyObject;
  private readonly previous?: { key: KeyObject; untilMs: number; now: () => number };

  /**
   * `previous`: the secret before a rotation (QUOTE_SECRET_PREVIOUS), still accepted until `untilMs`
   * (the quote lifetime after start), so quotes issued just before a rotation can still be prepared.
   */
  constructor(secret: Buffer, previous?: { secret: Buffer; untilMs: number; now: () => number }) {
    this.key = createSecretKey(secret);
    if (previous)
      this.previous = { key: createSecretKey(previous.secret), untilMs: previous.untilMs, now: previous.now };
  }

  private mac(payload: string, key = this.key): Buffer {
    return createHmac('sha256', key).update(payload).digest();
  }

  sign(claims: object): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `q1.${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The claims of a genuine quote_id; anything else is invalid_parameter. */
  verify<T>(quoteId: string): T {
    const bad = () =>
      new ApiError('invalid_parameter', 'quote_id is not a quote this gateway issued, or it was changed', {
        invalid_parameters: [{ name: 'quote_id', reason: 'format', detail: 'quote_id does not verify' }],
      });
    const [version, payload, mac, extra] = quoteId.split('.');
    if (version !== 'q1' || !payload || !mac || extra !== undefined) throw bad();
    const given = Buffer.from(mac, 'base64url');
    const matches = (key: KeyObject) => {
      const expected = this.mac(payload, key);
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    const p = this.previous;
    if (!matches(this.key) && !(p && p.now() < p.untilMs && matches(p.key))) throw bad();
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
  }
}
