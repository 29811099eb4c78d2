// Webhook endpoints of an API key: register, list, read, change, delete, rotate the signing secret, send a
// test ping, and read the delivery log. Deliveries themselves are made by webhookDispatcher.ts from the
// same event journal as GET /v1/events. A key sees and changes only its own endpoints.
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Clock } from '../clock.ts';
import { Cursors } from '../cursor.ts';
import { ApiError } from '../errors.ts';
import { EVENT_TYPES, type EventType } from '../indexer/journal.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../store/db.ts';
import type { SecretBox } from '../webhooks/sealed.ts';
import { newWebhookSecret } from '../webhooks/signature.ts';
import { checkWebhookUrl, type Resolve, type TargetPolicy } from '../webhooks/ssrf.ts';
import { journalSpan } from './eventRecords.ts';

export interface WebhookDeps {
  database: Database;
  clock: Clock;
  secrets: SecretBox;
  cursors: Cursors;
  policy: TargetPolicy;
  /** Host resolution for the target check (tests inject one). */
  resolve?: Resolve;
}

/** What a caller sets on an endpoint. */
export interface WebhookFilters {
  url?: string;
  types?: EventType[];
  chain_id?: ChainId | null;
  token_address?: string | null;
  confirmations?: number;
  description?: string;
}

/** A rotated secret keeps signing beside the new one this long. */
export const SECRET_OVERLAP_MS = 24 * 3600_000;

const iso = (ms: number | string | bigint | null) =>
  ms === null ? null : new Date(Number(ms)).toISOString();

/** An endpoint as the API shows it (never its secret, but on creation and rotation). */
function endpointRecord(e: WebhookEndpointsTable) {
  return {
    id: e.id,
    url: e.url,
    types: e.types.split(',') as EventType[],
    chain_id: e.chain_id,
    token_address: e.token,
    confirmations: e.confirmations,
    description: e.description,
    disabled: e.disabled === 1,
    disabled_reason: e.disabled_reason,
    created_at: iso(e.created_at) as string,
  };
}

async function ownEndpoint(deps: WebhookDeps, keyId: string, id: string): Promise<WebhookEndpointsTable> {
  const row = await deps.database.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('key_id', '=', keyId)
    .executeTakeFirst();
  if (!row)
    throw new ApiError('not_found', `No webhook endpoint ${id} for this API key`, { resource: 'webhook' });
  return row;
}

const typesOf = (types: EventType[] | undefined) => [...new Set(types ?? EVENT_TYPES)].sort().join(',');

/** Registers an endpoint for a key; its secret is in the answer this once. */
export async function createWebhook(
  deps: WebhookDeps,
  input: WebhookFilters & { url: string; keyId: string; maxEndpoints: number },
) {
  const url = await checkWebhookUrl(input.url, deps.policy, deps.resolve);
  const db = deps.database.db;
  const count = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_id', '=', input.keyId)
    .executeTakeFirst();
  if (Number(count?.n ?? 0) >= input.maxEndpoints)
    throw new ApiError(
      'quota_exceeded',
      `This key has its ${input.maxEndpoints} webhook endpoints; delete one or ask for a higher limit`,
      { violated_policies: ['webhooks-key-endpoints'], headers: { 'retry-after': '60' } },
    );
  const secret = newWebhookSecret();
  const row: WebhookEndpointsTable = {
    id: `wh_${randomBytes(12).toString('hex')}`,
    key_id: input.keyId,
    url: url.toString(),
    types: typesOf(input.types),
    chain_id: input.chain_id ?? null,
    token: input.token_address ? getAddress(input.token_address) : null,
    confirmations: input.confirmations ?? 0,
    description: input.description ?? '',
    secret: deps.secrets.seal(secret),
    previous_secret: null,
    previous_until: null,
    disabled: 0,
    disabled_reason: null,
    created_at: deps.clock.now(),
  };
  // Events from now on: each chain's journal as it stands.
  const chains = row.chain_id ? [row.chain_id as ChainId] : [...CHAIN_IDS];
  const spans = await Promise.all(chains.map((c) => journalSpan(deps, c)));
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_endpoints').values(row).execute();
    await trx
      .insertInto('webhook_positions')
      .values(chains.map((c, i) => ({ endpoint_id: row.id, chain_id: c, seq: spans[i]?.last ?? 0 })))
      .execute();
  });
  return { ...endpointRecord(row), secret };
}

