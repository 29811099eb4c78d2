// The gateway's IPFS node against independent ones on loopback: another Helia node fetches what the
// gateway pinned over bitswap; a Pinning Service API server pins it by fetching it from the gateway's
// node; documents pinned elsewhere are read (token records, metadata updates that keep their fields);
// what cannot be reached is a clear 502/503/504, and the pinning token appears nowhere.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, devnetEnv } from '../src/devnet/devnet.ts';
import { startIndexer } from '../src/indexer/indexer.ts';
import { TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  startDevnetGateway,
  startTestIndexer,
  waitIndexed,
} from './support/devnetGateway.ts';
import { call, expectProblem, startGateway, type TestGateway, tempDir } from './support/gateway.ts';
import {
  type IpfsPeer,
  type PinningService,
  startIpfsPeer,
  startPinningService,
  startTrustlessGateway,
} from './support/ipfsPeer.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const TOKEN = 'pinning-secret-do-not-leak';
let env: DevnetGateway;
let gw: TestGateway;
let key: string;
let chain: TestChain;
let peer: IpfsPeer;
let servicePeer: IpfsPeer;
let service: PinningService;
let indexer: ReturnType<typeof startIndexer>;
const extra: TestGateway[] = [];

beforeAll(async () => {
  [peer, servicePeer] = await Promise.all([startIpfsPeer(), startIpfsPeer()]);
  service = await startPinningService(servicePeer, TOKEN);
  // The main gateway knows the independent node as a peer (IPFS_PEERS), as replicas or an operator's
  // own nodes would be configured.
  env = await startDevnetGateway({ IPFS_PEERS: peer.multiaddrs.join(','), IPFS_FETCH_TIMEOUT_MS: '3000' });
  ({ gw, key } = env);
  chain = new TestChain(env.devnet.chains[0] as Devnet['chains'][number]);
  indexer = startTestIndexer(gw, env.devnet, [8453], 1000);
}, 60_000);
afterAll(async () => {
  await indexer?.stop();
  for (const g of extra) await g.close();
  await env?.close();
  await service?.close();
  await Promise.all([peer?.stop(), servicePeer?.stop()]);
});

/** A gateway of its own on the same devnet and manifests, with more settings. */
async function gateway(settings: Record<string, string>) {
  const g = await startGateway({ ...devnetEnv(env.devnet, env.dataDir), ...settings });
  extra.push(g);
  return { g, key: await g.createKey() };
}

function launchBody(creator: Address, image = PNG) {
  return {
    chain_id: 8453,
    creator,
    market: 'standard',
    quote_address: zeroAddress,
    token: {
      name: 'Pinned',
      symbol: 'PIN',
      image_base64: image,
      image_type: 'image/png',
      description: 'on IPFS',
    },
  };
}

const prepare = (target: { g: TestGateway; key: string }, body: unknown) => {
  target.g.clock.advance(61_000);
  return call(target.g, '/v1/launches/prepare', {
    key: target.key,
    method: 'POST',
    body,
    headers: { 'idempotency-key': randomUUID() },
  });
};

