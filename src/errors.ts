// The one error table (spec: Errors → Codes). Code, the OpenAPI document and the docs page all read it.

export interface ErrorSpec {
  status: number;
  title: string;
  /** The safe next step, sent as the problem's `action`. */
  action: string;
}

export const ERRORS = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    action: 'Fix the request transport (JSON syntax, content type, body size) and send it again.',
  },
  unknown_parameter: {
    status: 400,
    title: 'Unknown parameter',
    action: 'Remove the parameters listed in invalid_parameters.',
  },
  duplicate_parameter: {
    status: 400,
    title: 'Duplicate parameter',
    action: 'Send each query parameter at most once.',
  },
  incompatible_parameters: {
    status: 400,
    title: 'Incompatible parameters',
    action: 'Send only one of the parameters listed in invalid_parameters, or use suggested_endpoint.',
  },
  invalid_parameter: {
    status: 400,
    title: 'Invalid parameter',
    action: 'Correct the values listed in invalid_parameters.',
  },
  missing_idempotency_key: {
    status: 400,
    title: 'Idempotency-Key required',
    action: 'Send an Idempotency-Key header (a new random UUID per new request).',
  },
  invalid_idempotency_key: {
    status: 400,
    title: 'Invalid Idempotency-Key',
    action: 'Send an Idempotency-Key of 1 to 255 characters.',
  },
  missing_api_key: {
    status: 401,
    title: 'API key required',
    action: 'Send your API key in the x-api-key header.',
  },
  invalid_api_key: {
    status: 401,
    title: 'Invalid API key',
    action: 'Check the key in x-api-key; it may be malformed, revoked or expired.',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    action: 'Use a key that lists this browser origin, or call from a server without an Origin header.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    action: 'Use a key that has the scope named in detail.',
  },
  wallet_not_authorized: {
    status: 403,
    title: 'Wallet not authorized',
    action: 'Send the request for the wallet that owns the role, quote, claim or resource.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    action: 'Use suggested_endpoint when given; do not retry unchanged.',
  },
  stale_plan: { status: 409, title: 'Stale plan', action: 'Prepare the plan again.' },
  stale_quote: { status: 409, title: 'Stale quote', action: 'Request a fresh quote.' },
  salt_unavailable: { status: 409, title: 'Launch salt unavailable', action: 'Prepare the launch again.' },
  invalid_permit: {
    status: 409,
    title: 'Invalid permit',
    action: 'Re-quote, sign the new permit and prepare again.',
  },
  approval_not_confirmed: {
    status: 409,
    title: 'Approval not confirmed',
    action: 'Wait until the approval transaction is mined, then prepare again.',
  },
  announcement_id_conflict: {
    status: 409,
    title: 'Announcement id conflict',
    action: 'Prepare the announcement again.',
  },
  cursor_filter_mismatch: {
    status: 409,
    title: 'Cursor filter mismatch',
    action: 'Restart pagination without a cursor.',
  },
  cursor_stale: { status: 409, title: 'Stale cursor', action: 'Restart pagination from the first page.' },
  idempotency_in_progress: {
    status: 409,
    title: 'Request in progress',
    action: 'Retry the exact request with the same Idempotency-Key in about 2 seconds.',
  },
  nothing_to_claim: {
    status: 409,
    title: 'Nothing to claim',
    action: 'Remove positions with no claimable value.',
  },
  unsupported_operation: {
    status: 422,
    title: 'Unsupported operation',
    action: 'Consult GET /v1/config for what this chain and suite support.',
  },
  unsupported_chain: {
    status: 422,
    title: 'Unsupported chain',
    action: 'Use one of the chain ids 8453, 4663, 143, 5042.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    action: 'Use a new Idempotency-Key for a different request.',
  },
  invalid_amount: {
    status: 422,
    title: 'Invalid amount',
    action: "Choose an amount valid for the operation and the wallet's state.",
  },
  invalid_referrer: {
    status: 422,
    title: 'Invalid referrer',
    action: 'Omit the referrer or choose an eligible one.',
  },
  insufficient_balance: {
    status: 422,
    title: 'Insufficient balance',
    action: 'Fund the wallet with at least required_raw of asset.',
  },
  quote_unavailable: {
    status: 422,
    title: 'Quote unavailable',
    action: 'Try another amount or side, or try again later.',
  },
  simulation_failed: {
    status: 422,
    title: 'Simulation failed',
    action: 'Read detail for the decoded revert, fix the cause and prepare again.',
  },
  rate_limit_exceeded: {
    status: 429,
    title: 'Rate limit exceeded',
    action: 'Wait for Retry-After seconds, then retry.',
  },
  quota_exceeded: {
    status: 429,
    title: 'Quota exceeded',
    action: 'Wait for Retry-After seconds, then retry.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    action: 'Retry once; if it persists, contact support with request_id.',
  },
  upstream_error: {
    status: 502,
    title: 'Upstream error',
    action: 'Retry with capped exponential backoff and jitter.',
  },
  temporarily_unavailable: {
    status: 503,
    title: 'Temporarily unavailable',
    action: 'Retry with capped exponential backoff and jitter.',
  },
  upstream_timeout: {
    status: 504,
    title: 'Upstream timeout',
    action: 'Retry with capped exponential backoff and jitter.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export interface InvalidParameter {
  name: string;
  reason: 'required' | 'format' | 'range' | 'unknown' | 'duplicate' | 'conflict';
  detail: string;
  allowed?: string[];
}

/** Optional members of the problem body (spec: Problem body), plus documented extensions. */
export interface ProblemExtras {
  invalid_parameters?: InvalidParameter[];
  suggested_endpoint?: string;
  resource?: string;
  chain_id?: number;
  token_address?: string;
  asset?: string;
  actual_raw?: string;
  required_raw?: string;
  violated_policies?: string[];
  /** Overrides the table status where the spec allows two (invalid_request: 400 or 413). */
  status?: number;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  [extension: string]: unknown;
}

/** An expected failure with a code from the table; everything else becomes internal_error. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ProblemExtras;

  constructor(code: ErrorCode, detail: string, extras: ProblemExtras = {}) {
    // An expected outcome needs no stack trace, and capturing one is most of the cost of a 4xx.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
    this.code = code;
    this.status = extras.status ?? ERRORS[code].status;
    this.extras = extras;
  }
}
