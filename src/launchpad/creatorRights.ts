// A launched token's suite and its live creator rights at the pinned block: the authorisation of every
// creator-only operation (metadata, announcements).
import { type Abi, type Address, getAddress, type Hex } from 'viem';
import { LaunchFactoryAbi, LaunchTokenAbi } from '../../contracts/artifacts/index.ts';
import { hasCurrentFactory } from './manifest.ts';
import type { ContractRead, Snapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from './chains.ts';
import type { Deployments } from './deployments.ts';
import type { ChainManifest } from './manifest.ts';

export interface TokenRights {
  suite: ChainManifest['suites'][number];
  currentCreator: Address;
  metadataEditable: boolean;
  poolId: Hex;
  /** Extra reads asked for, in order. */
  extra: unknown[];
}

/**
 * Reads creatorRights(token) on every current suite of the chain (plus `extra` reads of the token) in
 * one round trip; not_found when no suite launched the token.
 */
export async function tokenRights(
  snapshot: Snapshot,
  deployments: Deployments,
  chainId: ChainId,
  token: Address,
  extra: TokenView[] = [],
): Promise<TokenRights> {
  const suites = (deployments.get(chainId)?.suites ?? []).filter(hasCurrentFactory);
  const reads: ContractRead[] = [
    ...suites.map((s) => ({
      address: s.contracts.factory as Address,
      abi: LaunchFactoryAbi as Abi,
      functionName: 'creatorRights',
      args: [token],
    })),
    ...extra.map((functionName) => ({ address: token, abi: LaunchTokenAbi as Abi, functionName })),
  ];
  const results = await snapshot.read(reads);
  const index = suites.findIndex((_, i) => results[i]?.ok);
  const rights = results[index];
  if (index < 0 || !rights?.ok) {
    throw new ApiError(
      'not_found',
      `${token} is not a token launched by a launchpad suite on chain ${chainId}`,
      { resource: 'token', chain_id: chainId, token_address: token },
    );
  }
  const r = rights.value as { currentCreator: Address; metadataEditable: boolean; poolId: Hex };
  return {
    suite: suites[index] as TokenRights['suite'],
    currentCreator: getAddress(r.currentCreator),
    metadataEditable: r.metadataEditable,
    poolId: r.poolId,
    extra: results.slice(suites.length).map((x) => (x.ok ? x.value : undefined)),
  };
}

/** Token views that can ride along with the rights read. */
type TokenView = 'name' | 'symbol' | 'contractURI';

/** The actor must be the token's current creator. */
export function requireCreator(rights: TokenRights, actor: Address): void {
  if (rights.currentCreator !== actor) {
    throw new ApiError('wallet_not_authorized', `${actor} is not the current creator of this token`);
  }
}

/** …and, for metadata, the token must have been launched with editable metadata. */
export function requireEditable(rights: TokenRights): void {
  if (!rights.metadataEditable) {
    throw new ApiError('unsupported_operation', 'This token was launched without editable metadata');
  }
}
