// Standard Webhooks signatures (standardwebhooks.com): the secret is `whsec_` + base64 key bytes; each
// delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`: one
// `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret in use, space-separated (two while a
// rotated secret overlaps the new one). Receivers verify with any Standard Webhooks library.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 24 random bytes, as Standard Webhooks libraries expect them. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

/** Whether a string is a signing secret of this form. */
export function isWebhookSecret(secret: string): boolean {
  return secret.startsWith(PREFIX) && Buffer.from(secret.slice(PREFIX.length), 'base64').length >= 24;
}

/** The `webhook-signature` value of a delivery: one `v1,` signature per secret. */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestampS: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/** The three headers of a delivery. */
export function webhookHeaders(secrets: readonly string[], id: string, timestampS: number, body: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': signWebhook(secrets, id, timestampS, body),
  };
}
