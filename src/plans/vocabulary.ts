// The plan vocabulary, ONE table each, read by the plan builder and published in the OpenAPI document
// (x-lp-plan-vocabulary): step kinds, simulation statuses, issue severities and issue codes.

export const STEP_KINDS = {
  transaction: 'A transaction the actor signs and sends: {chain_id, from, to, data, value}.',
  typed_data: 'EIP-712 data the actor signs (Permit2 PermitSingle); the signature goes back to the API.',
} as const;

export const SIMULATION_STATUSES = {
  succeeded: 'Simulated at observed_block, in order after the earlier steps of the plan, and it succeeded.',
  not_run:
    'Not simulated: it depends on a signature or on a step that cannot be simulated yet. Send the earlier steps, then prepare again.',
} as const;
// A failing simulation is never a status: the route answers 422 simulation_failed (or a mapped code).

export const ISSUE_SEVERITIES = {
  blocking: 'The plan cannot succeed as it stands; clients abort.',
  action_required: 'A step of the plan resolves it (remediation_step_id names the step).',
  warning: 'The plan works; the caller should know.',
} as const;

export type IssueSeverity = keyof typeof ISSUE_SEVERITIES;

export const ISSUE_CODES = {
  insufficient_balance: {
    severity: 'blocking',
    description: 'The actor holds less of `asset` than the plan spends (`actual_raw` < `required_raw`).',
  },
  insufficient_allowance: {
    severity: 'action_required',
    description:
      'The allowance of `spender` over `asset` is below `required_raw`; the step `remediation_step_id` approves it.',
  },
  permit_required: {
    severity: 'action_required',
    description: 'A Permit2 signature is needed; the typed_data step `remediation_step_id` asks for it.',
  },
  anti_snipe_active: { severity: 'warning', description: 'The pool still charges its anti-snipe surcharge.' },
  nothing_to_claim: {
    severity: 'warning',
    description:
      'A claim position has nothing to claim; it gets no step (when no position has anything, the route answers nothing_to_claim).',
  },
  high_slippage: { severity: 'warning', description: 'The slippage tolerance is above 1000 bps.' },
  high_price_impact: { severity: 'warning', description: 'The trade moves the pool price by more than 10%.' },
  low_gas_balance: {
    severity: 'warning',
    description: 'The actor may not hold enough of the native currency to pay for gas.',
  },
} as const satisfies Record<string, { severity: IssueSeverity; description: string }>;

export type IssueCode = keyof typeof ISSUE_CODES;
