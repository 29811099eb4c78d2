// GET /ipfs/<cid>: content the gateway pinned (launch images and metadata documents), immutable by
// construction, so it is served with year-long caching. No key and no units: it is public content.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import type { PinStore } from '../pinning/pinStore.ts';

export function registerIpfsRoutes(app: FastifyInstance, pins: PinStore) {
  app.get('/ipfs/:cid', { schema: { hide: true } }, async (request, reply) => {
    const { cid } = request.params as { cid: string };
    const found = await pins.read(cid);
    if (!found)
      throw new ApiError('not_found', `No pinned content ${cid.slice(0, 80)}`, {
        resource: 'pinned_content',
      });
    return reply
      .header('content-type', found.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', `"${cid}"`)
      .header('x-content-type-options', 'nosniff')
      .send(found.content);
  });
}
