// prepareMetadataDocument: a new ERC-7572 document (the current one merged with the update, pinned) set
// as the token's contract URI, by the token's current creator.
import { type Abi, type Address, encodeFunctionData, getAddress } from 'viem';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { requireCreator, requireEditable, tokenRights } from '../launchpad/creatorRights.ts';
import { MAX_IMAGE_BYTES, sniffImageType } from '../launchpad/launchRequest.ts';
import { publicUrlOf } from '../pinning/documents.ts';
import { PlanBuilder } from '../plans/plan.ts';
import { atLeastOne, type TokenWriteDeps } from './tokenWrites.ts';

const FACTORY = LaunchFactoryAbi as Abi;

/** The request body of POST /v1/tokens/{chain_id}/{token}/metadata/document/prepare. */
export type MetadataDocumentBody = {
  actor: string;
  document: {
    description?: string;
    website?: string;
    x?: string;
    telegram?: string;
    image_uri?: string;
    image_base64?: string;
  };
};

export interface PrepareMetadataDocumentInput {
  chainId: ChainId;
  token: Address;
  body: MetadataDocumentBody;
  /** Public origin of the gateway, for the image URL. */
  origin: string;
}

/** Prepares the contract-URI update to the merged, pinned document, simulated at one pinned block. */
export async function prepareMetadataDocument(deps: TokenWriteDeps, input: PrepareMetadataDocumentInput) {
  const { chainId, token, body } = input;
  const update = body.document;
  if (Object.keys(update).length === 0)
    throw atLeastOne('description, website, x, telegram, image_uri, image_base64');
  if (update.image_uri !== undefined && update.image_base64 !== undefined) {
    throw new ApiError('incompatible_parameters', 'Give image_uri or image_base64, not both', {
      invalid_parameters: [
        { name: 'document.image_base64', reason: 'conflict', detail: 'not with image_uri' },
      ],
    });
  }
  let image: { bytes: Buffer; type: string } | undefined;
  if (update.image_base64 !== undefined) {
    const bytes = Buffer.from(update.image_base64, 'base64');
    const type = sniffImageType(bytes);
    if (update.image_base64.length % 4 !== 0 || bytes.length > MAX_IMAGE_BYTES || !type) {
      throw new ApiError(
        'invalid_parameter',
        'document.image_base64 must be a PNG, JPEG, WebP or GIF of at most 2 MB',
        {
          invalid_parameters: [
            {
              name: 'document.image_base64',
              reason: 'format',
              detail: 'PNG, JPEG, WebP or GIF, at most 2 MB',
            },
          ],
        },
      );
    }
    image = { bytes, type };
  }
  const actor = getAddress(body.actor);
  const nowMs = deps.clock.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const rights = await tokenRights(snapshot, deps.deployments, chainId, token, [
      'name',
      'symbol',
      'contractURI',
    ]);
    requireCreator(rights, actor);
    requireEditable(rights);
    const [name, symbol, contractUri] = rights.extra as [string, string, string];
    // The current ipfs:// document, wherever it was pinned (a 504 when IPFS cannot give it: an update must
    // not erase the profile); for any other URI the update starts from name and symbol.
    const current = (await deps.documents.require(contractUri ?? '')) ?? {};
    const imageUri = image ? `ipfs://${await deps.pins.pin(image.bytes, image.type)}` : update.image_uri;
    const merged: Record<string, unknown> = {
      ...current,
      name,
      symbol,
      ...(update.description !== undefined ? { description: update.description } : {}),
      ...(update.website !== undefined ? { website: update.website, external_link: update.website } : {}),
      ...(update.x !== undefined ? { x: update.x } : {}),
      ...(update.telegram !== undefined ? { telegram: update.telegram } : {}),
      ...(imageUri !== undefined ? { image: imageUri } : {}),
    };
    const metadataUri = `ipfs://${await deps.pins.pin(Buffer.from(JSON.stringify(merged)), 'application/json')}`;
    const plan = new PlanBuilder(snapshot, actor, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.default,
    });
    plan.transaction({
      id: 'update-contract-uri',
      label: 'Update the token profile',
      depends_on: [],
      to: rights.suite.contracts.factory as Address,
      data: encodeFunctionData({
        abi: FACTORY,
        functionName: 'updateTokenContractURI',
        args: [token, metadataUri],
      } as never),
    });
    const built = await plan.build();
    return {
      ...built,
      metadata_uri: metadataUri,
      image_url: publicUrlOf(merged.image, input.origin),
      review: { operation: 'update_profile', token_address: token, ...merged },
    };
  });
}
