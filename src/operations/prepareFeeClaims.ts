// prepareFeeClaims: claims of fee escrow positions, to the recipient (claimFor) or, by the recipient
// itself, to a destination (claimTo).
import { type Abi, encodeFunctionData, getAddress } from 'viem';
import { FeeEscrowAbi } from '../../contracts/artifacts/index.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { type ClaimDeps, claimPlan, type Position, rejectDuplicates } from './claimPlan.ts';

/** The request body of POST /v1/claims/fees/prepare. */
export type PrepareFeeClaimsInput = {
  chain_id: ChainId;
  caller: string;
  claims: {
    recipient: string;
    fee_escrow: string;
    currency: string;
    mode: 'to_recipient' | 'redirect';
    destination?: string;
  }[];
};

/** Prepares one claim step per fee position that has something owed, simulated at one pinned block. */
export async function prepareFeeClaims(deps: ClaimDeps, body: PrepareFeeClaimsInput) {
  const caller = getAddress(body.caller);
  const suites = deps.deployments.get(body.chain_id)?.suites ?? [];
  rejectDuplicates(body.claims.map((c) => [c.fee_escrow, c.recipient, c.currency].join(':').toLowerCase()));
  const positions = body.claims.map((c, i): Position => {
    const recipient = getAddress(c.recipient);
    const escrow = getAddress(c.fee_escrow);
    const currency = getAddress(c.currency);
    if (!suites.some((s) => s.contracts.fee_escrow === escrow)) {
      throw new ApiError(
        'unsupported_operation',
        `claims[${i}].fee_escrow is not the fee escrow of a suite on chain ${body.chain_id}`,
      );
    }
    if (c.mode === 'to_recipient' && c.destination !== undefined) {
      throw new ApiError(
        'incompatible_parameters',
        `claims[${i}].destination is only allowed with mode=redirect`,
        {
          invalid_parameters: [
            { name: `claims[${i}].destination`, reason: 'conflict', detail: 'only with mode=redirect' },
          ],
        },
      );
    }
    if (c.mode === 'redirect' && recipient !== caller) {
      throw new ApiError('wallet_not_authorized', `claims[${i}]: only the recipient may redirect its fees`);
    }
    const destination = c.mode === 'redirect' ? getAddress(c.destination ?? caller) : recipient;
    const data =
      c.mode === 'redirect'
        ? encodeFunctionData({
            abi: FeeEscrowAbi,
            functionName: 'claimTo',
            args: [currency, destination],
          })
        : encodeFunctionData({
            abi: FeeEscrowAbi,
            functionName: 'claimFor',
            args: [recipient, currency],
          });
    return {
      read: {
        address: escrow,
        abi: FeeEscrowAbi as Abi,
        functionName: 'owed',
        args: [recipient, currency],
      },
      step: { to: escrow, data, label: 'Claim fees' },
      review: { kind: 'fee', recipient, destination, fee_escrow: escrow, currency, mode: c.mode },
    };
  });
  return claimPlan(deps, body.chain_id, caller, positions);
}
