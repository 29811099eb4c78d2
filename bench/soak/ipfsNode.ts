// The soak's shared IPFS node, as its own process so that it can be killed and started again: Helia with
// a blockstore on disk, a fixed libp2p identity and port (replicas find it again after a restart), the
// IPFS Pinning Service API the replicas pin to (it fetches each pin from its origins over bitswap), and
// GET /ipfs/<cid> for what it holds (never from the network). Pin records survive restarts in a file;
// a pin not finished when the node died is fetched again when it comes back.
// Environment: SOAK_IPFS_DIR, SOAK_IPFS_HTTP_PORT, SOAK_IPFS_P2P_PORT, SOAK_IPFS_TOKEN.
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { FsBlockstore } from 'blockstore-fs';
import Fastify from 'fastify';
import { startIpfsPeer } from '../../test/support/ipfsPeer.ts';

const dir = process.env.SOAK_IPFS_DIR as string;
const token = process.env.SOAK_IPFS_TOKEN as string;
mkdirSync(join(dir, 'blocks'), { recursive: true });
const blockstore = new FsBlockstore(join(dir, 'blocks'));
await blockstore.open();
const peer = await startIpfsPeer({
  blockstore,
  port: Number(process.env.SOAK_IPFS_P2P_PORT),
  // The same peer id at every start: the replicas' IPFS_PEERS name it.
  privateKey: await generateKeyPairFromSeed('Ed25519', new Uint8Array(32).fill(7)),
});

interface Pin {
  requestid: string;
  status: 'queued' | 'pinning' | 'pinned' | 'failed';
  pin: { cid: string; origins: string[] };
}
const journal = join(dir, 'pins.jsonl');
const pins = new Map<string, Pin>();
if (existsSync(journal))
  for (const line of readFileSync(journal, 'utf8').split('\n').filter(Boolean)) {
    const p = JSON.parse(line) as Pin;
    pins.set(p.requestid, p);
  }
const record = (p: Pin) => {
  pins.set(p.requestid, p);
  appendFileSync(journal, `${JSON.stringify(p)}\n`);
};

function fetchPin(p: Pin) {
  void peer
    .dial(p.pin.origins)
    .catch(() => {}) // the blocks may come from a peer that is already connected
    .then(() => peer.cat(p.pin.cid, true))
    .then(
      () => record({ ...p, status: 'pinned' }),
      () => record({ ...p, status: 'failed' }),
    );
}
for (const p of pins.values()) if (p.status === 'pinning' || p.status === 'queued') fetchPin(p);

const app = Fastify();
const view = (p: Pin) => ({
  ...p,
  created: new Date().toISOString(),
  delegates: peer.multiaddrs,
  info: {},
});
app.addHook('onRequest', async (request, reply) => {
  if (request.url.startsWith('/pins') && request.headers.authorization !== `Bearer ${token}`)
    return reply.code(401).send({ error: { reason: 'UNAUTHORIZED' } });
});
app.post('/pins', async (request, reply) => {
  const body = request.body as { cid: string; origins?: string[] };
  const p: Pin = {
    requestid: randomUUID(),
    status: 'pinning',
    pin: { cid: body.cid, origins: body.origins ?? [] },
  };
  record(p);
  fetchPin(p);
  return reply.code(202).send(view(p));
});
app.get('/pins/:id', async (request, reply) => {
  const p = pins.get((request.params as { id: string }).id);
  return p ? view(p) : reply.code(404).send({ error: { reason: 'NOT_FOUND' } });
});
app.get('/pins', async (request) => {
  const cids = (request.query as { cid?: string }).cid?.split(',');
  const results = [...pins.values()].filter((p) => !cids || cids.includes(p.pin.cid)).map(view);
  return { count: results.length, results };
});
app.get('/ipfs/:cid', async (request, reply) => {
  try {
    return reply.send(await peer.cat((request.params as { cid: string }).cid));
  } catch {
    return reply.code(404).send('not here');
  }
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.SOAK_IPFS_HTTP_PORT) });
process.stdout.write(`ipfs node ready ${peer.multiaddrs.join(',')}\n`);
