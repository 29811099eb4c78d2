// The committed production manifests parse in the one manifest format and agree with the contracts'
// address rules.
import { describe, expect, it } from 'vitest';
import { loadManifests, parseManifest } from '../src/launchpad/manifest.ts';

const manifests = loadManifests('deployments');

describe('production manifests', () => {
  it('cover Base, Robinhood Chain and Arc', () => {
    expect(manifests.map((m) => [m.chain_id, m.name])).toEqual([
      [5042, 'Arc'],
      [8453, 'Base'],
      [4663, 'Robinhood Chain'],
    ]);
  });

  it('have one current suite per chain whose hook carries the 0x2ACC permission bits', () => {
    for (const m of manifests) {
      const current = m.suites.filter((s) => s.status === 'current');
      expect(current).toHaveLength(1);
      // Historical hooks had other permission sets (block-v1 also took fees in the launched token).
      expect(BigInt(current[0]?.contracts.hook as string) & 0x3fffn).toBe(0x2accn);
    }
  });

  it('name a suite for every quote, with the 5042 stablecoin at 6 decimals', () => {
    const arc = manifests.find((m) => m.chain_id === 5042);
    expect(arc?.quotes).toEqual([
      expect.objectContaining({
        symbol: 'USDC',
        decimals: 6,
        address: '0x3600000000000000000000000000000000000000',
      }),
    ]);
    expect(arc?.suites[0]?.contracts.swap_router).toBe('0x528154f6DE668988A2DD1B4db96F470716d0493B');
  });

  it('refuses a manifest with unknown fields, bad addresses or dangling suite ids', () => {
    const good = structuredClone(manifests[0]);
    expect(() => parseManifest({ ...good, extra: 1 })).toThrow(/must NOT have additional properties/);
    const badAddress = structuredClone(good) as { suites: { contracts: { factory: string } }[] };
    (badAddress.suites[0] as { contracts: { factory: string } }).contracts.factory = '0x123';
    expect(() => parseManifest(badAddress)).toThrow(/pattern/);
    const dangling = structuredClone(good) as { quotes: { suite_id: string }[] };
    (dangling.quotes[0] as { suite_id: string }).suite_id = 'nope';
    expect(() => parseManifest(dangling)).toThrow(/unknown suite nope/);
  });
});
