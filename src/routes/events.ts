// GET /v1/events: the query and Last-Event-ID adapted to the event feed (src/operations/eventFeed.ts),
// and its events written as Server-Sent Events (WHATWG): `id:` the resume cursor, `event:` the type,
// `data:` one line of JSON. Every refusal is a problem answer before the stream starts.
import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getAddress } from 'viem';
import { publicOrigin } from '../http/envelope.ts';
import { Address, ChainIdSchema } from '../inputRules.ts';
import { EVENT_TYPES, type EventType } from '../indexer/journal.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { EventFeed, EventFilter } from '../operations/eventFeed.ts';
import type { Settings } from '../settings.ts';
import type { ApiKeyRecord } from '../store/apiKeys.ts';
import { routeBase } from '../http/catalog.ts';

const TYPE = `(${EVENT_TYPES.join('|')})`;
export const EventsQuery = Type.Object(
  {
    chain_id: Type.Optional(ChainIdSchema({ description: 'One chain; every chain when absent.' })),
    types: Type.Optional(
      Type.String({
        pattern: `^${TYPE}(,${TYPE})*$`,
        description: `Comma-separated event types among ${EVENT_TYPES.join(', ')}; all when absent.`,
        'x-lp-allowed': [...EVENT_TYPES],
      }),
    ),
    token_address: Type.Optional(Address({ description: "Only this token's events." })),
    confirmations: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 64,
        default: 0,
        description:
          'Send an event once the index is this many blocks past it. Above 0, no event sent is ever removed by a reorg shallower than that.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The reconnection delay a client is told at open (ms). */
const RETRY_MS = 2000;

export function registerEventRoutes(app: FastifyInstance, deps: { settings: Settings; feed: EventFeed }) {
  const base = routeBase('events');
  app.route({
    ...base,
    schema: { ...base.schema, querystring: EventsQuery },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const q = request.query as {
        chain_id?: ChainId;
        types?: string;
        token_address?: string;
        confirmations?: number;
      };
      const filter: EventFilter = {
        chainIds: q.chain_id ? [q.chain_id] : [...CHAIN_IDS],
        types: [...new Set((q.types?.split(',') ?? EVENT_TYPES) as EventType[])].sort(),
        token: q.token_address ? getAddress(q.token_address) : undefined,
        confirmations: q.confirmations ?? 0,
      };
      // Sent twice, the header arrives joined: not an id, so refused as one.
      const lastEventId = [request.headers['last-event-id'] ?? []].flat().join(', ');
      const positions = await deps.feed.open(filter, lastEventId === '' ? undefined : lastEventId);
      const stream = new PassThrough();
      const raw = reply.raw;
      stream.write(`retry: ${RETRY_MS}\n\n`);
      const unsubscribe = deps.feed.subscribe(filter, positions, {
        keyId: (request.apiKey as ApiKeyRecord).keyId,
        origin: publicOrigin(deps.settings.publicUrl, request),
        renew: () => request.admission?.renew(),
        sink: {
          event: (id, name, data) => stream.write(`id: ${id}\nevent: ${name}\ndata: ${data}\n\n`),
          comment: (text) => stream.write(`: ${text}\n\n`),
          position: (id) => stream.write(`id: ${id}\n\n`),
          buffered: () => stream.writableLength + raw.writableLength,
          end: (reason, abort) => {
            if (abort) raw.destroy();
            else stream.end(`: closed: ${reason}\n\n`);
          },
        },
      });
      raw.once('close', unsubscribe);
      // Never compressed or buffered on the way: each event is written as it comes.
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  } as never);
}
