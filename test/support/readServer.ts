// A gateway in this process over an index, with no chain behind it: the reads of the index only (the
// plans test, the indexer bench), with a key that may read everything.
import { ChainClients } from '../../src/chain/clients.ts';
import { ManualClock } from '../../src/clock.ts';
import { openLimiter } from '../../src/http/limits/limits.ts';
import { buildServer } from '../../src/server.ts';
import type { Settings } from '../../src/settings.ts';
import { ApiKeyStore } from '../../src/store/apiKeys.ts';
import type { Database } from '../../src/store/db.ts';

/** The server (not listening yet) and a partner key with every scope. */
export async function readServer(settings: Settings, database: Database) {
  const clock = new ManualClock(Date.now());
  const app = await buildServer({
    settings,
    database,
    chains: new ChainClients({}, 1000),
    clock,
    limiter: await openLimiter(settings, clock),
    logger: false,
  });
  const { key } = await new ApiKeyStore(database, settings.keyPrefix).create({
    plan: 'partner',
    scopes: ['*'],
    origins: [],
    overrides: {},
  });
  return { app, key };
}
