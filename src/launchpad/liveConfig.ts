// GET /config's live part: the manifest's suites and quotes merged with one-block reads of each suite's
// factory (REFERENCE §3.1), all made in one round trip at the pinned block reported as `as_of_block`.
import { b20ActivationRead } from './b20.ts';
import { type Abi, type Address, zeroAddress } from 'viem';
import {
  LaunchFactoryAbi,
  Erc20FeeLaunchFactoryAbi,
  TaxLaunchFactoryAbi,
  VestingLaunchFactoryAbi,
} from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { ApiError } from '../errors.ts';
import { type ContractRead, type ReadResult, type Snapshot, withSnapshot } from '../chain/snapshot.ts';
import { CHAINS, type ChainId } from './chains.ts';
import type { Deployments } from './deployments.ts';
import { type ChainManifest, hasCurrentFactory } from './manifest.ts';
import { type FactoryTaxPolicy, inclusiveTaxPolicy } from './tax.ts';

type SuiteManifest = ChainManifest['suites'][number];
type QuoteManifest = ChainManifest['quotes'][number];
type Market = 'standard' | 'rwa' | 'all';

export interface ConfigQuery {
  chain_id: ChainId;
  market: Market;
  launch_product: 'non-tax' | 'tax';
  active_only: boolean;
  sections: Set<'chains' | 'suites' | 'quotes'>;
}

const FACTORY = LaunchFactoryAbi as Abi;
const VESTING_FACTORY = VestingLaunchFactoryAbi as Abi;
const ERC20_FEE_FACTORY = Erc20FeeLaunchFactoryAbi as Abi;
const TAX_FACTORY = TaxLaunchFactoryAbi as Abi;

/** Capabilities that follow from a suite's version; the live ones are filled in from reads. */
const STATIC_CAPABILITIES: Record<string, Record<string, boolean>> = {
  'launchpad-v4-minimal': {
    announcements: true,
    editable_metadata: true,
    creator_rights: true,
    generic_fee_components: true,
    quote_revisions: true,
    launch_creation_switch: true,
    vesting: false,
  },
  historical: {
    announcements: true,
    editable_metadata: true,
    creator_rights: false,
    generic_fee_components: false,
    quote_revisions: false,
    launch_creation_switch: false,
  },
};

const isCurrent = hasCurrentFactory;
const isTax = (s: SuiteManifest) => s.launch_product === 'tax';

function chainCapabilities(chainId: ChainId, manifest: ChainManifest | undefined) {
  // The devnet runs ERC-20 launches on every chain; its manifest says so.
  const current = manifest?.suites.find((s) => s.status === 'current');
  return current?.token_mode ?? CHAINS[chainId].launch_token_mode;
}

export function staticChain(chainId: ChainId, manifest: ChainManifest | undefined) {
  const mode = chainCapabilities(chainId, manifest);
  const chain = CHAINS[chainId];
  return {
    chain_id: chain.chain_id,
    name: chain.name,
    native_currency: chain.native_currency,
    capabilities: {
      launch_token_mode: mode,
      b20_asset_status: mode === 'b20' ? 'not_checked' : 'not_applicable',
    },
  };
}

/** The reads of one suite, in a fixed order that `suiteFromReads` consumes. */
function suiteReads(suite: SuiteManifest, quotes: QuoteManifest[]): ContractRead[] {
  const factory = suite.contracts.factory as Address;
  const abi = isCurrent(suite) ? FACTORY : VESTING_FACTORY;
  const reads: ContractRead[] = [
    { address: factory, abi, functionName: 'configVersion' },
    { address: factory, abi, functionName: 'launchSupply' },
    { address: factory, abi, functionName: 'launchCreationEnabled' },
    { address: factory, abi, functionName: 'hook' },
    { address: factory, abi, functionName: 'announcementRegistry' },
  ];
  if (isCurrent(suite)) {
    // The launch fee: native, or an ERC-20 (its token, then its amount).
    if (suite.launch_fee === 'erc20') {
      reads.push({ address: factory, abi: ERC20_FEE_FACTORY, functionName: 'launchFeeToken' });
      reads.push({ address: factory, abi: ERC20_FEE_FACTORY, functionName: 'launchFeeAmount' });
    } else reads.push({ address: factory, abi, functionName: 'nativeLaunchFee' });
    reads.push({ address: factory, abi, functionName: 'launchBuyAdapter' });
    if (isTax(suite)) reads.push({ address: factory, abi: TAX_FACTORY, functionName: 'taxPolicy' });
  }
  for (const q of quotes) {
    reads.push({ address: factory, abi, functionName: 'quoteConfig', args: [q.address] });
    reads.push({ address: factory, abi, functionName: 'quoteRevision', args: [q.address] });
    if (!isCurrent(suite))
      reads.push({ address: factory, abi, functionName: 'creationFee', args: [q.address] });
  }
  return reads;
}

