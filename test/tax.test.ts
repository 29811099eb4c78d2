// The inclusive tax maths of REFERENCE §5, with its worked example and each validation rule.
import { describe, expect, it } from 'vitest';
import {
  componentRate,
  type InclusiveTaxPolicy,
  PS,
  splitSide,
  type TaxInput,
  taxViolations,
} from '../src/launchpad/tax.ts';

// The fixture policy: buy and sell 1%–10%; protocol share 10%, minimum 0.5%, maximum 1%; 20 s window.
const POLICY: InclusiveTaxPolicy = {
  tax_fee_bounds: {
    minimum_buy_tax_rate: '1000000',
    maximum_buy_tax_rate: '10000000',
    minimum_sell_tax_rate: '1000000',
    maximum_sell_tax_rate: '10000000',
  },
  protocol_fee_configuration: {
    protocol_tax_share: '10000000',
    minimum_protocol_fee_rate: '500000',
    maximum_protocol_fee_rate: '1000000',
  },
  anti_snipe_configuration: { window_seconds: 20 },
  minimum_dividend_holding_requirement_raw: (10_000n * 10n ** 18n).toString(),
};
const SUPPLY = 10n ** 27n;
const VALID: TaxInput = {
  buy_tax_rate: '3000000',
  sell_tax_rate: '3000000',
  creator_allocation_share: '60000000',
  burn_allocation_share: '0',
  dividend_allocation_share: '40000000',
  integrator_allocation_share: '0',
  minimum_dividend_holding_raw: (10_000n * 10n ** 18n).toString(),
  anti_snipe_enabled: true,
};

describe('inclusive tax maths', () => {
  it('reproduces the worked example: 3% = protocol 0.5% + creator 1.5% + dividend 1.0%', () => {
    const side = splitSide(3_000_000n, POLICY);
    expect(side.protocolRate).toBe(500_000n); // 0.5%, the floor (3e13 < 5e13)
    expect(side.remainder).toBe(250_000_000_000_000n); // 2.5% in PS²
    expect(componentRate(side, 60_000_000n)).toBe(15n * 10n ** 21n); // 1.5% in PS³
    expect(componentRate(side, 40_000_000n) / PS / PS).toBe(1_000_000n); // 1.0%
    expect(taxViolations(VALID, POLICY, SUPPLY)).toEqual([]);
  });

  it('caps the protocol share at its maximum', () => {
    expect(splitSide(10_000_000n * 2n, POLICY).protocolRate).toBe(1_000_000n);
  });

  it.each([
    [{ buy_tax_rate: '11000000' }, 'tax.buy_tax_rate'],
    [{ sell_tax_rate: '500000' }, 'tax.sell_tax_rate'],
    [{ creator_allocation_share: '50000000' }, 'tax'],
    [{ minimum_dividend_holding_raw: '1' }, 'tax.minimum_dividend_holding_raw'],
    [{ minimum_dividend_holding_raw: (SUPPLY + 1n).toString() }, 'tax.minimum_dividend_holding_raw'],
    [
      { creator_allocation_share: '50000000', integrator_allocation_share: '10000000' },
      'tax.integrator_fee_recipient',
    ],
  ] as const)('rejects %o (%s)', (change, name) => {
    const names = taxViolations({ ...VALID, ...change }, POLICY, SUPPLY).map((v) => v.name);
    expect(names).toContain(name);
  });

  it('refuses anti-snipe without a window', () => {
    const noWindow = { ...POLICY, anti_snipe_configuration: { window_seconds: 0 } };
    expect(taxViolations(VALID, noWindow, SUPPLY).map((v) => v.name)).toEqual(['tax.anti_snipe_enabled']);
  });
});
