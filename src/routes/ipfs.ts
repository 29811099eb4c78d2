// GET /ipfs/<cid>: content the gateway pinned (launch images and metadata documents), from any replica,
// and the documents of other tokens with the images they name, fetched from IPFS with verified
// retrieval. Content at a CID never changes, so it is served with year-long caching. No key and no units:
// it is public content. Other CIDs are 404: this is not an open gateway to all of IPFS.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { MAX_IMAGE_BYTES, sniffImageType } from '../launchpad/launchRequest.ts';
import type { MetadataDocuments } from '../pinning/documents.ts';
import { ContentTooLarge, type IpfsNode, parseCid } from '../pinning/ipfsNode.ts';
import type { PinStore } from '../pinning/pinStore.ts';

export interface IpfsRouteDeps {
  pins: PinStore;
  documents: MetadataDocuments;
  ipfs: IpfsNode;
  /** IPFS_FETCH_TIMEOUT_MS: how long content not pinned here is looked for. */
  fetchTimeoutMs: number;
}

export function registerIpfsRoutes(app: FastifyInstance, deps: IpfsRouteDeps) {
  app.get('/ipfs/:cid', { schema: { hide: true } }, async (request, reply) => {
    const { cid } = request.params as { cid: string };
    const notFound = () =>
      new ApiError('not_found', `No pinned content ${cid.slice(0, 80)}`, { resource: 'pinned_content' });
    let found = await deps.pins.read(cid);
    if (!found && deps.documents.isReferenced(cid)) {
      const parsed = parseCid(cid);
      if (!parsed) throw notFound();
      const content = await deps.ipfs
        .cat(parsed, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: deps.fetchTimeoutMs })
        .catch((error: unknown) => {
          if (error instanceof ContentTooLarge) throw notFound();
          throw new ApiError('upstream_timeout', `${cid.slice(0, 80)} could not be retrieved from IPFS`);
        });
      const type = sniffImageType(content) ?? (content[0] === 0x7b ? 'application/json' : undefined);
      found = { content, contentType: type ?? 'application/octet-stream' };
    }
    if (!found) throw notFound();
    return reply
      .header('content-type', found.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', `"${cid}"`)
      .header('x-content-type-options', 'nosniff')
      .send(found.content);
  });
}
