// Creator-only operations on a launched token: the metadata document (pinned, then set as the contract
// URI), on-chain name/symbol/extra metadata, and announcements. The actor must be the token's current
// creator at the pinned block; metadata also needs a token launched with editable metadata.
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Abi, type Address, encodeFunctionData, getAddress, type Hex, toHex } from 'viem';
import { AnnouncementRegistryAbi, LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { envelope, publicOrigin } from '../http/envelope.ts';
import { ApiError } from '../errors.ts';
import { deprecationHeaders } from '../http/deprecation.ts';
import { Address as AddressSchema, ChainIdSchema, StringEnum } from '../http/validation.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { requireCreator, requireEditable, tokenRights } from '../launchpad/creatorRights.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { LaunchPrepareBody, MAX_IMAGE_BYTES, sniffImageType } from '../launchpad/launchRequest.ts';
import { type PinnedDocuments, publicUrlOf } from '../pinning/documents.ts';
import type { PinStore } from '../pinning/pinStore.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';
import { routeBase } from './catalog.ts';

export interface TokenWriteDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  pins: PinStore;
  documents: PinnedDocuments;
}

const TokenParams = Type.Object({ chain_id: ChainIdSchema(), token_address: AddressSchema() });
// The launch body's field rules, reused so one token field has one limit everywhere.
const T = LaunchPrepareBody.properties.token.properties;

export const MetadataOnchainBody = Type.Object(
  {
    actor: AddressSchema(),
    name: Type.Optional(T.name),
    symbol: Type.Optional(T.symbol),
    extra_metadata: Type.Optional(Type.Array(T.extra_metadata.items, { minItems: 1, maxItems: 16 })),
  },
  { additionalProperties: false },
);

