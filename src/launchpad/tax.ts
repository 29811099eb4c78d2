// Inclusive tax launches (REFERENCE §5): the protocol fee is carved out of the tax. All maths is exact
// in bigint: percentages use PS = 1e8 (= 100%), per-side splits PS², component rates PS³ (rate_scale).
// The reference contracts (contracts/TaxHook.sol) apply the same rules and the same split.
import { type Address, getAddress, zeroAddress } from 'viem';

export const PS = 100_000_000n;

/** The tax factory's `taxPolicy()` (contracts/TaxHook.sol TaxPolicy), as viem decodes it. */
export interface FactoryTaxPolicy {
  minimumBuyTaxRate: number;
  maximumBuyTaxRate: number;
  minimumSellTaxRate: number;
  maximumSellTaxRate: number;
  protocolTaxShare: number;
  minimumProtocolFeeRate: number;
  maximumProtocolFeeRate: number;
  protocolFeeRecipient: string;
  antiSnipeStartRate: number;
  antiSnipeWindowSeconds: number;
  minimumDividendHoldingRequirement: bigint;
}

/** GET /config's InclusiveTaxPolicy (spec), from the factory's policy. */
export function inclusiveTaxPolicy(p: FactoryTaxPolicy) {
  return {
    format: 'inclusive' as const,
    percentage_scale: PS.toString(),
    rate_scale: (PS * PS * PS).toString(),
    tax_fee_bounds: {
      minimum_buy_tax_rate: String(p.minimumBuyTaxRate),
      maximum_buy_tax_rate: String(p.maximumBuyTaxRate),
      minimum_sell_tax_rate: String(p.minimumSellTaxRate),
      maximum_sell_tax_rate: String(p.maximumSellTaxRate),
    },
    protocol_fee_configuration: {
      protocol_tax_share: String(p.protocolTaxShare),
      minimum_protocol_fee_rate: String(p.minimumProtocolFeeRate),
      maximum_protocol_fee_rate: String(p.maximumProtocolFeeRate),
      protocol_fee_recipient: getAddress(p.protocolFeeRecipient),
    },
    anti_snipe_configuration: {
      start_total_fee_rate: String(p.antiSnipeStartRate),
      window_seconds: Number(p.antiSnipeWindowSeconds),
    },
    minimum_dividend_holding_requirement_raw: p.minimumDividendHoldingRequirement.toString(),
  };
}

export interface InclusiveTaxPolicy {
  tax_fee_bounds: {
    minimum_buy_tax_rate: string;
    maximum_buy_tax_rate: string;
    minimum_sell_tax_rate: string;
    maximum_sell_tax_rate: string;
  };
  protocol_fee_configuration: {
    protocol_tax_share: string;
    minimum_protocol_fee_rate: string;
    maximum_protocol_fee_rate: string;
  };
  anti_snipe_configuration: { window_seconds: number };
  minimum_dividend_holding_requirement_raw: string;
}

export interface TaxInput {
  buy_tax_rate: string;
  sell_tax_rate: string;
  creator_allocation_share: string;
  burn_allocation_share: string;
  dividend_allocation_share: string;
  integrator_allocation_share: string;
  minimum_dividend_holding_raw: string;
  integrator_fee_recipient?: string;
  anti_snipe_enabled: boolean;
}

export interface SideSplit {
  /** The protocol's rate, in PS. */
  protocolRate: bigint;
  /** What is left for the components, in PS². */
  remainder: bigint;
  hasRemainder: boolean;
}

/** P2 = clamp(T × s, minP × PS, maxP × PS); R2 = T × PS − P2 (floored at 0). */
export function splitSide(rate: bigint, policy: InclusiveTaxPolicy): SideSplit {
  const p = policy.protocol_fee_configuration;
  const min = BigInt(p.minimum_protocol_fee_rate) * PS;
  const max = BigInt(p.maximum_protocol_fee_rate) * PS;
  const raw = rate * BigInt(p.protocol_tax_share);
  const p2 = raw < min ? min : raw > max ? max : raw;
  const r2 = rate * PS - p2;
  return {
    protocolRate: rate > 0n ? p2 / PS : 0n,
    remainder: r2 > 0n ? r2 : 0n,
    hasRemainder: rate > 0n && rate * PS > p2,
  };
}

/** A component's per-trade rate in PS³ (rate_scale 1e24): R2 × share. */
export const componentRate = (side: SideSplit, share: bigint): bigint => side.remainder * share;

export interface TaxViolation {
  name: string;
  detail: string;
}

