// IPFS: pin and fetch latencies of the gateway's node, each against a baseline measured in the same run.
// - pin (add as UnixFS + pins row, SQLite blockstore) against one plain INSERT of the same bytes;
// - fetch by a second, independent node over bitswap (loopback TCP, connected) against the first
//   node's own local read of the same file;
// - a metadata document pinned elsewhere, read cold by the gateway's document reader.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { CID } from 'multiformats/cid';
import { MetadataDocuments } from '../src/pinning/documents.ts';
import { startIpfsNode } from '../src/pinning/ipfsNode.ts';
import { IpfsPinStore } from '../src/pinning/pinStore.ts';
import { loadSettings } from '../src/settings.ts';
import { openDatabase } from '../src/store/db.ts';

const ROUNDS = 30;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function benchIpfs(): Promise<void> {
  const dirs = [mkdtempSync(join(tmpdir(), 'lp-bench-ipfs-')), mkdtempSync(join(tmpdir(), 'lp-bench-ipfs-'))];
  const settingsOf = (dir: string, peers = '') =>
    loadSettings({ LAUNCHPAD_DATA_DIR: dir, IPFS_NETWORK: 'off', IPFS_PEERS: peers });
  const dbA = await openDatabase(settingsOf(dirs[0] as string));
  const dbB = await openDatabase(settingsOf(dirs[1] as string));
  const a = await startIpfsNode(dbA, settingsOf(dirs[0] as string));
  const b = await startIpfsNode(dbB, settingsOf(dirs[1] as string, a.multiaddrs().join(',')));
  const pins = new IpfsPinStore(dbA, a);
  await dbA.db.schema.createTable('bench_blobs').addColumn('k', 'text').addColumn('v', 'blob').execute();
  try {
    console.log('\n## IPFS (Helia node, SQLite blockstore, bitswap over loopback TCP)');
    console.log(
      '| content | pin p50 ms | INSERT p50 ms | pin/INSERT | bitswap fetch p50 ms | local read p50 ms | fetch/local |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const size of [1_000, 100_000, 1_500_000]) {
      const pin: number[] = [];
      const insert: number[] = [];
      const fetch: number[] = [];
      const local: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const bytes = randomBytes(size);
        insert.push(
          await timed(() =>
            sql`insert into bench_blobs (k, v) values (${String(i)}, ${bytes})`.execute(dbA.db),
          ),
        );
        let cid = '';
        pin.push(await timed(async () => (cid = await pins.pin(bytes, 'application/octet-stream'))));
        const parsed = CID.parse(cid);
        local.push(await timed(() => a.cat(parsed, { maxBytes: 4e6, timeoutMs: 5000, offline: true })));
        fetch.push(await timed(() => b.cat(parsed, { maxBytes: 4e6, timeoutMs: 5000 })));
      }
      const [p, s, f, l] = [median(pin), median(insert), median(fetch), median(local)];
      console.log(
        `| ${size.toLocaleString('en')} B | ${p.toFixed(2)} | ${s.toFixed(2)} | ${(p / s).toFixed(1)}× | ${f.toFixed(2)} | ${l.toFixed(2)} | ${(f / l).toFixed(1)}× |`,
      );
    }
    // A document pinned by node B only, read cold by node A's document reader (bitswap from B).
    const docs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const reader = new MetadataDocuments(a, 5000);
      const doc = new IpfsPinStore(dbB, b);
      const cid = await doc.pin(
        Buffer.from(JSON.stringify({ name: `Doc ${i}`, description: 'elsewhere' })),
        'application/json',
      );
      docs.push(await timed(() => reader.get(`ipfs://${cid}`)));
    }
    console.log(
      `\ndocument pinned elsewhere, read cold over bitswap: p50 ${median(docs).toFixed(2)} ms (${ROUNDS} documents)`,
    );
  } finally {
    await b.stop();
    await a.stop();
    await dbA.close();
    await dbB.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
