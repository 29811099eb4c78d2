// A plan or quote handed back to the API is stale once its suite's configuration changed.
import type { Abi, Address } from 'viem';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import type { Snapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';

export async function assertConfigVersion(
  snapshot: Snapshot,
  factory: Address,
  expected: bigint,
): Promise<void> {
  const [actual] = (await snapshot.readAll([
    { address: factory, abi: LaunchFactoryAbi as Abi, functionName: 'configVersion' },
  ])) as [bigint];
  if (actual !== expected) {
    throw new ApiError(
      'stale_plan',
      `The suite's configuration changed (version ${expected} → ${actual}); prepare again`,
      { chain_id: snapshot.chainId },
    );
  }
}
