// quote_id: an opaque, HMAC-SHA256-signed token carrying everything prepare needs to re-quote. The
// secret is QUOTE_SECRET, or one generated once and kept in the data dir (mode 0600). Verification is
// constant-time; any change to the token fails it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';

export function loadQuoteSecret(dataDir: string, configured?: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'quote-secret');
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch {
      // another process wrote it first; read theirs
    }
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

export class QuoteSigner {
  constructor(private readonly secret: Buffer) {}

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
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
    const expected = this.mac(payload);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
  }
}
