// The one units table (spec: Limits → Units per operation, and the page-size scaling rules). Every
// operation of the route catalog is here, served yet or not, so a new route only names its operation.
import type { Operation } from '../catalog.ts';

export interface UnitRule {
  /** Units of one request at the default page (or of one position for per-position rules). */
  base: number;
  /** Paged reads: `base` units per `rows` rows of `limit` (rounded up). */
  perRows?: number;
  /** Claim batches: `base` units per position in `claims`. */
  perPosition?: boolean;
}

export const DEFAULT_PAGE = 25;

export const UNITS: Record<Operation, UnitRule> = {
  health: { base: 0 },
  openapi: { base: 0 },
  // 1 for include=chains only; 5 for live crypto-paired (standard) sections; 20 for stock-paired or all.
  config: { base: 1 },
  token_list: { base: 2, perRows: 25 },
  token_search: { base: 2, perRows: 25 },
  creator_tokens: { base: 2, perRows: 25 },
  token_detail: { base: 2 },
  wallet_summary: { base: 2 },
  token_trades: { base: 3, perRows: 25 },
  wallet_activity: { base: 3, perRows: 25 },
  fee_claims_read: { base: 3, perRows: 25 },
  token_announcements: { base: 2, perRows: 25 },
  holder_snapshot: { base: 10, perRows: 50 },
  transaction_status: { base: 1 },
  // Opening a stream; what it then carries costs nothing more.
  events: { base: 5 },
  // Webhook endpoints: reads as reads, changes as the other writes; the delivery log pages as trades.
  webhook_list: { base: 2 },
  webhook_detail: { base: 2 },
  webhook_deliveries: { base: 3, perRows: 25 },
  webhook_create: { base: 3 },
  webhook_update: { base: 3 },
  webhook_delete: { base: 3 },
  webhook_rotate_secret: { base: 3 },
  webhook_test: { base: 3 },
  swap_quote: { base: 5 },
  swap_prepare: { base: 5 },
  fee_claim_prepare: { base: 3, perPosition: true },
  vesting_claim_prepare: { base: 3, perPosition: true },
  dividend_claim_prepare: { base: 3, perPosition: true },
  announcement_prepare: { base: 3 },
  metadata_onchain_prepare: { base: 3 },
  metadata_document_prepare: { base: 10 },
  // The combined form costs what its focused route costs: 10 for update_profile, else 3.
  metadata_legacy_prepare: { base: 3 },
  launch_prepare: { base: 20 },
  // Operator routes cost what a read costs: an operator's key has its own budget.
  admin_keys_list: { base: 2 },
  admin_key_create: { base: 2 },
  admin_key_detail: { base: 1 },
  admin_key_update: { base: 2 },
  admin_key_revoke: { base: 2 },
  admin_key_usage: { base: 1 },
};

export interface WeighInput {
  query: Record<string, unknown>;
  body: unknown;
}

/** The configuration weight from `include` and `market` (spec: Units per operation). */
const CHAINS_ONLY = /^chains(?:,chains)*$/;

function configUnits(query: Record<string, unknown>): number {
  const include = typeof query.include === 'string' ? query.include : 'chains,suites,quotes';
  if (CHAINS_ONLY.test(include)) return 1;
  return query.market === 'standard' ? 5 : 20;
}

/** Units a request costs. Malformed inputs fall back to the base weight; validation rejects them later. */
export function weigh(operation: Operation, input: WeighInput): number {
  const rule = UNITS[operation];
  if (operation === 'config') return configUnits(input.query);
  const body = (input.body ?? {}) as Record<string, unknown>;
  if (operation === 'metadata_legacy_prepare' && body.operation === 'update_profile') {
    return UNITS.metadata_document_prepare.base;
  }
  if (rule.perPosition) {
    const positions = Array.isArray(body.claims) ? body.claims.length : 1;
    return rule.base * Math.max(1, positions);
  }
  if (rule.perRows) return rule.base * Math.ceil(pageSize(input.query) / rule.perRows);
  return rule.base;
}

/** The requested page size, or the default when absent or not a positive whole number. */
export function pageSize(query: Record<string, unknown>): number {
  const limit = Number(query.limit);
  return Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_PAGE;
}