describe('the IPFS node', () => {
  it('serves what it pinned to an independent node over bitswap, identical bytes, 1 MiB blocks past 1 MiB', async () => {
    // A PNG of 1.5 MB: stored as a UnixFS file of 1 MiB raw blocks (the bitswap-friendly size).
    const big = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(1_500_000, 7)]);
    const small = await prepare({ g: gw, key }, launchBody(chain.account(1)));
    const large = await prepare({ g: gw, key }, launchBody(chain.account(2), big.toString('base64')));
    expect(small.status, small.body).toBe(200);
    expect(large.status, large.body).toBe(200);
    const cidOf = (url: string) => new URL(url).pathname.slice('/ipfs/'.length);
    const smallImage = cidOf(small.json.data.image_url);
    const largeImage = cidOf(large.json.data.image_url);
    const document = (small.json.data.metadata_uri as string).slice('ipfs://'.length);
    // Up to 1 MiB the CID is the raw block's (as before); the large image is a dag-pb root.
    expect(smallImage).toMatch(/^bafkrei[a-z2-7]{52}$/);
    expect(document).toMatch(/^bafkrei[a-z2-7]{52}$/);
    expect(largeImage).toMatch(/^bafybei[a-z2-7]{52}$/);

    const other = await startIpfsPeer();
    try {
      expect(await other.has(smallImage)).toBe(false);
      await other.dial(gw.ipfs.multiaddrs());
      const fromGateway = async (cid: string) =>
        Buffer.from(await (await fetch(`${gw.origin}/ipfs/${cid}`)).arrayBuffer());
      expect((await other.cat(smallImage, true)).equals(Buffer.from(PNG, 'base64'))).toBe(true);
      expect((await other.cat(largeImage, true)).equals(big)).toBe(true);
      expect((await other.cat(largeImage)).equals(await fromGateway(largeImage))).toBe(true);
      const doc = await other.cat(document, true);
      expect(doc.equals(await fromGateway(document))).toBe(true);
      expect(JSON.parse(doc.toString())).toMatchObject({
        name: 'Pinned',
        symbol: 'PIN',
        description: 'on IPFS',
      });
    } finally {
      await other.stop();
    }
  });

  it('reads a document pinned elsewhere: the token record has its profile, its image is served', async () => {
    const creator = chain.account(3);
    const image = Buffer.from('GIF89a-elsewhere');
    const imageCid = await peer.add(image);
    const docCid = await peer.add(
      Buffer.from(
        JSON.stringify({
          name: 'Elsewhere',
          symbol: 'ELS',
          description: 'Pinned by another node',
          website: 'https://elsewhere.example',
          x: 'https://x.com/elsewhere',
          image: `ipfs://${imageCid}`,
        }),
      ),
    );
    const { token } = await chain.launch(creator, {
      name: 'Elsewhere',
      symbol: 'ELS',
      contractURI: `ipfs://${docCid}`,
    });
    await waitIndexed(gw, key, chain.client);
    const record = await call(gw, `/v1/tokens/8453/${token}`, { key });
    expect(record.status, record.body).toBe(200);
    expect(record.json.data.token).toMatchObject({
      description: 'Pinned by another node',
      website: 'https://elsewhere.example',
      image_url: `${gw.origin}/ipfs/${imageCid}`,
    });
    const served = await fetch(`${gw.origin}/ipfs/${imageCid}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
    // A CID that no document names is not fetched for anyone: this is not an open gateway.
    const stranger = await peer.add(Buffer.from('not referenced by any token'));
    expect((await fetch(`${gw.origin}/ipfs/${stranger}`)).status).toBe(404);

    // The creator updates one field through the gateway: the new document keeps the others.
    gw.clock.advance(61_000);
    const update = await call(gw, `/v1/tokens/8453/${token}/metadata/document/prepare`, {
      key,
      method: 'POST',
      body: { actor: creator, document: { telegram: 'https://t.me/elsewhere' } },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(update.status, update.body).toBe(200);
    const merged = await (await fetch(`${gw.origin}/ipfs/${update.json.data.metadata_uri.slice(7)}`)).json();
    expect(merged).toEqual({
      name: 'Elsewhere',
      symbol: 'ELS',
      description: 'Pinned by another node',
      website: 'https://elsewhere.example',
      x: 'https://x.com/elsewhere',
      image: `ipfs://${imageCid}`,
      telegram: 'https://t.me/elsewhere',
    });
  });

  it('refuses a metadata update with 504 when the current document cannot be retrieved, erasing nothing', async () => {
    const creator = chain.account(4);
    const orphan = await startIpfsPeer();
    const docCid = await orphan.add(
      Buffer.from(JSON.stringify({ name: 'Gone', description: 'unreachable' })),
    );
    await orphan.stop(); // nobody has it now
    const { token } = await chain.launch(creator, {
      name: 'Gone',
      symbol: 'GONE',
      contractURI: `ipfs://${docCid}`,
    });
    gw.clock.advance(61_000);
    const started = performance.now();
    const update = await call(gw, `/v1/tokens/8453/${token}/metadata/document/prepare`, {
      key,
      method: 'POST',
      body: { actor: creator, document: { telegram: 'https://t.me/gone' } },
      headers: { 'idempotency-key': randomUUID() },
    });
    expectProblem(update, 504, 'upstream_timeout');
    expect(update.json.detail).toContain(docCid);
    expect(performance.now() - started).toBeLessThan(10_000); // bounded by IPFS_FETCH_TIMEOUT_MS
  });

  it('moves the pins of an earlier data dir into the node, CIDs unchanged', async () => {
    const dataDir = tempDir();
    const cid = 'bafkreietui4xdkiu4xvmx4fi2jivjtndbhb4drzpxomrjvd4mdz4w2avra'; // {"hello":"world"}
    mkdirSync(join(dataDir, 'ipfs'));
    writeFileSync(join(dataDir, 'ipfs', cid), JSON.stringify({ hello: 'world' }));
    writeFileSync(join(dataDir, 'ipfs', `${cid}.type`), 'application/json');
    const { g } = await gateway({ LAUNCHPAD_DATA_DIR: dataDir });
    const served = await fetch(`${g.origin}/ipfs/${cid}`);
    expect(served.headers.get('content-type')).toBe('application/json');
    expect(await served.json()).toEqual({ hello: 'world' });
  });
});

