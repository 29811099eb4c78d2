// Request ids: ULIDs built from a per-millisecond time prefix and pooled random bytes. Indexed pages as
// JSON text.
import { describe, expect, it } from 'vitest';
import { indexedPage, indexedPageJson, requestId, ulid } from '../src/http/envelope.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('ulid', () => {
  it('encodes the millisecond in its first 10 characters and 80 random bits in the other 16', () => {
    const now = 1_763_933_000_123;
    const ids = Array.from({ length: 4000 }, (_, i) => ulid(now + (i % 3)));
    ids.forEach((id, i) => {
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      let time = 0;
      for (const ch of id.slice(0, 10)) time = time * 32 + CROCKFORD.indexOf(ch);
      expect(time).toBe(now + (i % 3));
    });
    expect(new Set(ids).size).toBe(ids.length);
    // Every random position takes all 32 values: no bit of the 80 is lost or stuck.
    for (let p = 10; p < 26; p++) expect(new Set(ids.map((id) => id[p])).size).toBe(32);
  });

  it('keeps a well-formed caller id and replaces anything else', () => {
    expect(requestId('caller-id.0001')).toBe('caller-id.0001');
    expect(requestId('short')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(requestId('bad id with spaces')).toMatch(/^req_/);
    expect(requestId(['a', 'b'])).toMatch(/^req_/);
  });
});

describe('indexedPageJson', () => {
  it('sends what indexedPage answers, each caller its own envelope, the rows serialised once per page', () => {
    const now = 1_763_933_000_123;
    const page = {
      items: [{ chain_id: 8453, name: 'Pepe "Rocket"\u0000' }],
      next: 'c1',
      indexedThrough: { 8453: '120' },
      warnings: ['chain 143: no USD price'],
    };
    const first = indexedPageJson('req-a.0001', now, page);
    expect(JSON.parse(first)).toEqual(indexedPage('req-a.0001', now, page));
    // A second caller of the same (shared) page: its own request id and time, the rows' JSON reused.
    page.items.push({ chain_id: 143, name: 'later' });
    const second: unknown = JSON.parse(indexedPageJson('req-b.0002', now + 5, page));
    expect(second).toEqual(indexedPage('req-b.0002', now + 5, { ...page, items: page.items.slice(0, 1) }));
    // Without an indexed_through, the meta has none.
    const bare = { items: [], next: null, indexedThrough: undefined };
    expect(JSON.parse(indexedPageJson('req-c.0003', now, bare))).toEqual(
      indexedPage('req-c.0003', now, bare),
    );
  });
});
