// Opaque, signed pagination cursors: bound to the route and its filters (cursor_filter_mismatch when
// reused elsewhere), carrying the last row's position. HMAC-SHA256 with a key derived from the
// gateway's secret; checked in constant time.
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.ts';

export class Cursors {
  /** A KeyObject: createHmac given a Buffer prepares a key on every call (12-15 µs on Node 24). */
  private readonly key: KeyObject;

  constructor(secret: Buffer) {
    this.key = createSecretKey(createHmac('sha256', secret).update('launchpad cursors').digest());
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  static scope(route: string, filters: Record<string, unknown>): string {
    return createHash('sha256')
      .update(JSON.stringify([route, filters]))
      .digest('base64url')
      .slice(0, 16);
  }

  encode(scope: string, position: (string | number)[]): string {
    const payload = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
    return `c1.${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The position a cursor resumes from, for this scope. */
  decode(cursor: string, scope: string): (string | number)[] {
    const bad = () =>
      new ApiError('invalid_parameter', 'cursor is not a cursor this gateway issued', {
        invalid_parameters: [{ name: 'cursor', reason: 'format', detail: 'not a valid cursor' }],
      });
    const [version, payload, mac, extra] = cursor.split('.');
    if (version !== 'c1' || !payload || !mac || extra !== undefined) throw bad();
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
    const { s, p } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      s: string;
      p: (string | number)[];
    };
    if (s !== scope) {
      throw new ApiError(
        'cursor_filter_mismatch',
        'This cursor belongs to another route or other filters; restart without it',
      );
    }
    return p;
  }
}
