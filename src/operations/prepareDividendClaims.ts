// prepareDividendClaims: holders' dividends of tax launches, from a tax suite's dividend distributor
// (claims are permissionless and always pay the holder, whoever sends them).
import { type Abi, encodeFunctionData, getAddress } from 'viem';
import { DividendDistributorAbi } from '../../contracts/artifacts/index.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { type ClaimDeps, claimPlan, type Position, rejectDuplicates } from './claimPlan.ts';

/** The request body of POST /v1/claims/dividends/prepare. */
export type PrepareDividendClaimsInput = {
  chain_id: ChainId;
  caller: string;
  claims: { holder: string; token_address: string; distributor: string }[];
};

/** Prepares one claim step per dividend position that has something to claim, at one pinned block. */
export async function prepareDividendClaims(deps: ClaimDeps, body: PrepareDividendClaimsInput) {
  const caller = getAddress(body.caller);
  const suites = deps.deployments.get(body.chain_id)?.suites ?? [];
  rejectDuplicates(
    body.claims.map((c) => [c.distributor, c.token_address, c.holder].join(':').toLowerCase()),
  );
  const positions = body.claims.map((c, i): Position => {
    const holder = getAddress(c.holder);
    const token = getAddress(c.token_address);
    const distributor = getAddress(c.distributor);
    if (!suites.some((s) => s.contracts.dividend_distributor === distributor)) {
      throw new ApiError(
        'unsupported_operation',
        `claims[${i}].distributor is not the dividend distributor of a tax suite on chain ${body.chain_id}`,
      );
    }
    return {
      read: {
        address: distributor,
        abi: DividendDistributorAbi as Abi,
        functionName: 'claimable',
        args: [token, holder],
      },
      step: {
        to: distributor,
        data: encodeFunctionData({
          abi: DividendDistributorAbi,
          functionName: 'claim',
          args: [token, holder],
        }),
        label: 'Claim dividends',
      },
      review: { kind: 'dividend', holder, destination: holder, token_address: token, distributor },
    };
  });
  return claimPlan(deps, body.chain_id, caller, positions);
}
