// POST /v1/claims/fees/prepare and POST /v1/claims/vesting/prepare: one independent claim step per
// position, each simulated. Positions with nothing to claim get no step and a warning; when no position
// has anything, the route answers nothing_to_claim.
import type { FastifyInstance } from 'fastify';
import { type Abi, type Address, encodeFunctionData, getAddress } from 'viem';
import { FeeEscrowAbi, VestingVaultAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { type ContractRead, withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { envelope } from '../http/envelope.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';
import { routeBase } from './catalog.ts';
import { FeeClaimBody, VestingClaimBody } from './requestBodies.ts';

export interface ClaimDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
}

interface Position {
  read: ContractRead;
  step: { to: Address; data: `0x${string}`; label: string };
  review: Record<string, unknown>;
}

/** Positions must be distinct (input validation, before anything else is checked). */
function rejectDuplicates(identities: string[]): void {
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

async function claimPlan(
  deps: ClaimDeps,
  request: { id: string },
  chainId: ChainId,
  caller: Address,
  positions: Position[],
) {
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
    return envelope(request.id, deps.clock.now(), { ...built, review: { claims, atomic: false } });
  });
}

export function registerClaimRoutes(app: FastifyInstance, deps: ClaimDeps) {
  const fees = routeBase('fee_claim_prepare');
  app.route({
    ...fees,
    schema: { ...fees.schema, body: FeeClaimBody },
    handler: async (request) => {
      const body = request.body as {
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
      const caller = getAddress(body.caller);
      const suites = deps.deployments.get(body.chain_id)?.suites ?? [];
      rejectDuplicates(
        body.claims.map((c) => [c.fee_escrow, c.recipient, c.currency].join(':').toLowerCase()),
      );
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
          throw new ApiError(
            'wallet_not_authorized',
            `claims[${i}]: only the recipient may redirect its fees`,
          );
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
      return claimPlan(deps, request, body.chain_id, caller, positions);
    },
  });

  const vesting = routeBase('vesting_claim_prepare');
  app.route({
    ...vesting,
    schema: { ...vesting.schema, body: VestingClaimBody },
    handler: async (request) => {
      const body = request.body as {
        chain_id: ChainId;
        caller: string;
        claims: { beneficiary: string; token_address: string; vault: string }[];
      };
      const caller = getAddress(body.caller);
      const suites = deps.deployments.get(body.chain_id)?.suites ?? [];
      rejectDuplicates(
        body.claims.map((c) => [c.vault, c.token_address, c.beneficiary].join(':').toLowerCase()),
      );
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
      return claimPlan(deps, request, body.chain_id, caller, positions);
    },
  });
}