const value = <T>(r: ReadResult | undefined): T | undefined => (r?.ok ? (r.value as T) : undefined);

function fee(
  amount: bigint,
  currency: Address,
  chainId: ChainId,
  quotes: QuoteManifest[],
  decimals?: number,
) {
  const native = CHAINS[chainId].native_currency;
  const quote = quotes.find((q) => q.address === currency);
  return {
    amount_raw: amount.toString(),
    currency,
    symbol: currency === zeroAddress ? native.symbol : (quote?.symbol ?? ''),
    decimals: currency === zeroAddress ? native.decimals : (decimals ?? quote?.decimals ?? 18),
  };
}

function assemble(
  chainId: ChainId,
  suite: SuiteManifest,
  quotes: QuoteManifest[],
  results: ReadResult[],
  market: Market,
) {
  const current = isCurrent(suite);
  let i = 0;
  const next = () => results[i++];
  const configVersion = value<bigint>(next());
  const launchSupply = value<bigint>(next());
  const creationEnabled = value<boolean>(next());
  const hook = value<Address>(next());
  const registry = value<Address>(next());
  const feeCurrency = current && suite.launch_fee === 'erc20' ? value<Address>(next()) : zeroAddress;
  const launchFee = current ? value<bigint>(next()) : undefined;
  const adapter = current ? value<Address>(next()) : undefined;
  const policy = current && isTax(suite) ? value<FactoryTaxPolicy>(next()) : undefined;
  const quoteRows = quotes.map((q) => {
    const config = value<[boolean, number, number]>(next());
    const revision = value<bigint>(next());
    const creationFee = current ? launchFee : value<bigint>(next());
    return { q, config, revision, creationFee };
  });
  // The live factory must be wired to the contracts the manifest names.
  const wired = hook === suite.contracts.hook && registry === suite.contracts.announcement_registry;
  const creationAvailable = suite.active_for_creation && creationEnabled === true && wired;
  const capabilities = {
    ...(current ? STATIC_CAPABILITIES['launchpad-v4-minimal'] : STATIC_CAPABILITIES.historical),
    vesting: suite.contracts.vesting_vault !== undefined,
    atomic_launch_buy: current && adapter !== undefined && adapter !== zeroAddress,
    launch_creation_fee: current ? (launchFee ?? 0n) > 0n : quoteRows.some((r) => (r.creationFee ?? 0n) > 0n),
  };
  const c = suite.contracts;
  const contracts = Object.fromEntries(
    (
      [
        'factory',
        'hook',
        'fee_escrow',
        'announcement_registry',
        'pool_manager',
        'state_view',
        'quoter',
        'vesting_vault',
        'universal_router',
        'swap_router',
        'swapx_router',
        'permit',
        'dividend_distributor',
      ] as const
    ).flatMap((k) => (c[k] ? [[k, c[k]]] : [])),
  );
  // The names production clients read (REFERENCE §7), beside the spec's.
  if (contracts.permit) contracts.permit2 = contracts.permit;
  // A suite's dedicated swap router is the SwapX router the clients' router guard knows by that name.
  if (contracts.swap_router && !contracts.swapx_router) contracts.swapx_router = contracts.swap_router;
  const route =
    market !== 'all' && suite.routes.includes(market)
      ? market
      : suite.routes.includes('standard')
        ? 'standard'
        : (suite.routes[0] as string);
  const suiteOut = {
    id: suite.id,
    version: suite.version,
    chain_id: chainId,
    route,
    supported_routes: suite.routes,
    active_for_creation: suite.active_for_creation,
    creation_available: creationAvailable,
    first_block: suite.first_block,
    token_mode: suite.token_mode,
    launch_product: suite.launch_product,
    ...(isTax(suite)
      ? {
          ...(suite.tax_format ? { tax_format: suite.tax_format } : {}),
          ...(suite.dividend_claims ? { dividend_claims: suite.dividend_claims } : {}),
          ...(suite.dividend_accounting ? { dividend_accounting: suite.dividend_accounting } : {}),
          ...(suite.zero_eligible_dividend_policy
            ? { zero_eligible_dividend_policy: suite.zero_eligible_dividend_policy }
            : {}),
          ...(policy && suite.tax_format === 'inclusive' ? { tax_policy: inclusiveTaxPolicy(policy) } : {}),
        }
      : {}),
    ...(configVersion !== undefined ? { config_version: configVersion.toString() } : {}),
    ...(launchSupply !== undefined ? { launch_supply_raw: launchSupply.toString() } : {}),
    ...(creationEnabled !== undefined ? { launch_creation_enabled: creationEnabled } : {}),
    ...(adapter !== undefined ? { launch_buy_adapter_address: adapter } : {}),
    ...(current && launchFee !== undefined && feeCurrency !== undefined
      ? { creation_fee: fee(launchFee, feeCurrency, chainId, quotes) }
      : {}),
    contracts,
    capabilities,
  };
  const quoteOut = quoteRows.map(({ q, config, revision, creationFee }) => {
    const registered = config?.[0] === true;
    const selectable = q.selectable ?? true;
    const usable = registered && selectable && creationAvailable && suite.routes.includes(q.route);
    return {
      usable,
      quote: {
        address: q.address,
        symbol: q.symbol,
        name: q.name,
        decimals: registered ? (config?.[1] as number) : q.decimals,
        asset_type: q.asset_type,
        issuer: q.issuer,
        route: q.route,
        suite_id: q.suite_id,
        registered,
        selectable,
        ...(revision !== undefined ? { quote_revision: revision.toString() } : {}),
        ...(creationFee !== undefined
          ? {
              creation_fee: current
                ? fee(creationFee, feeCurrency ?? zeroAddress, chainId, quotes)
                : fee(creationFee, q.address as Address, chainId, quotes, q.decimals),
            }
          : {}),
      },
    };
  });
  return { suite: suiteOut, quotes: quoteOut };
}

