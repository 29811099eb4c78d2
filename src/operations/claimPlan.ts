// The shared part of fee and vesting claims: one independent claim step per position, each simulated.
// Positions with nothing to claim get no step and a warning; when no position has anything, the answer is
// nothing_to_claim.
import type { Address } from 'viem';
import type { ChainClients } from '../chain/clients.ts';
import { type ContractRead, withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';

export interface ClaimDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
}

export interface Position {
  read: ContractRead;
  step: { to: Address; data: `0x${string}`; label: string };
  review: Record<string, unknown>;
}

/** Positions must be distinct (input validation, before anything else is checked). */
export function rejectDuplicates(identities: string[]): void {
  const seen = new Map<string, number>();
  identities.forEach((identity, i) => {
    const first = seen.get(identity);
    if (first !== undefined) {
      throw new ApiError('invalid_parameter', `claims[${i}] repeats claims[${first}]`, {
        invalid_parameters: [
          { name: `claims[${i}]`, reason: 'duplicate', detail: `the same position as claims[${first}]` },
        ],
      });
    }
    seen.set(identity, i);
  });
}

/** Reads every position at one pinned block and plans one claim step per position with something owed. */
export async function claimPlan(deps: ClaimDeps, chainId: ChainId, caller: Address, positions: Position[]) {
  const nowMs = deps.clock.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const results = await snapshot.read(positions.map((p) => p.read));
    const plan = new PlanBuilder(snapshot, caller, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.default,
    });
    const claims: Record<string, unknown>[] = [];
    let n = 0;
    positions.forEach((p, i) => {
      const r = results[i];
      if (!r?.ok)
        throw new ApiError('upstream_error', `Chain ${chainId}: claims[${i}] could not be read`, {
          chain_id: chainId,
        });
      const claimable = r.value as bigint;
      if (claimable === 0n) {
        plan.issue('nothing_to_claim', `claims[${i}] has nothing to claim`, { position: i });
        return;
      }
      const id = `claim-${++n}`;
      plan.transaction({ id, label: p.step.label, depends_on: [], to: p.step.to, data: p.step.data });
      claims.push({ ...p.review, claimable_raw: claimable.toString(), step_id: id });
    });
    if (n === 0) throw new ApiError('nothing_to_claim', 'No position has anything to claim');
    const built = await plan.build();
    return { ...built, review: { claims, atomic: false } };
  });
}
