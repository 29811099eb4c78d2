// POST /v1/swaps/quote and POST /v1/swaps/prepare: adapt HTTP to quoteSwap and prepareSwap.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope } from '../http/envelope.ts';
import { prepareSwap, type PrepareSwapInput } from '../operations/prepareSwap.ts';
import { type QuoteSwapInput, quoteSwap, type SwapDeps } from '../operations/quoteSwap.ts';
import { routeBase } from '../http/catalog.ts';
import { SwapPrepareBody, SwapQuoteBody } from './requestBodies.ts';

const Untyped = Envelope(Type.Object({}, { additionalProperties: true }));

export function registerSwapRoutes(app: FastifyInstance, deps: SwapDeps) {
  const quoteBase = routeBase('swap_quote');
  app.route({
    ...quoteBase,
    schema: { ...quoteBase.schema, body: SwapQuoteBody, response: { 200: Untyped } },
    handler: async (request) =>
      envelope(request.id, deps.clock.now(), await quoteSwap(deps, request.body as QuoteSwapInput)),
  });

  const prepareBase = routeBase('swap_prepare');
  app.route({
    ...prepareBase,
    schema: { ...prepareBase.schema, body: SwapPrepareBody, response: { 200: Untyped } },
    handler: async (request) =>
      envelope(request.id, deps.clock.now(), await prepareSwap(deps, request.body as PrepareSwapInput)),
  });
}
