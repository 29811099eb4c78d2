// Wake-ups for readers of the event journal: "chain N's journal grew". In this process through an
// emitter; across processes on PostgreSQL through NOTIFY, sent by the writing transaction so that it
// arrives only once the rows are committed. A wake-up carries nothing but the chain: readers read the
// journal itself, so a lost wake-up costs latency (they also poll), never an event.
// In this process only, the same commits (and market refreshes) also drop the copies kept of the index
// (onCommitted: shared pages, index_state and market_state).
import { EventEmitter } from 'node:events';
import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database, Tables } from './db.ts';

const CHANNEL = 'lp_index_events';
const local = new WeakMap<Database, EventEmitter>();

function emitterOf(database: Database): EventEmitter {
  let emitter = local.get(database);
  if (!emitter) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    local.set(database, emitter);
  }
  return emitter;
}

/** Inside the writing transaction: on PostgreSQL, other processes hear of it when it commits. */
export async function notifyInTransaction(
  database: Database,
  trx: Transaction<Tables>,
  chainId: number,
): Promise<void> {
  if (database.kind === 'postgres') await sql`select pg_notify(${CHANNEL}, ${String(chainId)})`.execute(trx);
}

/** After the commit: this process's journal readers, and what it keeps of the index (onCommitted). */
export function announceCommitted(database: Database, chainId: number): void {
  emitterOf(database).emit('chain', chainId);
  emitterOf(database).emit('index', chainId);
}

/** After a market refresh wrote its rows and state: what this process keeps of the index (no journal grew). */
export function announceMarketWritten(database: Database, chainId: number): void {
  emitterOf(database).emit('index', chainId);
}

/** Calls `onCommit(chainId)` after each commit or market refresh of an indexer in this process. */
export function onCommitted(database: Database, onCommit: (chainId: number) => void): void {
  emitterOf(database).on('index', onCommit);
}

/**
 * Calls `onWake(chainId)` whenever a chain's journal grew, in this process and (PostgreSQL) in any
 * other; the LISTEN connection is remade after it drops. Returns the unsubscribe.
 */
export function onJournalGrowth(database: Database, onWake: (chainId: number) => void): () => Promise<void> {
  const emitter = emitterOf(database);
  emitter.on('chain', onWake);
  let stopped = false;
  let client: pg.Client | undefined;
  const connect = async (): Promise<void> => {
    while (!stopped && database.url) {
      const c = new pg.Client({ connectionString: database.url });
      c.on('error', () => {});
      try {
        await c.connect();
        c.on('notification', (n) => {
          const chainId = Number(n.payload);
          if (Number.isInteger(chainId)) onWake(chainId);
        });
        await c.query(`listen ${CHANNEL}`);
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        client = c;
        // A wake-up may have been missed while the connection was away: every reader looks again.
        onWake(-1);
        await new Promise<void>((resolve) => c.once('end', () => resolve()));
        client = undefined;
      } catch {
        await c.end().catch(() => {});
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 500));
    }
  };
  const running = database.kind === 'postgres' ? connect() : Promise.resolve();
  return async () => {
    stopped = true;
    emitter.off('chain', onWake);
    await client?.end().catch(() => {});
    await running;
  };
}
