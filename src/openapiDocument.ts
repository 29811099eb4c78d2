// The OpenAPI document without a running gateway: a server built on a throw-away SQLite file and no
// chains, asked for /v1/openapi.json. Used by `launchpad openapi` and the client generator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainClients } from './chain/clients.ts';
import { systemClock } from './clock.ts';
import { MemoryBackend } from './http/limits/backend.ts';
import { Limiter } from './http/limits/limits.ts';
import { buildServer } from './server.ts';
import type { Settings } from './settings.ts';
import { openDatabase } from './store/db.ts';

/** The gateway's OpenAPI document as JSON text. */
export async function renderOpenapi(settings: Settings): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-openapi-'));
  const database = await openDatabase({ databaseUrl: undefined, dataDir });
  const app = await buildServer({
    settings,
    database,
    chains: new ChainClients({}, settings.rpcTimeoutMs),
    clock: systemClock,
    limiter: new Limiter(new MemoryBackend(), systemClock),
    logger: false,
  });
  try {
    return (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).body;
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
