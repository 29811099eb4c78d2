// The ceiling: a bare fastify hello route, no logging, on 127.0.0.1. Prints its URL when ready.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `ready at http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`,
);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
