// POST /v1/claims/{fees,vesting,dividends}/prepare: adapt HTTP to prepareFeeClaims,
// prepareVestingClaims and prepareDividendClaims.
import type { FastifyInstance } from 'fastify';
import { envelope } from '../http/envelope.ts';
import type { ClaimDeps } from '../operations/claimPlan.ts';
import { prepareFeeClaims, type PrepareFeeClaimsInput } from '../operations/prepareFeeClaims.ts';
import { prepareVestingClaims, type PrepareVestingClaimsInput } from '../operations/prepareVestingClaims.ts';
import { routeBase } from '../http/catalog.ts';
import { DividendClaimBody, FeeClaimBody, VestingClaimBody } from './requestBodies.ts';
import {
  prepareDividendClaims,
  type PrepareDividendClaimsInput,
} from '../operations/prepareDividendClaims.ts';

export function registerClaimRoutes(app: FastifyInstance, deps: ClaimDeps) {
  const fees = routeBase('fee_claim_prepare');
  app.route({
    ...fees,
    schema: { ...fees.schema, body: FeeClaimBody },
    handler: async (request) =>
      envelope(
        request.id,
        deps.clock.now(),
        await prepareFeeClaims(deps, request.body as PrepareFeeClaimsInput),
      ),
  });

  const vesting = routeBase('vesting_claim_prepare');
  app.route({
    ...vesting,
    schema: { ...vesting.schema, body: VestingClaimBody },
    handler: async (request) =>
      envelope(
        request.id,
        deps.clock.now(),
        await prepareVestingClaims(deps, request.body as PrepareVestingClaimsInput),
      ),
  });

  const dividends = routeBase('dividend_claim_prepare');
  app.route({
    ...dividends,
    schema: { ...dividends.schema, body: DividendClaimBody },
    handler: async (request) =>
      envelope(
        request.id,
        deps.clock.now(),
        await prepareDividendClaims(deps, request.body as PrepareDividendClaimsInput),
      ),
  });
}
