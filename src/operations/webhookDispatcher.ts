// Webhook deliveries, one dispatcher per gateway process. It fills each endpoint's outbox from the event
// journal (the stream's source: the same rows, data and confirmation rule), then sends what is due:
// per endpoint and chain only the oldest pending delivery, so they arrive in order. A delivery is
// claimed with a lease (PostgreSQL: FOR UPDATE SKIP LOCKED), so one replica at a time attempts it and a
// replica that dies mid-attempt lets it go; it is marked delivered only after a 2xx, so delivery is at
// least once. Failures are retried with exponential backoff and jitter for 24 h, then the endpoint is
// disabled with the reason.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { sql } from 'kysely';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../store/db.ts';
import { telemetry } from '../telemetry.ts';
import type { SecretBox } from '../webhooks/sealed.ts';
import { webhookHeaders } from '../webhooks/signature.ts';
import { guardedLookup, type Resolve, type TargetPolicy } from '../webhooks/ssrf.ts';
import type { EventType } from '../indexer/journal.ts';
import { decide, type EventFilter } from './eventFeed.ts';
import { highWaters, readJournal, resolveEventData } from './eventRecords.ts';
import type { TokenReadDeps } from './tokenQueries.ts';
import { queuedDelivery } from './webhooks.ts';

export interface DispatcherDeps extends TokenReadDeps {
  secrets: SecretBox;
  policy: TargetPolicy;
  resolve?: Resolve;
  onGrowth(wake: (chainId: number) => void): () => Promise<void>;
}

export interface DispatcherOptions {
  /** How often due deliveries are looked for besides the journal's wake-ups. */
  pollMs: number;
  /** The first retry's delay; each next one doubles (with jitter), up to an hour. */
  retryBaseMs: number;
  /** How long a delivery is retried before the endpoint is disabled. */
  retryWindowMs: number;
}

/** A 2xx within this is success. */
const TIMEOUT_MS = 10_000;
/** At most this much of an answer is read. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** An attempt holds its delivery this long (then another replica may take it). */
const LEASE_MS = 30_000;
const BATCH = 50;
const n = (v: number | string | bigint | null) => Number(v);

