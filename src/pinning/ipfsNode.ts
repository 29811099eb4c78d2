// The gateway's IPFS node: Helia with its blockstore in the gateway's database, bitswap over libp2p (TCP,
// Noise, Yamux). With IPFS_NETWORK=off it listens on loopback and talks only to the peers it is given
// (IPFS_PEERS) or that dial it; with IPFS_NETWORK=on it joins the public network (bootstrap peers, the
// Amino DHT, AutoNAT) and announces what it pins. IPFS_GATEWAY_URL adds a trustless HTTP gateway as a
// source of blocks. Every block read from elsewhere is verified against its CID by Helia.
import type { UnixFS } from '@helia/unixfs';
import { CID } from 'multiformats/cid';
import type { Database } from '../store/db.ts';
import { SqlBlockstore } from './blockstore.ts';

export interface IpfsSettings {
  ipfsNetwork: 'on' | 'off';
  /** libp2p listen multiaddrs. */
  ipfsListen: string[];
  /** Multiaddrs (with /p2p/<peer id>) the node keeps dialing: other replicas, a pinning service's nodes. */
  ipfsPeers: string[];
  /** A trustless gateway (https://…) to fetch blocks from, or undefined. */
  ipfsGatewayUrl: string | undefined;
}

export class ContentTooLarge extends Error {}

/** The node's operations, for the pin store, the document reader and the /ipfs route. */
export interface IpfsNode {
  /** Adds bytes as a UnixFS file (CIDv1, raw leaves: one raw block up to 1 MiB) and returns its CID. */
  add(bytes: Uint8Array): Promise<CID>;
  /** A file's bytes, from the store or, unless `offline`, the network; ContentTooLarge past `maxBytes`. */
  cat(cid: CID, options: { maxBytes: number; timeoutMs: number; offline?: boolean }): Promise<Buffer>;
  /** Announces a CID to the network (IPFS_NETWORK=on); no-op otherwise. */
  provide(cid: CID): void;
  /** Where other nodes reach this one (multiaddrs with /p2p/<peer id>). */
  multiaddrs(): string[];
  stop(): Promise<void>;
}

/** The public network's bootstrap peers (the list Kubo and Helia ship). */
const BOOTSTRAP_PEERS = [
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmNnooDu7bfjPFoTZYxMNLWUQJyrVwtbZg5gBMjTezGAJN',
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmbLHAnMoJPWSCR5Zhtx6BHJX9KiKNN6tpvbUcqanj75Nb',
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmcZf59bWwK5XFi76CZX8cbJ4BhTzzA3gU1ZjYZcYW3dwt',
  '/dnsaddr/va1.bootstrap.libp2p.io/p2p/12D3KooWKnDdG3iXw9eTFijk3EWSunZcFi54Zka4wmtqtt6rPxc8',
];

/** Libp2p services for the public network, loaded only when IPFS_NETWORK=on. */
async function publicNetwork(
  identify: typeof import('@libp2p/identify').identify,
): Promise<Record<string, unknown>> {
  const [{ bootstrap }, { kadDHT }, { autoNAT }, { ping }] = await Promise.all([
    import('@libp2p/bootstrap'),
    import('@libp2p/kad-dht'),
    import('@libp2p/autonat'),
    import('@libp2p/ping'),
  ]);
  return {
    peerDiscovery: [bootstrap({ list: BOOTSTRAP_PEERS })],
    services: {
      identify: identify(),
      ping: ping(),
      autoNAT: autoNAT(),
      dht: kadDHT({ protocol: '/ipfs/kad/1.0.0', clientMode: false }),
    },
  };
}

/** Starts the node on the database's blockstore. */
export async function startIpfsNode(database: Database, settings: IpfsSettings): Promise<IpfsNode> {
  // Loaded here, not at the top: the libp2p graph costs about a second, and only a serving gateway needs it.
  const [
    { noise },
    { yamux },
    { withBitswap },
    { withHTTP },
    { withLibp2pLight },
    { unixfs },
    { identify },
    { tcp },
    { multiaddr },
    { MemoryDatastore },
    { createHeliaLight },
  ] = await Promise.all([
    import('@chainsafe/libp2p-noise'),
    import('@chainsafe/libp2p-yamux'),
    import('@helia/bitswap'),
    import('@helia/http'),
    import('@helia/libp2p'),
    import('@helia/unixfs'),
    import('@libp2p/identify'),
    import('@libp2p/tcp'),
    import('@multiformats/multiaddr'),
    import('datastore-core'),
    import('helia'),
  ]);
  const network = settings.ipfsNetwork === 'on' ? await publicNetwork(identify) : {};
  const light = createHeliaLight({
    blockstore: new SqlBlockstore(database),
    datastore: new MemoryDatastore(),
  });
  const libp2pOptions = {
    addresses: { listen: settings.ipfsListen },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
    ...network,
  };
  let helia = withBitswap(withLibp2pLight(light, libp2pOptions as never));
  if (settings.ipfsGatewayUrl) {
    helia = withHTTP(helia, {
      delegatedRouters: [],
      recursiveGateways: [settings.ipfsGatewayUrl],
      allowInsecure: true,
      allowLocal: true,
    });
  }
  await helia.start();
  const fs: UnixFS = unixfs(helia);
  const peers = settings.ipfsPeers.map((a) => multiaddr(a));
  const dialPeers = () =>
    Promise.allSettled(peers.map((peer) => helia.libp2p.dial(peer, { signal: AbortSignal.timeout(3000) })));
  await dialPeers();

  return {
    async add(bytes) {
      return fs.addBytes(bytes, { cidVersion: 1, rawLeaves: true } as never);
    },
    async cat(cid, { maxBytes, timeoutMs, offline }) {
      const signal = AbortSignal.timeout(timeoutMs);
      // With nobody to ask, a missing block would only wait out the timeout.
      let online = !offline;
      if (online && settings.ipfsNetwork === 'off' && !settings.ipfsGatewayUrl) {
        if (helia.libp2p.getConnections().length === 0) await dialPeers();
        online = helia.libp2p.getConnections().length > 0;
      }
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const part of fs.cat(cid, { signal, offline: !online })) {
        size += part.byteLength;
        if (size > maxBytes) throw new ContentTooLarge(`${cid} is larger than ${maxBytes} bytes`);
        parts.push(part);
      }
      return Buffer.concat(parts);
    },
    provide(cid) {
      if (settings.ipfsNetwork !== 'on') return;
      helia.routing.provide(cid).catch(() => {}); // best effort: the network may be unreachable now
    },
    multiaddrs() {
      return helia.libp2p.getMultiaddrs().map(String);
    },
    async stop() {
      await helia.stop();
    },
  };
}

/** The CID in an ipfs://<cid> URI (no path), or null. */
export function cidOfUri(uri: unknown): CID | null {
  if (typeof uri !== 'string') return null;
  const m = /^ipfs:\/\/([A-Za-z0-9]{1,200})$/.exec(uri);
  return m ? parseCid(m[1] as string) : null;
}

/** A CID from text, or null when it is not one. */
export function parseCid(text: string): CID | null {
  try {
    return CID.parse(text);
  } catch {
    return null;
  }
}
