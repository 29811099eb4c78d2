// The typed client: its generated types match the gateway's OpenAPI document as it is now (regenerate with
// `npm run client:generate`); the client itself is exercised end to end by `launchpad demo` (cli.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientTypes } from '../src/client/generate.ts';
import { createLaunchpadClient } from '../src/client/index.ts';
import { startGateway } from './support/gateway.ts';

describe('typed client', () => {
  it('src/client/openapi.ts is what the generator makes from the current document', async () => {
    const committed = readFileSync(new URL('../src/client/openapi.ts', import.meta.url), 'utf8');
    expect(committed === (await generateClientTypes()), 'run npm run client:generate').toBe(true);
  }, 60_000);

  it('reads typed answers and problems from a running gateway', async () => {
    const gw = await startGateway();
    try {
      const key = await gw.createKey();
      const api = createLaunchpadClient(`${gw.origin}/v1`, key);
      const health = await api.GET('/v1/health');
      expect(health.data?.data.status).toBeDefined();
      const bad = await createLaunchpadClient(gw.origin, 'lp_launch_00000000_nope').GET('/v1/config', {
        params: { query: { chain_id: 8453 } },
      });
      expect(bad.response.status).toBe(401);
      expect(bad.error).toMatchObject({ code: 'invalid_api_key' });
    } finally {
      await gw.close();
    }
  });
});
