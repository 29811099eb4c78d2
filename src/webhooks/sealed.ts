// Webhook signing secrets at rest: AES-256-GCM under a key derived from the gateway secret (shared by
// every replica through the database), so a database dump alone does not yield them. They must be
// readable again (each delivery is signed with them), so they are sealed, not hashed.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export class SecretBox {
  private readonly key: Buffer;

  constructor(gatewaySecret: Buffer) {
    this.key = createHmac('sha256', gatewaySecret).update('launchpad webhook secrets').digest();
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