interface Outcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** One POST of a delivery: no redirects followed, at most 64 KB of the answer read, 10 s at most. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  lookup: ReturnType<typeof guardedLookup>,
) {
  return new Promise<Outcome>((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      resolve(o);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'launchpad-gateway webhooks',
        },
        lookup,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const finish = () =>
          done({
            ok: status >= 200 && status < 300,
            status,
            error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
          });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, status: null, error: 'no answer within 10 s' });
    }, TIMEOUT_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err: Error & { code?: string }) =>
      done({
        ok: false,
        status: null,
        error: err.code === 'EBLOCKED' ? 'refused address' : (err.code ?? err.message),
      }),
    );
    req.end(body);
  });
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.lookup = guardedLookup(deps.policy, deps.resolve);
  }

  start(): void {
    this.unsubscribe = this.deps.onGrowth(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.unsubscribe?.();
    await this.running;
  }

  /** Runs a round now, or once more after the one under way. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          // (No enabled endpoint, no delivery to make: a gateway without webhooks spends one read a
          // wake-up, not a transaction, while the journal grows several times a second.)
          if ((await this.enqueue()) > 0)
            while ((await this.deliverDue()) > 0 && !this.stopped) this.again = true;
        } catch {
          // The database is away: the next poll tries again; nothing was marked done.
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
  }

  /** Queues each enabled endpoint's new events and moves its position on; returns the endpoints' count. */
  private async enqueue(): Promise<number> {
    const db = this.deps.database.db;
    const endpoints = await db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('disabled', '=', 0)
      .execute();
    if (endpoints.length === 0) return 0;
    const positions = await db.selectFrom('webhook_positions').selectAll().execute();
    const hw = await highWaters(this.deps);
    for (const e of endpoints) {
      const filter: EventFilter = {
        chainIds: e.chain_id ? [e.chain_id as ChainId] : [...CHAIN_IDS],
        types: e.types.split(',') as EventType[],
        token: e.token ?? undefined,
        confirmations: e.confirmations,
      };
      for (const chainId of filter.chainIds) {
        const at = positions.find((p) => p.endpoint_id === e.id && p.chain_id === chainId);
        if (!at) continue;
        await this.enqueueChain(e, filter, chainId, n(at.seq), hw.get(chainId) ?? -1);
      }
    }
    return endpoints.length;
  }

  private async enqueueChain(
    e: WebhookEndpointsTable,
    filter: EventFilter,
    chainId: ChainId,
    from: number,
    highWater: number,
  ): Promise<void> {
    const rows = await readJournal(this.deps, chainId, from, 500);
    if (rows.length === 0) return;
    await resolveEventData(this.deps, this.deps.settings.publicUrl, rows);
    const now = this.deps.clock.now();
    const queued: WebhookDeliveriesTable[] = [];
    let position = from;
    for (const row of rows) {
      const verdict = decide(row, filter, highWater);
      if (verdict === 'wait') break;
      position = row.seq;
      if (verdict === 'skip') continue;
      queued.push(
        queuedDelivery(
          e.id,
          {
            chain_id: chainId,
            seq: row.seq,
            event_id: `evt_${chainId}_${row.seq}`,
            event: row.removes !== null ? 'removed' : row.type,
          },
          row.data as string,
          now,
        ),
      );
    }
    if (position === from) return;
    await this.deps.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < queued.length; i += 200)
        await trx
          .insertInto('webhook_deliveries')
          .values(queued.slice(i, i + 200))
          .onConflict((oc) => oc.columns(['endpoint_id', 'chain_id', 'seq']).doNothing())
          .execute();
      // Forward only: another replica may have moved it further meanwhile.
      await trx
        .updateTable('webhook_positions')
        .set({ seq: position })
        .where('endpoint_id', '=', e.id)
        .where('chain_id', '=', chainId)
        .where('seq', '<', position)
        .execute();
    });
  }

  /** Claims the due heads of the outboxes and attempts them; returns how many were attempted. */
  private async deliverDue(): Promise<number> {
    const now = this.deps.clock.now();
    const database = this.deps.database;
    const claimed = await database.db.transaction().execute(async (trx) => {
      const lock = database.kind === 'postgres' ? sql`for update of d skip locked` : sql``;
      const { rows } = await sql<
        WebhookDeliveriesTable & {
          url: string;
          secret: string;
          previous_secret: string | null;
          previous_until: number | null;
        }
      >`
        select d.*, e.url, e.secret, e.previous_secret, e.previous_until
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.state = 'pending' and d.next_attempt_at <= ${now} and d.locked_until <= ${now} and e.disabled = 0
          and not exists (select 1 from webhook_deliveries p where p.endpoint_id = d.endpoint_id
            and p.chain_id = d.chain_id and p.state = 'pending' and p.seq < d.seq)
        order by d.next_attempt_at limit ${BATCH} ${lock}`.execute(trx);
      if (rows.length > 0)
        await trx
          .updateTable('webhook_deliveries')
          .set({ locked_until: now + LEASE_MS })
          .where((eb) =>
            eb.or(
              rows.map((d) =>
                eb.and([
                  eb('endpoint_id', '=', d.endpoint_id),
                  eb('chain_id', '=', d.chain_id),
                  eb('seq', '=', d.seq),
                ]),
              ),
            ),
          )
          .execute();
      return rows;
    });
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async attempt(
    d: WebhookDeliveriesTable & {
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_until: number | null;
    },
  ): Promise<void> {
    const now = this.deps.clock.now();
    const secrets = [this.deps.secrets.open(d.secret)];
    if (d.previous_secret && n(d.previous_until) > now)
      secrets.push(this.deps.secrets.open(d.previous_secret));
    const outcome = await post(
      d.url,
      webhookHeaders(secrets, d.event_id, Math.floor(now / 1000), d.body),
      d.body,
      this.lookup,
    );
    const db = this.deps.database.db;
    const at = this.deps.clock.now();
    const attempts = d.attempts + 1;
    const row = db
      .updateTable('webhook_deliveries')
      .where('endpoint_id', '=', d.endpoint_id)
      .where('chain_id', '=', d.chain_id)
      .where('seq', '=', d.seq);
    if (outcome.ok) {
      await row
        .set({
          state: 'delivered',
          attempts,
          last_status: outcome.status,
          last_error: null,
          delivered_at: at,
          locked_until: 0,
        })
        .execute();
      telemetry.webhookDelivery('delivered');
      return;
    }
    const expired = at - n(d.created_at) >= this.options.retryWindowMs;
    if (expired) {
      await row
        .set({
          state: 'failed',
          attempts,
          last_status: outcome.status,
          last_error: outcome.error,
          locked_until: 0,
        })
        .execute();
      await db
        .updateTable('webhook_endpoints')
        .set({
          disabled: 1,
          disabled_reason: `deliveries failed for ${Math.round(this.options.retryWindowMs / 3600_000)} h (last: ${outcome.error}); re-enable it with PATCH disabled=false`,
        })
        .where('id', '=', d.endpoint_id)
        .execute();
      telemetry.webhookDelivery('failed');
      return;
    }
    // Exponential backoff, capped at an hour, with jitter between half and all of it.
    const delay = Math.min(3600_000, this.options.retryBaseMs * 2 ** (attempts - 1));
    await row
      .set({
        attempts,
        last_status: outcome.status,
        last_error: outcome.error,
        next_attempt_at: at + Math.round(delay * (0.5 + Math.random() / 2)),
        locked_until: 0,
      })
      .execute();
    telemetry.webhookDelivery('retry');
  }
}
