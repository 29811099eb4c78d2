// The committed production manifests parse in the one manifest format and agree with the contracts'
// address rules.
import { readdirSync, readFileSync } from 'node:fs';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { FROM_FACTORY, loadManifests, parseManifest } from '../src/launchpad/manifest.ts';

const manifests = loadManifests('deployments');

describe('production manifests', () => {
  it('cover all four chains: Base, Robinhood Chain, Monad and Arc', () => {
    expect(manifests.map((m) => [m.chain_id, m.name])).toEqual([
      [5042, 'Arc'],
      [8453, 'Base'],
      [143, 'Monad'],
      [4663, 'Robinhood Chain'],
    ]);
  });

  it('write every address checksummed (EIP-55) in the committed files', () => {
    for (const file of readdirSync('deployments').filter((f) => f.endsWith('.json'))) {
      const text = readFileSync(`deployments/${file}`, 'utf8');
      const addresses = text.match(/0x[0-9a-fA-F]{40}/g) ?? [];
      expect(addresses.length).toBeGreaterThan(5);
      for (const a of addresses) expect(a, `${file}: ${a}`).toBe(getAddress(a));
    }
  });

  it('list, for every current suite, the contracts its operations need, or leave them to the factory', () => {
    const needed = [
      'factory',
      'hook',
      'fee_escrow',
      'announcement_registry',
      'launch_buy_adapter',
      'token_deployer',
      'pool_manager',
      'state_view',
      'quoter',
      'permit',
    ];
    for (const m of manifests) {
      for (const suite of m.suites.filter((s) => s.status === 'current')) {
        const c = suite.contracts as Record<string, string | undefined>;
        for (const field of needed) expect(c[field], `${suite.id}.${field}`).toBeDefined();
        // Swaps need a router: the suite's dedicated one, or the Universal Router.
        expect(c.swap_router ?? c.universal_router, `${suite.id} router`).toBeDefined();
        for (const [field, value] of Object.entries(c))
          if (value === FROM_FACTORY)
            expect(['hook', 'announcement_registry', 'launch_buy_adapter', 'token_deployer']).toContain(
              field,
            );
      }
    }
    // Monad leaves to its factory what no public source gives, and invents nothing.
    const monad = manifests.find((m) => m.chain_id === 143)?.suites.find((s) => s.status === 'current');
    expect(monad?.contracts).toMatchObject({
      announcement_registry: FROM_FACTORY,
      launch_buy_adapter: FROM_FACTORY,
      token_deployer: FROM_FACTORY,
    });
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
