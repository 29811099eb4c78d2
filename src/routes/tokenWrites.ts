// Creator-only operations on a launched token: adapt HTTP to prepareOnchainMetadata,
// prepareMetadataDocument (also behind the deprecated combined metadata form) and prepareAnnouncement.
import { ApiError } from '../errors.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getAddress } from 'viem';
import { deprecationHeaders } from '../http/deprecation.ts';
import { envelope, publicOrigin } from '../http/envelope.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { type PrepareAnnouncementInput, prepareAnnouncement } from '../operations/prepareAnnouncement.ts';
import { type MetadataDocumentBody, prepareMetadataDocument } from '../operations/prepareMetadataDocument.ts';
import { type OnchainMetadataBody, prepareOnchainMetadata } from '../operations/prepareOnchainMetadata.ts';
import type { TokenWriteDeps } from '../operations/tokenWrites.ts';
import { routeBase } from '../http/catalog.ts';
import {
  AnnouncementBody,
  MetadataDocumentBody as DocumentSchema,
  MetadataLegacyBody,
  MetadataOnchainBody,
  TokenParams,
} from './requestBodies.ts';

type LegacyBody = OnchainMetadataBody & {
  operation: 'update_name' | 'update_symbol' | 'update_extra_metadata' | 'update_profile';
  document?: MetadataDocumentBody['document'];
};

/** The focused route of the deprecated combined form: the document update for update_profile. */
function successorOf(url: string, operation: LegacyBody['operation'] | undefined): string {
  const path = url.split('?')[0] ?? '';
  return path.replace(
    /\/prepare$/,
    operation === 'update_profile' ? '/document/prepare' : '/onchain/prepare',
  );
}

export function registerTokenWriteRoutes(app: FastifyInstance, deps: TokenWriteDeps) {
  const target = (request: FastifyRequest) => {
    const p = request.params as { chain_id: ChainId; token_address: string };
    return { chainId: p.chain_id, token: getAddress(p.token_address) };
  };
  const onchainPrepare = async (request: FastifyRequest, body: OnchainMetadataBody) =>
    envelope(request.id, deps.clock.now(), await prepareOnchainMetadata(deps, { ...target(request), body }));
  const documentPrepare = async (request: FastifyRequest, body: MetadataDocumentBody) =>
    envelope(
      request.id,
      deps.clock.now(),
      await prepareMetadataDocument(deps, {
        ...target(request),
        body,
        origin: publicOrigin(deps.settings.publicUrl, request),
      }),
    );

  const onchain = routeBase('metadata_onchain_prepare');
  app.route({
    ...onchain,
    schema: { ...onchain.schema, params: TokenParams, body: MetadataOnchainBody },
    handler: (request) => onchainPrepare(request, request.body as OnchainMetadataBody),
  });

  const document = routeBase('metadata_document_prepare');
  app.route({
    ...document,
    schema: { ...document.schema, params: TokenParams, body: DocumentSchema },
    handler: (request) => documentPrepare(request, request.body as MetadataDocumentBody),
  });

  // The deprecated combined form: `operation` picks the focused operation, which answers.
  const legacy = routeBase('metadata_legacy_prepare');
  app.route({
    ...legacy,
    schema: { ...legacy.schema, params: TokenParams, body: MetadataLegacyBody },
    // Deprecation headers on every answer (errors included); the successor Link names the focused
    // route the body's operation maps to, once the body has been read.
    onRequest: async (request, reply) => {
      reply.headers(deprecationHeaders(deps.settings.docsUrl, successorOf(request.url, undefined)));
    },
    handler: (request, reply) => {
      const { operation, actor, ...rest } = request.body as LegacyBody;
      reply.headers(deprecationHeaders(deps.settings.docsUrl, successorOf(request.url, operation)));
      const field = {
        update_name: 'name',
        update_symbol: 'symbol',
        update_extra_metadata: 'extra_metadata',
        update_profile: 'document',
      }[operation];
      // Fields of another operation are not dropped silently: the focused route that takes them is named.
      const others = Object.keys(rest).filter((k) => k !== field);
      if (others.length > 0) {
        const toDocument = others.includes('document');
        throw new ApiError(
          'incompatible_parameters',
          `operation=${operation} takes ${field} only; ${others.join(', ')} belong to another operation`,
          {
            invalid_parameters: others.map((name) => ({
              name,
              reason: 'conflict' as const,
              detail: `not with operation=${operation}`,
            })),
            suggested_endpoint: successorOf(request.url, toDocument ? 'update_profile' : 'update_name'),
          },
        );
      }
      if (operation === 'update_profile')
        return documentPrepare(request, { actor, document: rest.document ?? {} });
      return onchainPrepare(request, {
        actor,
        [field]: rest[field as keyof typeof rest],
      } as OnchainMetadataBody);
    },
  });

  const announcement = routeBase('announcement_prepare');
  app.route({
    ...announcement,
    schema: { ...announcement.schema, params: TokenParams, body: AnnouncementBody },
    handler: async (request) =>
      envelope(
        request.id,
        deps.clock.now(),
        await prepareAnnouncement(deps, {
          ...target(request),
          body: request.body as PrepareAnnouncementInput['body'],
        }),
      ),
  });
}