/** Suites and quotes for the query, read live at one pinned block. */
export async function liveConfiguration(
  chains: ChainClients,
  deployments: Deployments,
  query: ConfigQuery,
): Promise<{
  chain: ReturnType<typeof staticChain>;
  suites: unknown[];
  quotes: unknown[];
  as_of_block: string;
  warnings: string[];
}> {
  const manifest = deployments.get(query.chain_id);
  const chain = staticChain(query.chain_id, manifest);
  const matchesMarket = (route: string) => query.market === 'all' || route === query.market;
  const suites = (manifest?.suites ?? []).filter(
    (s) =>
      s.launch_product === query.launch_product &&
      s.routes.some(matchesMarket) &&
      (!query.active_only || (s.status === 'current' && s.active_for_creation)),
  );
  const quotesOf = (s: SuiteManifest) =>
    (manifest?.quotes ?? []).filter((q) => q.suite_id === s.id && matchesMarket(q.route));
  const b20 = chain.capabilities.launch_token_mode === 'b20';

  return withSnapshot(chains, query.chain_id, async (snapshot: Snapshot) => {
    const reads: ContractRead[] = suites.flatMap((s) => suiteReads(s, quotesOf(s)));
    if (b20) {
      reads.push(b20ActivationRead);
    }
    const results = reads.length > 0 ? await snapshot.read(reads) : (await snapshot.ensurePinned(), []);
    const warnings: string[] = [];
    let offset = 0;
    const outSuites: unknown[] = [];
    const outQuotes: unknown[] = [];
    for (const s of suites) {
      const quotes = quotesOf(s);
      const n = suiteReads(s, quotes).length;
      const part = results.slice(offset, offset + n);
      offset += n;
      // A current suite that cannot be read is not the deployment its manifest describes.
      if (isCurrent(s) && part.slice(0, 5).some((r) => !r.ok)) {
        throw new ApiError(
          'upstream_error',
          `Chain ${query.chain_id}: the factory of suite ${s.id} could not be read`,
          {
            chain_id: query.chain_id,
          },
        );
      }
      const assembled = assemble(query.chain_id, s, quotes, part, query.market);
      outSuites.push(assembled.suite);
      for (const q of assembled.quotes) if (!query.active_only || q.usable) outQuotes.push(q.quote);
    }
    if (b20) {
      const status = results[offset];
      if (status?.ok) chain.capabilities.b20_asset_status = status.value ? 'active' : 'inactive';
      else warnings.push('The B20 activation status could not be read; b20_asset_status is not_checked.');
    }
    return {
      chain,
      suites: outSuites,
      quotes: outQuotes,
      as_of_block: snapshot.blockNumber.toString(),
      warnings,
    };
  });
}
