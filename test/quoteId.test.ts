// quote_id signing: what the previous secret signed still verifies for the quote lifetime after a
// rotation, and not after; a changed token never verifies.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { QuoteSigner } from '../src/swaps/quoteId.ts';

describe('QuoteSigner', () => {
  it('accepts the previous secret until the rotation window ends', () => {
    const clock = new ManualClock(1_000_000);
    const old = new QuoteSigner(Buffer.from('old secret'));
    const rotated = new QuoteSigner(Buffer.from('new secret'), {
      secret: Buffer.from('old secret'),
      untilMs: clock.now() + 120_000,
      now: () => clock.now(),
    });
    const issued = old.sign({ n: 1 });
    expect(rotated.verify(issued)).toEqual({ n: 1 });
    expect(rotated.verify(rotated.sign({ n: 2 }))).toEqual({ n: 2 });
    expect(() => old.verify(rotated.sign({ n: 3 }))).toThrow(/is not a quote this gateway issued/);
    expect(() => rotated.verify(`${issued.slice(0, -2)}xx`)).toThrow(/is not a quote this gateway issued/);
    clock.advance(120_000);
    expect(() => rotated.verify(issued)).toThrow(/is not a quote this gateway issued/);
  });
});
