// Revert → problem code (REFERENCE §4.10): ONE table. Anything not listed is simulation_failed, with the
// decoded error in the detail.
import type { ErrorCode } from '../errors.ts';

export const REVERT_CODES: Record<string, ErrorCode> = {
  StaleConfig: 'stale_plan',
  LaunchExpired: 'stale_plan',
  TransactionDeadlinePassed: 'stale_plan',
  LaunchSaltUsed: 'salt_unavailable',
  QuoteNotRegistered: 'unsupported_operation',
  LaunchCreationDisabled: 'unsupported_operation',
  MetadataNotEditable: 'unsupported_operation',
  LaunchBuyAdapterNotConfigured: 'unsupported_operation',
  NotCurrentCreator: 'wallet_not_authorized',
  NotCreator: 'wallet_not_authorized',
  NothingToClaim: 'nothing_to_claim',
  IdAlreadyUsed: 'announcement_id_conflict',
  V4TooLittleReceived: 'stale_quote',
  InvalidNonce: 'invalid_permit',
  SignatureExpired: 'invalid_permit',
  InvalidSignature: 'invalid_permit',
  InvalidSigner: 'invalid_permit',
  AllowanceExpired: 'approval_not_confirmed',
  InsufficientAllowance: 'approval_not_confirmed',
  ERC20InsufficientAllowance: 'approval_not_confirmed',
  ERC20InsufficientBalance: 'insufficient_balance',
};

export function codeForRevert(name: string): ErrorCode {
  return REVERT_CODES[name] ?? 'simulation_failed';
}
