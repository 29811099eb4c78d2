// The push benches' baseline: the least a push over PostgreSQL can do. It LISTENs on a channel and
// writes each notification's payload as a Server-Sent Event to every connected client, and with
// POST_URL also POSTs it there (the webhooks bench), with no key, journal, filter, record or signature.
// Run as a process of its own, as the gateway is.
import { createServer, request, type ServerResponse } from 'node:http';
import pg from 'pg';

const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
await listener.connect();
await listener.query('listen bench_relay');
const clients = new Set<ServerResponse>();
listener.on('notification', (n) => {
  const chunk = `event: trade\ndata: {"transaction_hash":"${n.payload}"}\n\n`;
  for (const c of clients) c.write(chunk);
  if (process.env.POST_URL)
    request(process.env.POST_URL, { method: 'POST', headers: { 'content-type': 'application/json' } })
      .on('response', (res) => res.resume())
      .on('error', () => {})
      .end(`{"transaction_hash":"${n.payload}"}`);
});
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('retry: 2000\n\n');
  clients.add(res);
  res.on('close', () => clients.delete(res));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`ready at http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => {
  for (const c of clients) c.end();
  server.close();
  void listener.end().then(() => process.exit(0));
});
