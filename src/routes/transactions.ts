// GET /v1/transactions/{chain_id}/{tx_hash}: adapts HTTP to getTransactionStatus.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Hex } from 'viem';
import type { Clock } from '../clock.ts';
import { Envelope, envelope } from '../http/envelope.ts';
import { ChainIdSchema } from '../inputRules.ts';
import type { ChainId } from '../launchpad/chains.ts';
import { getTransactionStatus, type TransactionStatusDeps } from '../operations/getTransactionStatus.ts';
import { routeBase } from '../http/catalog.ts';

export function registerTransactionRoutes(
  app: FastifyInstance,
  deps: TransactionStatusDeps & { clock: Clock },
) {
  const base = routeBase('transaction_status');
  app.route({
    ...base,
    schema: {
      ...base.schema,
      params: Type.Object({
        chain_id: ChainIdSchema(),
        tx_hash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'A transaction hash.' }),
      }),
      response: { 200: Envelope(Type.Object({}, { additionalProperties: true })) },
    },
    handler: async (request) => {
      const { chain_id: chainId, tx_hash: hash } = request.params as { chain_id: ChainId; tx_hash: Hex };
      return envelope(request.id, deps.clock.now(), await getTransactionStatus(deps, { chainId, hash }));
    },
  });
}
