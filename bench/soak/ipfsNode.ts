// The soak's shared IPFS node, as its own process so that it can be killed and started again: Helia with
// a blockstore on disk, a fixed libp2p identity and port (replicas find it again after a restart), the
// IPFS Pinning Service API the replicas pin to (it fetches each pin from its origins over bitswap), and
// GET /ipfs/<cid> for what it holds (never from the network). Pin records survive restarts in a file;
// a pin not finished when the node died is fetched again when it comes back.
// Environment: SOAK_IPFS_DIR, SOAK_IPFS_HTTP_PORT, SOAK_IPFS_P2P_PORT, SOAK_IPFS_TOKEN.
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { withBitswap } from '@helia/bitswap';
import { withLibp2pLight } from '@helia/libp2p';
import { unixfs } from '@helia/unixfs';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { identify } from '@libp2p/identify';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { FsBlockstore } from 'blockstore-fs';
import Fastify from 'fastify';
import { createHeliaLight } from 'helia';
import { CID } from 'multiformats/cid';

const dir = process.env.SOAK_IPFS_DIR as string;
const token = process.env.SOAK_IPFS_TOKEN as string;
mkdirSync(join(dir, 'blocks'), { recursive: true });
const blockstore = new FsBlockstore(join(dir, 'blocks'));
await blockstore.open();
const helia = withBitswap(
  withLibp2pLight(createHeliaLight({ blockstore }), {
    // The same peer id at every start: the replicas' IPFS_PEERS name it.
    privateKey: await generateKeyPairFromSeed('Ed25519', new Uint8Array(32).fill(7)),
    addresses: { listen: [`/ip4/127.0.0.1/tcp/${process.env.SOAK_IPFS_P2P_PORT}`] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
  } as never),
);
await helia.start();
const fs = unixfs(helia);

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

/** Reads the whole file, from the store alone or also from the network. */
async function cat(cid: string, offline: boolean): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of fs.cat(CID.parse(cid), { offline, signal: AbortSignal.timeout(10_000) }))
    parts.push(part);
  return Buffer.concat(parts);
}

function fetchPin(p: Pin) {
  void Promise.any(p.pin.origins.map((a) => helia.libp2p.dial(multiaddr(a))))
    .catch(() => {}) // the blocks may come from a peer that is already connected
    .then(() => cat(p.pin.cid, false))
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
  delegates: helia.libp2p.getMultiaddrs().map(String),
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
    return reply.send(await cat((request.params as { cid: string }).cid, true));
  } catch {
    return reply.code(404).send('not here');
  }
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.SOAK_IPFS_HTTP_PORT) });
process.stdout.write(`ipfs node ready ${helia.libp2p.getMultiaddrs().map(String).join(',')}\n`);