export const MetadataDocumentBody = Type.Object(
  {
    actor: AddressSchema(),
    document: Type.Object(
      {
        description: Type.Optional(T.description),
        website: Type.Optional(T.website),
        x: Type.Optional(T.x),
        telegram: Type.Optional(T.telegram),
        image_uri: Type.Optional(
          Type.String({ maxLength: 2048, pattern: '^(ipfs://[A-Za-z0-9]\\S*|https?://\\S+)$' }),
        ),
        image_base64: Type.Optional(T.image_base64),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

type OnchainBody = {
  actor: string;
  name?: string;
  symbol?: string;
  extra_metadata?: { key: string; value: string }[];
};
type DocumentBody = {
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

/** The deprecated `POST …/metadata/prepare`: the focused bodies' fields, chosen by `operation`. */
export const MetadataLegacyBody = Type.Object(
  {
    actor: AddressSchema(),
    operation: StringEnum(['update_name', 'update_symbol', 'update_extra_metadata', 'update_profile']),
    name: MetadataOnchainBody.properties.name,
    symbol: MetadataOnchainBody.properties.symbol,
    extra_metadata: MetadataOnchainBody.properties.extra_metadata,
    document: Type.Optional(MetadataDocumentBody.properties.document),
  },
  { additionalProperties: false },
);
type LegacyBody = OnchainBody & {
  operation: 'update_name' | 'update_symbol' | 'update_extra_metadata' | 'update_profile';
  document?: DocumentBody['document'];
};

export const AnnouncementBody = Type.Object(
  {
    actor: AddressSchema(),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
    uri: Type.Optional(Type.String({ maxLength: 2048, pattern: '^(https?|ipfs)://\\S+$' })),
  },
  { additionalProperties: false },
);

const atLeastOne = (what: string) =>
  new ApiError('invalid_parameter', `Give at least one of ${what}`, {
    invalid_parameters: [{ name: 'body', reason: 'required', detail: `at least one of ${what}` }],
  });

export function registerTokenWriteRoutes(app: FastifyInstance, deps: TokenWriteDeps) {
  const FACTORY = LaunchFactoryAbi as Abi;
  const params = (request: FastifyRequest) => {
    const p = request.params as { chain_id: ChainId; token_address: string };
    return { chainId: p.chain_id, token: getAddress(p.token_address) };
  };

  const onchainPrepare = async (request: FastifyRequest, body: OnchainBody) => {
    if (body.name === undefined && body.symbol === undefined && body.extra_metadata === undefined) {
      throw atLeastOne('name, symbol, extra_metadata');
    }
    const keys = (body.extra_metadata ?? []).map((m) => m.key);
    if (new Set(keys).size !== keys.length) {
      throw new ApiError('invalid_parameter', 'extra_metadata repeats a key', {
        invalid_parameters: [
          { name: 'extra_metadata', reason: 'duplicate', detail: 'each key at most once' },
        ],
      });
    }
    const { chainId, token } = params(request);
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
      return envelope(request.id, deps.clock.now(), {
        ...built,
        review: { token_address: token, operations, atomic: false },
      });
    });
  };

  const documentPrepare = async (request: FastifyRequest, body: DocumentBody) => {
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
    const { chainId, token } = params(request);
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
      // The current document, when this gateway pinned it; otherwise the update starts from name and symbol.
      const current = (await deps.documents.get(contractUri ?? '')) ?? {};
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
      return envelope(request.id, deps.clock.now(), {
        ...built,
        metadata_uri: metadataUri,
        image_url: publicUrlOf(merged.image, publicOrigin(deps.settings.publicUrl, request)),
        review: { operation: 'update_profile', token_address: token, ...merged },
      });
    });
  };

  const onchain = routeBase('metadata_onchain_prepare');
  app.route({
    ...onchain,
    schema: { ...onchain.schema, params: TokenParams, body: MetadataOnchainBody },
    handler: (request) => onchainPrepare(request, request.body as OnchainBody),
  });

  const document = routeBase('metadata_document_prepare');
  app.route({
    ...document,
    schema: { ...document.schema, params: TokenParams, body: MetadataDocumentBody },
    handler: (request) => documentPrepare(request, request.body as DocumentBody),
  });

  // The deprecated combined form: `operation` picks the focused route, which answers.
  const legacy = routeBase('metadata_legacy_prepare');
  app.route({
    ...legacy,
    schema: { ...legacy.schema, params: TokenParams, body: MetadataLegacyBody },
    onRequest: async (request, reply) => {
      reply.headers(
        deprecationHeaders(deps.settings.docsUrl, request.url.replace(/\/prepare$/, '/onchain/prepare')),
      );
    },
    handler: (request) => {
      const { operation, actor, ...rest } = request.body as LegacyBody;
      if (operation === 'update_profile')
        return documentPrepare(request, { actor, document: rest.document ?? {} });
      const field = { update_name: 'name', update_symbol: 'symbol', update_extra_metadata: 'extra_metadata' }[
        operation
      ];
      return onchainPrepare(request, { actor, [field]: rest[field as keyof typeof rest] } as OnchainBody);
    },
  });

  const announcement = routeBase('announcement_prepare');
  app.route({
    ...announcement,
    schema: { ...announcement.schema, params: TokenParams, body: AnnouncementBody },
    handler: async (request) => {
      const body = request.body as { actor: string; description: string; uri?: string };
      const { chainId, token } = params(request);
      const actor = getAddress(body.actor);
      const announcementId = toHex(randomBytes(32));
      const nowMs = deps.clock.now();
      return withSnapshot(deps.chains, chainId, async (snapshot) => {
        const rights = await tokenRights(snapshot, deps.deployments, chainId, token);
        requireCreator(rights, actor);
        const registry = rights.suite.contracts.announcement_registry as Address;
        const [used] = await snapshot.readAll([
          {
            address: registry,
            abi: AnnouncementRegistryAbi as Abi,
            functionName: 'isAnnouncementIdUsed',
            args: [token, announcementId],
          },
        ]);
        if (used)
          throw new ApiError(
            'announcement_id_conflict',
            'The generated announcement id is taken; prepare again',
          );
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
        return envelope(request.id, deps.clock.now(), {
          ...built,
          announcement_id: announcementId,
          review: {
            token_address: token,
            announcement_registry: registry,
            description: body.description,
            uri: body.uri ?? '',
          },
        });
      });
    },
  });
}
