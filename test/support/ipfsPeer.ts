// An independent IPFS node for tests (Helia, its own in-memory blockstore, libp2p TCP on loopback), and a
// pinning service on it that implements the IPFS Pinning Service API: it fetches what it is asked to
// pin from the origins over bitswap, as hosted pinning services do.
import { randomUUID } from 'node:crypto';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { withBitswap } from '@helia/bitswap';
import { withLibp2pLight } from '@helia/libp2p';
import { unixfs } from '@helia/unixfs';
import { identify } from '@libp2p/identify';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { MemoryBlockstore } from 'blockstore-core';
import type { Blockstore } from 'interface-blockstore';
import Fastify from 'fastify';
import { createHeliaLight } from 'helia';
import { CID } from 'multiformats/cid';

export interface IpfsPeer {
  multiaddrs: string[];
  add(bytes: Uint8Array): Promise<string>;
  /** The bytes at `cid`, from the peer's own store only (offline) unless `online`. */
  cat(cid: string, online?: boolean): Promise<Buffer>;
  has(cid: string): Promise<boolean>;
  /** The raw bytes of one block, as a trustless gateway serves them. */
  block(cid: string): Promise<Buffer | null>;
  dial(addrs: string[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the peer: by default in memory, on a free port, with a new identity; `blockstore`, `port` and
 * `privateKey` make one that keeps its blocks, address and peer id across restarts.
 */
export async function startIpfsPeer(
  opts: {
    blockstore?: Blockstore;
    port?: number;
    /** A libp2p private key (generateKeyPairFromSeed of @libp2p/crypto/keys). */
    privateKey?: unknown;
  } = {},
): Promise<IpfsPeer> {
  const blockstore = opts.blockstore ?? new MemoryBlockstore();
  const helia = withBitswap(
    withLibp2pLight(createHeliaLight({ blockstore }), {
      ...(opts.privateKey ? { privateKey: opts.privateKey } : {}),
      addresses: { listen: [`/ip4/127.0.0.1/tcp/${opts.port ?? 0}`] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: { identify: identify() },
    } as never),
  );
  await helia.start();
  const fs = unixfs(helia);
  return {
    multiaddrs: helia.libp2p.getMultiaddrs().map(String),
    async add(bytes) {
      return (await fs.addBytes(bytes, { cidVersion: 1, rawLeaves: true } as never)).toString();
    },
    async cat(cid, online = false) {
      const parts: Uint8Array[] = [];
      for await (const part of fs.cat(CID.parse(cid), {
        offline: !online,
        signal: AbortSignal.timeout(10_000),
      }))
        parts.push(part);
      return Buffer.concat(parts);
    },
    async has(cid) {
      return blockstore.has(CID.parse(cid));
    },
    async block(cid) {
      try {
        const parts: Uint8Array[] = [];
        for await (const part of blockstore.get(CID.parse(cid))) parts.push(part);
        return Buffer.concat(parts);
      } catch {
        return null;
      }
    },
    async dial(addrs) {
      await Promise.any(addrs.map((a) => helia.libp2p.dial(multiaddr(a))));
    },
    async stop() {
      await helia.stop();
    },
  };
}

export interface PinningService {
  url: string;
  /** Pin requests as received (cid, name, origins) with their status. */
  pins: { requestid: string; status: string; pin: { cid: string; origins: string[] } }[];
  /** `hang`: accept pins and never finish them (a service that is too slow). */
  mode: 'normal' | 'hang';
  close(): Promise<void>;
}

/** A Pinning Service API server (POST /pins, GET /pins/{requestid}, GET /pins) with a bearer token. */
export async function startPinningService(peer: IpfsPeer, token: string): Promise<PinningService> {
  const app = Fastify();
  const service: PinningService = { url: '', pins: [], mode: 'normal', close: () => app.close() };
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      return reply.code(401).send({ error: { reason: 'UNAUTHORIZED', details: 'bad access token' } });
    }
  });
  const view = (p: PinningService['pins'][number]) => ({
    ...p,
    created: new Date().toISOString(),
    delegates: peer.multiaddrs,
    info: {},
  });
  app.post('/pins', async (request, reply) => {
    const body = request.body as { cid: string; name?: string; origins?: string[] };
    const record = {
      requestid: randomUUID(),
      status: 'queued',
      pin: { cid: body.cid, origins: body.origins ?? [] },
    };
    service.pins.push(record);
    if (service.mode === 'normal') {
      record.status = 'pinning';
      // Fetch the whole file over bitswap from the origins, then report it pinned.
      void peer
        .dial(record.pin.origins)
        .then(() => peer.cat(body.cid, true))
        .then(
          () => (record.status = 'pinned'),
          () => (record.status = 'failed'),
        );
    }
    return reply.code(202).send(view(record));
  });
  app.get('/pins/:id', async (request, reply) => {
    const record = service.pins.find((p) => p.requestid === (request.params as { id: string }).id);
    if (!record) return reply.code(404).send({ error: { reason: 'NOT_FOUND' } });
    return view(record);
  });
  app.get('/pins', async (request) => {
    const cid = (request.query as { cid?: string }).cid;
    const results = service.pins.filter((p) => !cid || cid.split(',').includes(p.pin.cid)).map(view);
    return { count: results.length, results };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  service.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return service;
}

/**
 * A trustless HTTP gateway (block responses, `?format=raw` / `application/vnd.ipld.raw`) over the peer's
 * blocks; `tamper` makes it answer other bytes than the block's, which a verifying client must refuse.
 */
export async function startTrustlessGateway(peer: IpfsPeer) {
  const app = Fastify();
  const state = { url: '', tamper: false, requests: 0, close: () => app.close() };
  app.get('/ipfs/:cid', async (request, reply) => {
    state.requests++;
    const block = await peer.block((request.params as { cid: string }).cid);
    if (!block) return reply.code(404).send('not found');
    const body = state.tamper
      ? Buffer.from(JSON.stringify({ name: 'Tampered', description: 'forged' }))
      : block;
    return reply.header('content-type', 'application/vnd.ipld.raw').send(body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return state;
}
