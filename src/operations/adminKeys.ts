// Operator operations on API keys: list, create, read, set limit overrides, revoke, and read what a key
// has used (from the limiter's own counters). The CLI (`launchpad keys`) and /v1/admin/keys share them.
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { Limiter } from '../http/limits/limits.ts';
import { PLAN_LIMITS } from '../http/limits/plans.ts';
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  describeKey,
  KeyOptionError,
  type PlanName,
} from '../store/apiKeys.ts';

export interface AdminKeyDeps {
  store: ApiKeyStore;
  limiter: Limiter;
  clock: Clock;
}

/** The limit fields a key may override (those of every plan). */
export const LIMIT_FIELDS = Object.keys(PLAN_LIMITS.developer);

/** Per-key limit overrides: positive whole numbers for the plan fields only; throws KeyOptionError. */
export function checkLimitOverrides(value: unknown): Record<string, number> {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new KeyOptionError('limits must be a JSON object');
  for (const [field, n] of Object.entries(value)) {
    if (!LIMIT_FIELDS.includes(field))
      throw new KeyOptionError(`unknown limit ${field} (known: ${LIMIT_FIELDS.join(', ')})`);
    if (!Number.isInteger(n) || (n as number) <= 0)
      throw new KeyOptionError(`${field} must be a positive whole number`);
  }
  return value as Record<string, number>;
}

/** A key as operators see it: `expired` once an active key's expiry has passed. */
export function keyView(record: ApiKeyRecord, nowMs: number) {
  const view = describeKey(record);
  const expired = view.status === 'active' && record.expiresAt && record.expiresAt.getTime() <= nowMs;
  return { ...view, status: expired ? ('expired' as const) : view.status };
}

/** A store's refusal of an option as the API's problem. */
function invalid(err: unknown, name: string): never {
  if (err instanceof KeyOptionError)
    throw new ApiError('invalid_parameter', err.message, {
      invalid_parameters: [{ name, reason: 'format', detail: err.message }],
    });
  throw err;
}

async function found(deps: AdminKeyDeps, id: string): Promise<ApiKeyRecord> {
  const record = await deps.store.find(id);
  if (!record) throw new ApiError('not_found', `No API key ${id}`);
  return record;
}

/** Every key, oldest first. */
export async function listKeys(deps: AdminKeyDeps) {
  const now = deps.clock.now();
  return (await deps.store.list()).map((r) => keyView(r, now));
}

export interface CreateKeyInput {
  plan: PlanName;
  scopes: string[];
  origins?: string[];
  expires_at?: string;
  limits?: Record<string, number>;
}

/** Creates a key; the answer holds the key itself, which nothing stores. */
export async function createKey(deps: AdminKeyDeps, input: CreateKeyInput) {
  const expiresAt = input.expires_at === undefined ? undefined : new Date(input.expires_at);
  if (expiresAt && !(expiresAt.getTime() > deps.clock.now()))
    invalid(new KeyOptionError(`expires_at ${input.expires_at} is not in the future`), 'expires_at');
  let overrides: Record<string, number> = {};
  try {
    overrides = checkLimitOverrides(input.limits ?? {});
  } catch (err) {
    invalid(err, 'limits');
  }
  const created = await deps.store
    .create({ plan: input.plan, scopes: input.scopes, origins: input.origins ?? [], expiresAt, overrides })
    .catch((err) => invalid(err, /origin/.test(String(err?.message)) ? 'origins' : 'scopes'));
  return { ...keyView(created.record, deps.clock.now()), key: created.key };
}

/** One key. */
export async function getKey(deps: AdminKeyDeps, input: { id: string }) {
  return keyView(await found(deps, input.id), deps.clock.now());
}

/** Replaces a key's limit overrides (in effect on every replica within the key cache's 5 s). */
export async function setKeyLimits(
  deps: AdminKeyDeps,
  input: { id: string; limits: Record<string, number> },
) {
  let overrides: Record<string, number> = {};
  try {
    overrides = checkLimitOverrides(input.limits);
  } catch (err) {
    invalid(err, 'limits');
  }
  if (!(await deps.store.setOverrides(input.id, overrides)))
    throw new ApiError('not_found', `No API key ${input.id}`);
  return getKey(deps, input);
}

/** Revokes a key (refused on every replica within the key cache's 5 s; its event streams end). */
export async function revokeKey(deps: AdminKeyDeps, input: { id: string }) {
  if (!(await deps.store.revoke(input.id))) throw new ApiError('not_found', `No API key ${input.id}`);
  return getKey(deps, input);
}

/** What a key has used and has left this minute, day and month, and its requests and 429s per route. */
export async function keyUsage(deps: AdminKeyDeps, input: { id: string }) {
  const record = await found(deps, input.id);
  return { key_id: record.keyId, plan: record.plan, ...(await deps.limiter.usage(record)) };
}
