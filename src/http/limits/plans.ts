// Plans (spec: Limits → Plans). Partner limits are custom: a partner key without overrides gets Builder's.
// Operators may override any field per key (`overrides` stored with the key).
import type { ApiKeyRecord, PlanName } from '../../store/apiKeys.ts';

export interface PlanLimits {
  unitsPerMinute: number;
  burstPerSecond: number;
  daily: number;
  monthly: number;
  maxPage: number;
  /** Event streams open at once (GET /v1/events). */
  streams: number;
  /** Webhook endpoints a key may have. */
  webhooks: number;
}

export const PLAN_LIMITS: Record<PlanName, PlanLimits> = {
  playground: {
    unitsPerMinute: 60,
    burstPerSecond: 20,
    daily: 2_500,
    monthly: 50_000,
    maxPage: 50,
    streams: 1,
    webhooks: 1,
  },
  developer: {
    unitsPerMinute: 300,
    burstPerSecond: 20,
    daily: 25_000,
    monthly: 500_000,
    maxPage: 100,
    streams: 5,
    webhooks: 5,
  },
  builder: {
    unitsPerMinute: 1_200,
    burstPerSecond: 100,
    daily: 250_000,
    monthly: 5_000_000,
    maxPage: 200,
    streams: 25,
    webhooks: 25,
  },
  partner: {
    unitsPerMinute: 1_200,
    burstPerSecond: 100,
    daily: 250_000,
    monthly: 5_000_000,
    maxPage: 200,
    streams: 25,
    webhooks: 25,
  },
};

const FIELDS = Object.keys(PLAN_LIMITS.developer) as (keyof PlanLimits)[];

// Key records are immutable and cached by the authenticator, so their limits are worked out once each.
const computed = new WeakMap<ApiKeyRecord, PlanLimits>();

/** A key's effective limits: its plan's, with any per-key overrides that are positive whole numbers. */
export function limitsFor(key: ApiKeyRecord): PlanLimits {
  let limits = computed.get(key);
  if (!limits) {
    limits = computeLimits(key);
    computed.set(key, limits);
  }
  return limits;
}

function computeLimits(key: ApiKeyRecord): PlanLimits {
  const limits = { ...PLAN_LIMITS[key.plan] };
  for (const field of FIELDS) {
    const value = key.overrides[field];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) limits[field] = value;
  }
  return limits;
}
