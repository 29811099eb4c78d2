// The webhook building blocks alone: Standard Webhooks signatures that the `standardwebhooks` library
// verifies (both secrets during a rotation), and the target policy: https, public addresses only, checked
// at registration and again at connect time.
import { request } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { newWebhookSecret, webhookHeaders } from '../src/webhooks/signature.ts';
import { addressAllowed, checkWebhookUrl, guardedLookup, type Resolve } from '../src/webhooks/ssrf.ts';

describe('webhook signatures', () => {
  it('verify with the standardwebhooks library, with either secret while a rotation overlaps', () => {
    const [old, fresh] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: 'trade', chain_id: 8453, record: { side: 'buy' } });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([fresh, old], 'evt_8453_42', now, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // Another secret, a changed body or id: refused.
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(old).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(old).verify(body, { ...headers, 'webhook-id': 'evt_8453_43' })).toThrow();
  });
});

describe('webhook targets', () => {
  const production = { allowLocal: false };
  // Names this test resolves itself (no network here): one public, one pointing at the metadata service.
  const names: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'metadata.example.com': ['169.254.169.254'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
  };
  const resolve: Resolve = async (host) => {
    const found = names[host];
    if (!found) throw new Error('ENOTFOUND');
    return found;
  };
  /** The refusal's message; `system` asks the machine's resolver instead of the names above. */
  const refused = async (url: string, policy = production, system = false) => {
    const err = await checkWebhookUrl(url, policy, system ? undefined : resolve).catch((e: unknown) => e);
    expect(err, url).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_parameter');
    return (err as ApiError).message;
  };

  it('in production: https to public addresses only', async () => {
    expect((await checkWebhookUrl('https://hooks.example.com/in', production, resolve)).host).toBe(
      'hooks.example.com',
    );
    expect(await refused('http://hooks.example.com/in')).toMatch(/must be https/);
    expect(await refused('https://metadata.example.com/latest/meta-data')).toMatch(/may not reach/);
    expect(await refused('https://mixed.example.com/')).toMatch(/may not reach/);
    // The system resolver: localhost is 127.0.0.1.
    expect(await refused('https://localhost:8443/hook', production, true)).toMatch(/may not reach/);
    for (const literal of [
      'https://127.0.0.1/',
      'https://169.254.169.254/',
      'https://10.1.2.3/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://224.0.0.1/',
    ])
      expect(await refused(literal)).toMatch(/may not reach/);
    expect(await refused('https://user:pw@hooks.example.com/')).toMatch(/credentials/);
    expect(await refused('https://nowhere.example.com/')).toMatch(/does not resolve/);
    expect(await refused('not a url')).toMatch(/absolute URL/);
  });

  it('on the devnet: http and loopback receivers too, never private or metadata addresses', async () => {
    const local = { allowLocal: true };
    expect((await checkWebhookUrl('http://127.0.0.1:9000/hook', local)).port).toBe('9000');
    expect(addressAllowed('::1', local)).toBe(true);
    expect(await refused('http://169.254.169.254/', local)).toMatch(/may not reach/);
    expect(await refused('http://10.0.0.1/', local)).toMatch(/may not reach/);
  });

  it('refuses at connect time a name that now resolves to a refused address (DNS rebinding)', async () => {
    // Registered while public; the name now points at the metadata service.
    names['rebind.example.com'] = ['93.184.216.34'];
    await checkWebhookUrl('https://rebind.example.com/', production, resolve);
    names['rebind.example.com'] = ['169.254.169.254'];
    const err = await new Promise<Error>((done) => {
      const req = request('https://rebind.example.com/', { lookup: guardedLookup(production, resolve) });
      req.on('error', done);
      req.end();
    });
    expect((err as Error & { code?: string }).code).toBe('EBLOCKED');
  });
});
