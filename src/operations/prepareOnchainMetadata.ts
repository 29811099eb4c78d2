// prepareOnchainMetadata: name, symbol and extra-metadata changes of a token with editable metadata, one
// factory call each, by the token's current creator.
import { type Abi, type Address, encodeFunctionData, getAddress } from 'viem';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { requireCreator, requireEditable, tokenRights } from '../launchpad/creatorRights.ts';
import { PlanBuilder } from '../plans/plan.ts';
import { atLeastOne, type TokenWriteDeps } from './tokenWrites.ts';

const FACTORY = LaunchFactoryAbi as Abi;

/** The request body of POST /v1/tokens/{chain_id}/{token}/metadata/onchain/prepare. */
export type OnchainMetadataBody = {
  actor: string;
  name?: string;
  symbol?: string;
  extra_metadata?: { key: string; value: string }[];
};

export interface PrepareOnchainMetadataInput {
  chainId: ChainId;
  token: Address;
  body: OnchainMetadataBody;
}

/** Prepares one step per on-chain metadata change, simulated at one pinned block. */
export async function prepareOnchainMetadata(deps: TokenWriteDeps, input: PrepareOnchainMetadataInput) {
  const { chainId, token, body } = input;
  if (body.name === undefined && body.symbol === undefined && body.extra_metadata === undefined) {
    throw atLeastOne('name, symbol, extra_metadata');
  }
  const keys = (body.extra_metadata ?? []).map((m) => m.key);
  if (new Set(keys).size !== keys.length) {
    throw new ApiError('invalid_parameter', 'extra_metadata repeats a key', {
      invalid_parameters: [{ name: 'extra_metadata', reason: 'duplicate', detail: 'each key at most once' }],
    });
  }
  const actor = getAddress(body.actor);
  const nowMs = deps.clock.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const rights = await tokenRights(snapshot, deps.deployments, chainId, token);
    requireCreator(rights, actor);
    requireEditable(rights);
    const factory = rights.suite.contracts.factory as Address;
    const plan = new PlanBuilder(snapshot, actor, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.default,
    });
    const operations: Record<string, unknown>[] = [];
    const step = (
      id: string,
      label: string,
      functionName: string,
      args: unknown[],
      operation: Record<string, unknown>,
    ) => {
      plan.transaction({
        id,
        label,
        depends_on: [],
        to: factory,
        data: encodeFunctionData({ abi: FACTORY, functionName, args } as never),
      });
      operations.push({ ...operation, step_id: id });
    };
    if (body.name !== undefined)
      step('update-name', 'Rename the token', 'updateTokenName', [token, body.name], {
        operation: 'update_name',
        name: body.name,
      });
    if (body.symbol !== undefined)
      step('update-symbol', 'Change the symbol', 'updateTokenSymbol', [token, body.symbol], {
        operation: 'update_symbol',
        symbol: body.symbol,
      });
    for (const m of body.extra_metadata ?? []) {
      step(`update-extra-${m.key}`, `Set ${m.key}`, 'updateTokenExtraMetadata', [token, m.key, m.value], {
        operation: 'update_extra_metadata',
        key: m.key,
        value: m.value,
      });
    }
    const built = await plan.build();
    return {
      ...built,
      review: { token_address: token, operations, atomic: false },
    };
  });
}
