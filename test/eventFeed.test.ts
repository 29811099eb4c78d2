// The event feed alone, on a SQLite journal written here: which rows a stream is sent under its
// confirmations (the verdict depends on the journal only), a client that does not keep up is cut off
// without slowing another, and a stream behind the in-memory tail reads the journal in order.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cursors } from '../src/cursor.ts';
import type { EventType } from '../src/indexer/journal.ts';
import { decide, EventFeed, type EventFilter, type EventSink } from '../src/operations/eventFeed.ts';
import type { JournalRow } from '../src/operations/eventRecords.ts';
import { loadSettings } from '../src/settings.ts';
import { type Database, openDatabase } from '../src/store/db.ts';
import { tempDir } from './support/tempDir.ts';

const row = (over: Partial<JournalRow>): JournalRow => ({
  chain_id: 8453,
  seq: 1,
  type: 'trade',
  block_number: 100,
  block_hash: `0x${'1'.repeat(64)}`,
  tx_hash: `0x${'2'.repeat(64)}`,
  log_index: 0,
  token: `0x${'3'.repeat(40)}`,
  removes: null,
  removed_hw: null,
  data: '{"type":"trade"}',
  ...over,
});
const filter = (confirmations: number, types: EventType[] = ['trade']): EventFilter => ({
  chainIds: [8453],
  types,
  confirmations,
});

describe('which rows a stream is sent', () => {
  it('waits for confirmations, and sends a removal only where its event was sent', () => {
    // Not deep enough yet: wait; deep enough: send.
    expect(decide(row({}), filter(3), 102)).toBe('wait');
    expect(decide(row({}), filter(3), 103)).toBe('deliver');
    expect(decide(row({}), filter(0), 100)).toBe('deliver');
    // Another type or token: skipped for good.
    expect(decide(row({ type: 'launch' }), filter(0), 200)).toBe('skip');
    expect(decide(row({}), { ...filter(0), token: `0x${'4'.repeat(40)}` }, 200)).toBe('skip');
    // Removed by a reorg when the high water was 101: a 3-confirmation stream never had it, nor its removal.
    expect(decide(row({ removed_hw: 101 }), filter(3), 200)).toBe('skip');
    expect(decide(row({ seq: 9, removes: 1, removed_hw: 101 }), filter(3), 200)).toBe('skip');
    // With no confirmations both went out: the event, then its removal.
    expect(decide(row({ removed_hw: 101 }), filter(0), 200)).toBe('deliver');
    expect(decide(row({ seq: 9, removes: 1, removed_hw: 101 }), filter(0), 200)).toBe('deliver');
    // A reorg deeper than the confirmations (high water 110 ≥ 100 + 3): both go out there too.
    expect(decide(row({ removed_hw: 110 }), filter(3), 200)).toBe('deliver');
    expect(decide(row({ seq: 9, removes: 1, removed_hw: 110 }), filter(3), 200)).toBe('deliver');
    // An event removed before anyone made its data: never sent, and neither is its removal.
    expect(decide(row({ data: null, removed_hw: 110 }), filter(0), 200)).toBe('skip');
    expect(decide(row({ seq: 9, removes: 1, removed_hw: 110, data: null }), filter(0), 200)).toBe('skip');
    // Data not made yet (its rows not readable): wait.
    expect(decide(row({ data: null }), filter(0), 200)).toBe('wait');
  });
});

describe('the feed', () => {
  let dir: string;
  let database: Database;
  let wake: (chainId: number) => void = () => {};
  let feed: EventFeed;

  beforeAll(async () => {
    dir = tempDir();
    database = await openDatabase({ dataDir: dir });
    await database.db
      .insertInto('index_state')
      .values({ chain_id: 8453, indexed_through: 1000, high_water: 1000 })
      .execute();
    // 6,000 events with their data: more than the feed keeps in memory.
    const rows = Array.from({ length: 6000 }, (_, i) => ({
      chain_id: 8453,
      seq: i + 1,
      type: 'trade' as const,
      block_number: 10 + Math.floor(i / 10),
      block_hash: `0x${'1'.repeat(64)}`,
      tx_hash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
      log_index: i % 10,
      token: `0x${'3'.repeat(40)}`,
      removes: null,
      removed_hw: null,
      data: JSON.stringify({ n: i + 1, pad: 'x'.repeat(200) }),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await database.db
        .insertInto('index_events')
        .values(rows.slice(i, i + 500))
        .execute();
    const settings = loadSettings({ LAUNCHPAD_DATA_DIR: dir });
    feed = new EventFeed(
      {
        settings,
        database,
        cursors: new Cursors(Buffer.alloc(32, 7)),
        keyActive: async () => true,
        onGrowth: (w: (chainId: number) => void) => {
          wake = w;
          return async () => {};
        },
      } as never,
      {
        pollMs: 60_000,
        heartbeatMs: 60_000,
        keyCheckMs: 60_000,
        maxBufferedBytes: 64 * 1024,
        renewMs: 60_000,
      },
    );
  });
  afterAll(async () => {
    await feed.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sink = (reads: boolean) => {
    const got: number[] = [];
    let buffered = 0;
    const ended: { reason: string; abort?: boolean }[] = [];
    const s: EventSink = {
      event: (_id, _name, data) => {
        got.push((JSON.parse(data) as { n: number }).n);
        if (!reads) buffered += data.length;
      },
      comment: () => {},
      position: () => {},
      buffered: () => buffered,
      end: (reason, abort) => void ended.push({ reason, abort }),
    };
    return { s, got, ended };
  };

  it('cuts off a client that leaves too much unread; another, from the first event, gets all in order', async () => {
    const f = filter(0);
    const slow = sink(false);
    const fast = sink(true);
    const from = (await feed.open(f, undefined)).get(8453);
    expect(from).toBe(6000); // no Last-Event-ID: from the journal's end
    feed.subscribe(f, new Map([[8453, 0]]), {
      keyId: 'a',
      origin: 'http://x',
      sink: slow.s,
      renew: () => {},
    });
    feed.subscribe(f, new Map([[8453, 0]]), {
      keyId: 'b',
      origin: 'http://x',
      sink: fast.s,
      renew: () => {},
    });
    wake(8453);
    for (let i = 0; i < 500 && fast.got.length < 6000; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fast.got).toEqual(Array.from({ length: 6000 }, (_, i) => i + 1));
    expect(fast.ended).toEqual([]);
    expect(slow.ended).toHaveLength(1);
    expect(slow.ended[0]).toMatchObject({ abort: true, reason: expect.stringMatching(/did not keep up/) });
    expect(slow.got.length).toBeLessThan(6000); // cut off past 64 KiB unread
    expect(feed.size).toBe(1);
  });
});