/** A key's endpoints, oldest first. */
export async function listWebhooks(deps: WebhookDeps, input: { keyId: string }) {
  const rows = await deps.database.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('key_id', '=', input.keyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(endpointRecord);
}

/** One of a key's endpoints. */
export async function getWebhook(deps: WebhookDeps, input: { keyId: string; id: string }) {
  return endpointRecord(await ownEndpoint(deps, input.keyId, input.id));
}

/** Changes an endpoint's URL, filters or description, or disables / re-enables it. */
export async function updateWebhook(
  deps: WebhookDeps,
  input: WebhookFilters & { keyId: string; id: string; disabled?: boolean },
) {
  const current = await ownEndpoint(deps, input.keyId, input.id);
  const url =
    input.url === undefined
      ? current.url
      : (await checkWebhookUrl(input.url, deps.policy, deps.resolve)).toString();
  const chainId = input.chain_id === undefined ? current.chain_id : input.chain_id;
  const next = {
    url,
    types: input.types === undefined ? current.types : typesOf(input.types),
    chain_id: chainId,
    token:
      input.token_address === undefined
        ? current.token
        : input.token_address && getAddress(input.token_address),
    confirmations: input.confirmations ?? current.confirmations,
    description: input.description ?? current.description,
    disabled: input.disabled === undefined ? current.disabled : input.disabled ? 1 : 0,
    disabled_reason:
      input.disabled === undefined
        ? current.disabled_reason
        : input.disabled
          ? 'disabled by its owner'
          : null,
  };
  const db = deps.database.db;
  // A chain newly followed starts at its journal's end.
  const chains = chainId ? [chainId as ChainId] : [...CHAIN_IDS];
  const spans = await Promise.all(chains.map((c) => journalSpan(deps, c)));
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('webhook_endpoints').set(next).where('id', '=', current.id).execute();
    await trx
      .insertInto('webhook_positions')
      .values(chains.map((c, i) => ({ endpoint_id: current.id, chain_id: c, seq: spans[i]?.last ?? 0 })))
      .onConflict((oc) => oc.columns(['endpoint_id', 'chain_id']).doNothing())
      .execute();
  });
  return endpointRecord({ ...current, ...next });
}

/** Deletes an endpoint with its pending deliveries and its log. */
export async function deleteWebhook(deps: WebhookDeps, input: { keyId: string; id: string }) {
  const current = await ownEndpoint(deps, input.keyId, input.id);
  await deps.database.db.transaction().execute(async (trx) => {
    for (const table of ['webhook_deliveries', 'webhook_positions'] as const)
      await trx.deleteFrom(table).where('endpoint_id', '=', current.id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', current.id).execute();
  });
  return { id: current.id, deleted: true };
}

/** A new signing secret (shown this once); the old one keeps signing beside it for 24 h. */
export async function rotateWebhookSecret(deps: WebhookDeps, input: { keyId: string; id: string }) {
  const current = await ownEndpoint(deps, input.keyId, input.id);
  const secret = newWebhookSecret();
  const previousUntil = deps.clock.now() + SECRET_OVERLAP_MS;
  await deps.database.db
    .updateTable('webhook_endpoints')
    .set({
      secret: deps.secrets.seal(secret),
      previous_secret: current.secret,
      previous_until: previousUntil,
    })
    .where('id', '=', current.id)
    .execute();
  return { ...endpointRecord(current), secret, previous_secret_expires_at: iso(previousUntil) as string };
}

/** Queues one `ping` delivery to the endpoint. */
export async function testWebhook(deps: WebhookDeps, input: { keyId: string; id: string }) {
  const current = await ownEndpoint(deps, input.keyId, input.id);
  const now = deps.clock.now();
  const eventId = `ping_${randomBytes(8).toString('hex')}`;
  await deps.database.db
    .insertInto('webhook_deliveries')
    .values(
      queuedDelivery(
        current.id,
        { chain_id: 0, seq: now * 1000 + Math.floor(Math.random() * 1000), event_id: eventId, event: 'ping' },
        JSON.stringify({
          type: 'ping',
          webhook_endpoint_id: current.id,
          sent_at: new Date(now).toISOString(),
        }),
        now,
      ),
    )
    .execute();
  return { id: current.id, event_id: eventId };
}

/** A delivery as it enters the outbox: pending, due now, never attempted. */
export function queuedDelivery(
  endpointId: string,
  what: { chain_id: number; seq: number; event_id: string; event: string },
  body: string,
  now: number,
): WebhookDeliveriesTable {
  return {
    endpoint_id: endpointId,
    ...what,
    body,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: 0,
    last_status: null,
    last_error: null,
    created_at: now,
    delivered_at: null,
  };
}

/** An endpoint's deliveries, newest first, paged. */
export async function listWebhookDeliveries(
  deps: WebhookDeps,
  input: { keyId: string; id: string; limit: number; cursor?: string },
) {
  const current = await ownEndpoint(deps, input.keyId, input.id);
  const scope = Cursors.scope('webhook_deliveries', { id: current.id });
  let query = deps.database.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', current.id);
  if (input.cursor) {
    const [at, chain, seq] = deps.cursors.decode(input.cursor, scope) as [number, number, number];
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', at),
        eb.and([eb('created_at', '=', at), eb('chain_id', '<', chain)]),
        eb.and([eb('created_at', '=', at), eb('chain_id', '=', chain), eb('seq', '<', seq)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('chain_id', 'desc')
    .orderBy('seq', 'desc')
    .limit(input.limit + 1)
    .execute();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((d) => ({
      event_id: d.event_id,
      event: d.event,
      chain_id: d.chain_id === 0 ? null : d.chain_id,
      state: d.state,
      attempts: d.attempts,
      last_status: d.last_status,
      last_error: d.last_error,
      next_attempt_at: d.state === 'pending' ? iso(d.next_attempt_at) : null,
      created_at: iso(d.created_at) as string,
      delivered_at: iso(d.delivered_at),
    })),
    next:
      rows.length > input.limit && last
        ? deps.cursors.encode(scope, [Number(last.created_at), last.chain_id, Number(last.seq)])
        : null,
  };
}
