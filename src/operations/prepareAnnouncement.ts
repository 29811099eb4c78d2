// prepareAnnouncement: a post to the suite's announcement registry by the token's current creator, with a
// fresh random announcement id.
import { randomBytes } from 'node:crypto';
import { type Abi, type Address, isAddress, encodeFunctionData, getAddress, type Hex, toHex } from 'viem';
import { AnnouncementRegistryAbi } from '../../contracts/artifacts/index.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { requireCreator, tokenRights } from '../launchpad/creatorRights.ts';
import { PlanBuilder } from '../plans/plan.ts';
import { type TokenWriteDeps } from './tokenWrites.ts';

export interface PrepareAnnouncementInput {
  chainId: ChainId;
  token: Address;
  /** The request body of POST /v1/tokens/{chain_id}/{token}/announcements/prepare. */
  body: { actor: string; description: string; uri?: string };
}

/** Prepares the postAnnouncement transaction, simulated at one pinned block. */
export async function prepareAnnouncement(deps: TokenWriteDeps, input: PrepareAnnouncementInput) {
  const { chainId, token, body } = input;
  const actor = getAddress(body.actor);
  const announcementId = toHex(randomBytes(32));
  const nowMs = deps.clock.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const rights = await tokenRights(snapshot, deps.deployments, chainId, token);
    requireCreator(rights, actor);
    const registry = rights.suite.contracts.announcement_registry as Address;
    if (!isAddress(registry))
      throw new ApiError(
        'temporarily_unavailable',
        `The announcement registry of suite ${rights.suite.id} could not be read from its factory at start`,
        { chain_id: chainId },
      );
    const [used] = await snapshot.readAll([
      {
        address: registry,
        abi: AnnouncementRegistryAbi as Abi,
        functionName: 'isAnnouncementIdUsed',
        args: [token, announcementId],
      },
    ]);
    if (used)
      throw new ApiError('announcement_id_conflict', 'The generated announcement id is taken; prepare again');
    const plan = new PlanBuilder(snapshot, actor, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.default,
    });
    plan.transaction({
      id: 'post-announcement',
      label: 'Post the announcement',
      depends_on: [],
      to: registry,
      data: encodeFunctionData({
        abi: AnnouncementRegistryAbi,
        functionName: 'postAnnouncement',
        args: [token, announcementId as Hex, body.description, body.uri ?? ''],
      }),
    });
    const built = await plan.build();
    return {
      ...built,
      announcement_id: announcementId,
      review: {
        token_address: token,
        announcement_registry: registry,
        description: body.description,
        uri: body.uri ?? '',
      },
    };
  });
}
