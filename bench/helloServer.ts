// The ceiling: a bare fastify hello route, no logging, on 127.0.0.1. Prints its URL when ready.
// With HELLO_SHAPE (JSON {headers, body}), /shaped answers those exact headers and body with no work:
// what the same bytes cost on the wire, apart from any gateway logic.
import Fastify from 'fastify';

const shape = process.env.HELLO_SHAPE
  ? (JSON.parse(process.env.HELLO_SHAPE) as { headers: Record<string, string>; body: string })
  : undefined;
const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
if (shape) app.get('/shaped', async (_request, reply) => reply.headers(shape.headers).send(shape.body));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `ready at http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`,
);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
