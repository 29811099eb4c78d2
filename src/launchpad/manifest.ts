// Deployment manifests: ONE format for the committed production manifests (deployments/*.json) and the
// devnet's generated ones. A manifest lists a chain's suites (static facts and contract addresses) and
// its quote catalog; live values (config version, fees, registration) are read from the chain.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { getAddress } from 'viem';
import { ADDRESS_PATTERN, StringEnum } from '../inputRules.ts';
import { CHAIN_IDS } from './chains.ts';

const Address = Type.String({ pattern: ADDRESS_PATTERN });
/** A field whose address is not published: the gateway reads it from the suite factory's view at start. */
export const FROM_FACTORY = 'from_factory';
const Resolvable = (description: string) =>
  Type.Union([Address, Type.Literal(FROM_FACTORY)], { description: `${description}; or "${FROM_FACTORY}"` });
/** The factory view of each field that may be read from the factory. */
export const FACTORY_VIEWS = {
  hook: 'hook',
  announcement_registry: 'announcementRegistry',
  launch_buy_adapter: 'launchBuyAdapter',
  token_deployer: 'tokenDeployer',
} as const;

const Contracts = Type.Object(
  {
    factory: Address,
    hook: Resolvable('the v4 hook'),
    fee_escrow: Address,
    announcement_registry: Resolvable('the announcement registry'),
    pool_manager: Address,
    state_view: Address,
    quoter: Address,
    vesting_vault: Type.Optional(Address),
    launch_buy_adapter: Type.Optional(Resolvable('the launch-buy adapter')),
    /** ERC-20 chains: the CREATE2 deployer of launch tokens; B20 chains: the validator. */
    token_deployer: Type.Optional(Resolvable('the token deployer (B20 chains: the validator)')),
    universal_router: Type.Optional(Address),
    /** The suite's dedicated swap router (5042); encoded as a Universal Router (REFERENCE §7 #7). */
    swap_router: Type.Optional(Address),
    /** The production SwapX router, used by launch-buy routes; not a swap target of this gateway. */
    swapx_router: Type.Optional(Address),
    permit: Type.Optional(Address),
    /** Tax suites: the dividend distributor (holders' dividends, claims). */
    dividend_distributor: Type.Optional(Address),
  },
  { additionalProperties: false },
);

export const SuiteManifest = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    status: StringEnum(['current', 'historical']),
    active_for_creation: Type.Boolean(),
    routes: Type.Array(StringEnum(['standard', 'rwa']), { minItems: 1, uniqueItems: true }),
    first_block: Type.Integer({ minimum: 0 }),
    token_mode: StringEnum(['b20', 'erc20']),
    launch_product: StringEnum(['non-tax', 'tax']),
    contracts: Contracts,
    /**
     * The calldata the suite's dedicated swap router takes. `universal_router`: swaps go through it,
     * encoded as for the Universal Router. Absent or `unknown`: the Universal Router is used instead.
     */
    swap_router_format: Type.Optional(StringEnum(['universal_router', 'unknown'])),
    /**
     * How a current suite charges its launch fee. `native` (or absent): `nativeLaunchFee`, sent as value.
     * `erc20`: `launchFeeAmount` of `launchFeeToken`, pulled with transferFrom after an approval.
     */
    launch_fee: Type.Optional(StringEnum(['native', 'erc20'])),
    /** Tax suites (launch_product tax): the published static facts; the policy is read from the factory. */
    tax_format: Type.Optional(StringEnum(['pre-inclusive', 'inclusive'])),
    dividend_claims: Type.Optional(
      Type.Union([
        Type.Object({ kind: Type.Literal('permissionless') }, { additionalProperties: false }),
        Type.Object(
          { kind: Type.Literal('holder-authorized'), helper: Address },
          { additionalProperties: false },
        ),
      ]),
    ),
    dividend_accounting: Type.Optional(StringEnum(['allocation-time', 'fee-accrual'])),
    zero_eligible_dividend_policy: Type.Optional(StringEnum(['protocol-recipient'])),
  },
  { additionalProperties: false },
);

export const QuoteManifest = Type.Object(
  {
    address: Address,
    symbol: Type.String({ minLength: 1 }),
    name: Type.String(),
    decimals: Type.Integer({ minimum: 0, maximum: 255 }),
    asset_type: Type.Union([
      StringEnum(['native', 'stablecoin', 'wrapped_crypto', 'crypto_token', 'tokenized_security']),
      Type.Null(),
    ]),
    issuer: Type.Union([
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          legal_entities: Type.Array(Type.String()),
          sources: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    route: StringEnum(['standard', 'rwa']),
    suite_id: Type.String(),
    /** Catalog flag: offered for new launches when registered (default true). */
    selectable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const ChainManifest = Type.Object(
  {
    format: Type.Literal(1),
    chain_id: Type.Integer({ enum: [...CHAIN_IDS] }),
    name: Type.String(),
    weth: Type.Union([Address, Type.Null()]),
    /**
     * The native currency's USD reference: a price feed with the Chainlink AggregatorV3 interface
     * (`latestRoundData`, `decimals`), read at each market refresh's block. Absent: native- and
     * WETH-quoted tokens have no USD figures.
     */
    native_usd_feed: Type.Optional(Address),
    suites: Type.Array(SuiteManifest),
    quotes: Type.Array(QuoteManifest),
  },
  { additionalProperties: false },
);
export type ChainManifest = Static<typeof ChainManifest>;

/** Versions whose factory has the current interface (creator rights, metadata, native or ERC-20 fee). */
const CURRENT_VERSIONS = new Set(['launchpad-v4-minimal', 'launchpad-v4-tax']);
/** Whether a suite's factory has the current interface (the tax factory extends it). */
export const hasCurrentFactory = (suite: { version: string }): boolean => CURRENT_VERSIONS.has(suite.version);

const validate = new Ajv({ allErrors: true, strict: false }).compile(ChainManifest);

/** Parses and checks one manifest; addresses come back checksummed. Throws with every problem found. */
export function parseManifest(json: unknown, source = 'manifest'): ChainManifest {
  if (!validate(json)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${source}: ${problems.join('; ')}`);
  }
  const manifest = structuredClone(json) as ChainManifest;
  const ids = new Set(manifest.suites.map((s) => s.id));
  if (ids.size !== manifest.suites.length) throw new Error(`${source}: duplicate suite ids`);
  for (const suite of manifest.suites) {
    if (suite.launch_product === 'tax' && !suite.tax_format)
      throw new Error(`${source}: tax suite ${suite.id} has no tax_format`);
    const contracts = suite.contracts as Record<string, string>;
    for (const [key, value] of Object.entries(contracts))
      if (value !== FROM_FACTORY) contracts[key] = getAddress(value);
  }
  for (const quote of manifest.quotes) {
    if (!ids.has(quote.suite_id))
      throw new Error(`${source}: quote ${quote.symbol} names unknown suite ${quote.suite_id}`);
    quote.address = getAddress(quote.address);
  }
  if (manifest.weth) manifest.weth = getAddress(manifest.weth);
  if (manifest.native_usd_feed) manifest.native_usd_feed = getAddress(manifest.native_usd_feed);
  return manifest;
}

/** Every manifest in a directory (deployments/ for production). */
export function loadManifests(dir: string): ChainManifest[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => parseManifest(JSON.parse(readFileSync(join(dir, f), 'utf8')), f));
}
