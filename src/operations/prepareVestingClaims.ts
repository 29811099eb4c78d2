// prepareVestingClaims: claims of vested allocations from a suite's vesting vault (paid to the
// beneficiary, whoever sends the claim).
import { type Abi, encodeFunctionData, getAddress } from 'viem';
import { VestingVaultAbi } from '../../contracts/artifacts/index.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { type ClaimDeps, claimPlan, type Position, rejectDuplicates } from './claimPlan.ts';

/** The request body of POST /v1/claims/vesting/prepare. */
export type PrepareVestingClaimsInput = {
  chain_id: ChainId;
  caller: string;
  claims: { beneficiary: string; token_address: string; vault: string }[];
};

/** Prepares one claim step per vesting position that has something unlocked, at one pinned block. */
export async function prepareVestingClaims(deps: ClaimDeps, body: PrepareVestingClaimsInput) {
  const caller = getAddress(body.caller);
  const suites = deps.deployments.get(body.chain_id)?.suites ?? [];
  rejectDuplicates(body.claims.map((c) => [c.vault, c.token_address, c.beneficiary].join(':').toLowerCase()));
  const positions = body.claims.map((c, i): Position => {
    const beneficiary = getAddress(c.beneficiary);
    const token = getAddress(c.token_address);
    const vault = getAddress(c.vault);
    if (!suites.some((s) => s.contracts.vesting_vault === vault)) {
      throw new ApiError(
        'unsupported_operation',
        `claims[${i}].vault is not the vesting vault of a suite on chain ${body.chain_id}`,
      );
    }
    return {
      read: {
        address: vault,
        abi: VestingVaultAbi as Abi,
        functionName: 'claimable',
        args: [token, beneficiary],
      },
      step: {
        to: vault,
        data: encodeFunctionData({
          abi: VestingVaultAbi,
          functionName: 'claim',
          args: [token, beneficiary],
        }),
        label: 'Claim vested tokens',
      },
      // The vault always pays the beneficiary, whoever sends the claim.
      review: { kind: 'vesting', beneficiary, destination: beneficiary, token_address: token, vault },
    };
  });
  return claimPlan(deps, body.chain_id, caller, positions);
}