describe('IPFS_GATEWAY_URL (a trustless HTTP gateway)', () => {
  it('reads a document through the gateway, verified: forged bytes are refused', async () => {
    const http = await startTrustlessGateway(peer);
    try {
      const creator = chain.account(8);
      const docCid = await peer.add(
        Buffer.from(JSON.stringify({ name: 'Via HTTP', description: 'trustless' })),
      );
      const forgedCid = await peer.add(
        Buffer.from(JSON.stringify({ name: 'Forged', description: 'original' })),
      );
      const { token } = await chain.launch(creator, { contractURI: `ipfs://${docCid}` });
      // No IPFS_PEERS: the HTTP gateway is the only way to the blocks.
      const { g, key: k } = await gateway({ IPFS_GATEWAY_URL: http.url, IPFS_FETCH_TIMEOUT_MS: '2000' });
      const indexer2 = startTestIndexer(g, env.devnet, [8453], 1000);
      try {
        await waitIndexed(g, k, chain.client);
        const record = await call(g, `/v1/tokens/8453/${token}`, { key: k });
        expect(record.json.data.token.description).toBe('trustless');
        expect(http.requests).toBeGreaterThan(0);
        http.tamper = true;
        const { token: forgedToken } = await chain.launch(chain.account(9), {
          contractURI: `ipfs://${forgedCid}`,
        });
        await waitIndexed(g, k, chain.client);
        const forged = await call(g, `/v1/tokens/8453/${forgedToken}`, { key: k });
        expect(forged.status).toBe(200);
        expect(forged.json.data.token.description).toBeNull(); // the bytes did not hash to the CID
      } finally {
        await indexer2.stop();
      }
    } finally {
      await http.close();
    }
  });
});

describe('remote pinning (PINNING_URL, IPFS Pinning Service API)', () => {
  it('returns a launch only once the service has pinned image and document, fetched from the gateway over bitswap', async () => {
    const target = await gateway({ PINNING_URL: service.url, PINNING_TOKEN: TOKEN });
    const before = service.pins.length;
    const r = await prepare(target, launchBody(chain.account(5)));
    expect(r.status, r.body).toBe(200);
    const image = new URL(r.json.data.image_url).pathname.slice('/ipfs/'.length);
    const document = (r.json.data.metadata_uri as string).slice('ipfs://'.length);
    const pins = service.pins.slice(before);
    expect(pins.map((p) => [p.pin.cid, p.status])).toEqual([
      [image, 'pinned'],
      [document, 'pinned'],
    ]);
    // The origins were the gateway's node, and the service's node holds the bytes it fetched from it.
    expect(pins[0]?.pin.origins).toEqual(target.g.ipfs.multiaddrs());
    expect((await servicePeer.cat(image)).equals(Buffer.from(PNG, 'base64'))).toBe(true);
    expect(JSON.parse((await servicePeer.cat(document)).toString())).toMatchObject({ name: 'Pinned' });
  });

  it('maps the service failures to 502, 503 and 504, and never shows the token', async () => {
    const wrongToken = await gateway({ PINNING_URL: service.url, PINNING_TOKEN: 'wrong-token' });
    const down = await gateway({ PINNING_URL: 'http://127.0.0.1:9', PINNING_TOKEN: TOKEN });
    const slow = await gateway({ PINNING_URL: service.url, PINNING_TOKEN: TOKEN, PINNING_TIMEOUT_MS: '400' });
    const r502 = await prepare(wrongToken, launchBody(chain.account(6)));
    expectProblem(r502, 502, 'upstream_error');
    const r503 = await prepare(down, launchBody(chain.account(6)));
    expectProblem(r503, 503, 'temporarily_unavailable');
    expect(r503.headers.get('retry-after')).toBe('5');
    service.mode = 'hang';
    try {
      const r504 = await prepare(slow, launchBody(chain.account(6)));
      expectProblem(r504, 504, 'upstream_timeout');
      for (const r of [r502, r503, r504]) expect(r.body).not.toContain(TOKEN);
    } finally {
      service.mode = 'normal';
    }
  });
});

describe('IPFS_NETWORK=on', () => {
  it('starts and pins without internet: the public network is best effort', async () => {
    const target = await gateway({ IPFS_NETWORK: 'on', IPFS_LISTEN: '/ip4/127.0.0.1/tcp/0' });
    const r = await prepare(target, launchBody(chain.account(7)));
    expect(r.status, r.body).toBe(200);
    const doc = await fetch(`${target.g.origin}/ipfs/${(r.json.data.metadata_uri as string).slice(7)}`);
    expect(await doc.json()).toMatchObject({ name: 'Pinned' });
  });
});
