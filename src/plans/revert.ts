// Revert decoding with every ABI the gateway's transactions touch: our suite, Uniswap v4 (PoolManager,
// wrapped hook errors), the Universal Router (ExecutionFailed), Permit2, plus Error(string) and Panic.
// Wrapped errors are unwrapped to the innermost one, which is what a caller can act on.
import { type Abi, decodeErrorResult, type Hex, parseAbi, toFunctionSelector } from 'viem';
import * as A from '../../contracts/artifacts/index.ts';
import { UNISWAP } from '../chain/uniswap.ts';

type AbiError = Extract<Abi[number], { type: 'error' }>;

const PERMIT2_ERRORS = parseAbi([
  'error InvalidNonce()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error AllowanceExpired(uint256 deadline)',
  'error InsufficientAllowance(uint256 amount)',
  'error ExcessiveInvalidation()',
  'error InvalidSignature()',
  'error InvalidSigner()',
  'error InvalidSignatureLength()',
  'error InvalidAmount(uint256 maxAmount)',
  'error LengthMismatch()',
]);

function errorsOf(abi: Abi): AbiError[] {
  return abi.filter((x): x is AbiError => x.type === 'error');
}

let combined: Abi | undefined;
/** Every known error, one entry per selector. */
function knownErrors(): Abi {
  if (combined) return combined;
  const sources: Abi[] = [
    A.LaunchFactoryAbi as Abi,
    A.VestingLaunchFactoryAbi as Abi,
    A.LaunchHookAbi as Abi,
    A.TaxHookAbi as Abi,
    A.TaxLaunchFactoryAbi as Abi,
    A.DividendDistributorAbi as Abi,
    A.FeeEscrowAbi as Abi,
    A.AnnouncementRegistryAbi as Abi,
    A.VestingVaultAbi as Abi,
    A.LaunchBuyAdapterAbi as Abi,
    A.LaunchTokenAbi as Abi,
    A.QuoteTokenAbi as Abi,
    A.TokenTransferAbi as Abi,
    UNISWAP.PoolManager().abi,
    UNISWAP.UniversalRouter().abi,
    UNISWAP.V4Quoter().abi,
    PERMIT2_ERRORS as Abi,
  ];
  const bySelector = new Map<string, AbiError>();
  for (const abi of sources) {
    for (const e of errorsOf(abi)) {
      const selector = toFunctionSelector(e as never);
      if (!bySelector.has(selector)) bySelector.set(selector, e);
    }
  }
  combined = [...bySelector.values()];
  return combined;
}

export interface DecodedRevert {
  /** The innermost error's name: a custom error, `Error` (a reason string), `Panic`, or `unknown`. */
  name: string;
  args: readonly unknown[];
  /** Human-readable, e.g. `StaleConfig(7, 8)` or `Error("insufficient funds")`. */
  text: string;
}

const show = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : typeof v === 'bigint' ? v.toString() : String(v);

/** Names the reverted error, unwrapping PoolManager's WrappedError and the router's ExecutionFailed. */
export function decodeRevert(data: Hex | undefined): DecodedRevert {
  if (!data || data === '0x' || data.length < 10)
    return { name: 'unknown', args: [], text: 'reverted without a reason' };
  try {
    const decoded = decodeErrorResult({ abi: knownErrors(), data });
    const args = (decoded.args ?? []) as readonly unknown[];
    if (decoded.errorName === 'WrappedError') return decodeRevert(args[2] as Hex);
    if (decoded.errorName === 'ExecutionFailed') return decodeRevert(args[1] as Hex);
    return { name: decoded.errorName, args, text: `${decoded.errorName}(${args.map(show).join(', ')})` };
  } catch {
    return { name: 'unknown', args: [], text: `reverted with unknown error ${data.slice(0, 10)}` };
  }
}