/** Every rule of REFERENCE §5 that the request breaks (empty when it is valid). */
export function taxViolations(
  tax: TaxInput,
  policy: InclusiveTaxPolicy,
  launchSupplyRaw: bigint,
): TaxViolation[] {
  const out: TaxViolation[] = [];
  const b = policy.tax_fee_bounds;
  const minProtocol = BigInt(policy.protocol_fee_configuration.minimum_protocol_fee_rate);
  for (const [side, rate, lo, hi] of [
    [
      'buy_tax_rate',
      BigInt(tax.buy_tax_rate),
      BigInt(b.minimum_buy_tax_rate),
      BigInt(b.maximum_buy_tax_rate),
    ],
    [
      'sell_tax_rate',
      BigInt(tax.sell_tax_rate),
      BigInt(b.minimum_sell_tax_rate),
      BigInt(b.maximum_sell_tax_rate),
    ],
  ] as const) {
    if (rate < lo || rate > hi)
      out.push({ name: `tax.${side}`, detail: `tax.${side} must be within ${lo}..${hi}` });
    else if (rate > 0n && rate < minProtocol) {
      out.push({ name: `tax.${side}`, detail: `tax.${side} must be 0 or at least ${minProtocol}` });
    }
  }
  const shares = {
    creator: BigInt(tax.creator_allocation_share),
    burn: BigInt(tax.burn_allocation_share),
    dividend: BigInt(tax.dividend_allocation_share),
    integrator: BigInt(tax.integrator_allocation_share),
  };
  const holding = BigInt(tax.minimum_dividend_holding_raw);
  const anyRemainder =
    splitSide(BigInt(tax.buy_tax_rate), policy).hasRemainder ||
    splitSide(BigInt(tax.sell_tax_rate), policy).hasRemainder;
  const sum = shares.creator + shares.burn + shares.dividend + shares.integrator;
  if (anyRemainder && sum !== PS) {
    out.push({ name: 'tax', detail: `the allocation shares must sum to ${PS} (100%), not ${sum}` });
  }
  if (!anyRemainder && (sum !== 0n || holding !== 0n)) {
    out.push({
      name: 'tax',
      detail: 'with no tax left after the protocol fee, every share and the holding must be 0',
    });
  }
  if (shares.dividend > 0n) {
    const min = BigInt(policy.minimum_dividend_holding_requirement_raw);
    if (holding < min || holding > launchSupplyRaw) {
      out.push({
        name: 'tax.minimum_dividend_holding_raw',
        detail: `tax.minimum_dividend_holding_raw must be within ${min}..${launchSupplyRaw}`,
      });
    }
  } else if (holding !== 0n && anyRemainder) {
    out.push({ name: 'tax.minimum_dividend_holding_raw', detail: 'must be 0 without a dividend share' });
  }
  if (
    shares.integrator > 0n &&
    (!tax.integrator_fee_recipient || BigInt(tax.integrator_fee_recipient) === 0n)
  ) {
    out.push({
      name: 'tax.integrator_fee_recipient',
      detail: 'an integrator share needs a non-zero integrator_fee_recipient',
    });
  }
  if (tax.anti_snipe_enabled && policy.anti_snipe_configuration.window_seconds <= 0) {
    out.push({ name: 'tax.anti_snipe_enabled', detail: 'this suite has no anti-snipe window' });
  }
  return out;
}

/** The request's `tax` as the hook's TaxTerms tuple (contracts/TaxHook.sol). */
export function taxTerms(tax: TaxInput & { creator_fee_recipient: string }) {
  return {
    buyTaxRate: Number(tax.buy_tax_rate),
    sellTaxRate: Number(tax.sell_tax_rate),
    creatorShare: Number(tax.creator_allocation_share),
    burnShare: Number(tax.burn_allocation_share),
    dividendShare: Number(tax.dividend_allocation_share),
    integratorShare: Number(tax.integrator_allocation_share),
    creatorFeeRecipient: getAddress(tax.creator_fee_recipient),
    integratorFeeRecipient: (tax.integrator_fee_recipient
      ? getAddress(tax.integrator_fee_recipient)
      : zeroAddress) as Address,
    minimumDividendHolding: BigInt(tax.minimum_dividend_holding_raw),
    antiSnipe: tax.anti_snipe_enabled,
  };
}
export type TaxTerms = ReturnType<typeof taxTerms>;

/** One trade's tax, split as the hook splits it (TaxHook.splitTax); amounts in the quote currency. */
export interface TaxSplit {
  protocol: bigint;
  creator: bigint;
  burn: bigint;
  dividend: bigint;
  integrator: bigint;
}

/**
 * The hook's split of a trade's `fee` (of which `baseFee` at the side's rate T): each component gets
 * baseFee × R2 × share / (T × PS²), the protocol the rest. `dividendEligible` false: no holder has
 * eligible shares, so the dividend part goes to the protocol.
 */
export function splitTax(
  terms: TaxTerms,
  policy: InclusiveTaxPolicy,
  buy: boolean,
  fee: bigint,
  baseFee: bigint,
  dividendEligible: boolean,
): TaxSplit {
  const rate = BigInt(buy ? terms.buyTaxRate : terms.sellTaxRate);
  const out: TaxSplit = { protocol: 0n, creator: 0n, burn: 0n, dividend: 0n, integrator: 0n };
  if (rate > 0n) {
    const { remainder } = splitSide(rate, policy);
    const d = rate * PS * PS;
    const part = (share: number) => (baseFee * remainder * BigInt(share)) / d;
    out.creator = part(terms.creatorShare);
    out.burn = part(terms.burnShare);
    out.dividend = dividendEligible ? part(terms.dividendShare) : 0n;
    out.integrator = terms.integratorFeeRecipient === zeroAddress ? 0n : part(terms.integratorShare);
  }
  out.protocol = fee - out.creator - out.burn - out.dividend - out.integrator;
  return out;
}

/** The policy's rule fields from the factory's tuple (what `taxViolations` and `splitTax` need). */
export function rulesOf(p: FactoryTaxPolicy): InclusiveTaxPolicy {
  const spec = inclusiveTaxPolicy(p);
  return {
    tax_fee_bounds: spec.tax_fee_bounds,
    protocol_fee_configuration: spec.protocol_fee_configuration,
    anti_snipe_configuration: { window_seconds: spec.anti_snipe_configuration.window_seconds },
    minimum_dividend_holding_requirement_raw: spec.minimum_dividend_holding_requirement_raw,
  };
}
