// prepareLaunch: validates the launch, pins the image and the metadata document, reads the suite at one
// pinned block, mines a creator salt for a token address ending in 01, and returns the createLaunch plan
// simulated at that block.
import { b20ActivationRead, mineB20Salt } from '../launchpad/b20.ts';
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  zeroAddress,
  zeroHash,
} from 'viem';
import {
  Erc20FeeLaunchFactoryAbi,
  LaunchFactoryAbi,
  TaxLaunchFactoryAbi,
} from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { ERC20_ABI } from '../chain/erc20.ts';
import { type Snapshot, withSnapshot } from '../chain/snapshot.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { CHAINS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { checkLaunchBody, decodeImage, type LaunchPrepareBody } from '../launchpad/launchRequest.ts';
import type { SaltMiner } from '../launchpad/saltMiner.ts';
import { type FactoryTaxPolicy, rulesOf, splitSide, taxTerms, taxViolations } from '../launchpad/tax.ts';
import type { PinStore } from '../pinning/pinStore.ts';
import { PlanBuilder } from '../plans/plan.ts';
import type { Settings } from '../settings.ts';

const FACTORY = LaunchFactoryAbi as Abi;
const ERC20_FEE_FACTORY = Erc20FeeLaunchFactoryAbi as Abi;
const TAX_FACTORY = TaxLaunchFactoryAbi as Abi;

export interface LaunchDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  pins: PinStore;
  saltMiner: SaltMiner;
}

export interface PrepareLaunchInput {
  /** The request body of POST /v1/launches/prepare. */
  body: LaunchPrepareBody;
  /** Public origin of the gateway, for the image URL (e.g. https://gw.example). */
  origin: string;
  /** Records where the time goes (pin, rpc, mine, simulate), e.g. for a Server-Timing header. */
  timing?: { add(name: string, startedAt: number): void };
}

export type PrepareLaunchResult = Awaited<ReturnType<typeof prepareLaunch>>;

const unsupported = (detail: string, chainId: ChainId) =>
  new ApiError('unsupported_operation', detail, { chain_id: chainId });

/** The suite and quote a launch goes to: the current, active suite of the product with this quote on this market. */
function resolveSuite(deps: LaunchDeps, body: LaunchPrepareBody) {
  const chainId = body.chain_id as ChainId;
  const product = body.launch_product ?? 'non-tax';
  const manifest = deps.deployments.get(chainId);
  const suites = (manifest?.suites ?? []).filter(
    (s) => s.status === 'current' && s.active_for_creation && s.launch_product === product,
  );
  if (suites.length === 0)
    throw unsupported(`Chain ${chainId} has no active ${product} launch suite`, chainId);
  const quoteAddress = getAddress(body.quote_address);
  for (const suite of suites) {
    if (!suite.routes.includes(body.market)) continue;
    const quote = manifest?.quotes.find(
      (q) =>
        q.suite_id === suite.id &&
        q.address === quoteAddress &&
        q.route === body.market &&
        q.selectable !== false,
    );
    if (quote) return { suite, quote };
  }
  throw unsupported(
    `${quoteAddress} is not an active ${body.market} quote on chain ${chainId}; see GET /v1/config`,
    chainId,
  );
}

/** ERC-7572 contract metadata of the token. */
function metadataDocument(body: LaunchPrepareBody, imageCid: string) {
  const t = body.token;
  return {
    name: t.name,
    symbol: t.symbol,
    description: t.description ?? '',
    image: `ipfs://${imageCid}`,
    external_link: t.website ?? '',
    website: t.website ?? '',
    x: t.x ?? '',
    telegram: t.telegram ?? '',
    extra_metadata: t.extra_metadata ?? [],
  };
}

/** The ERC-20 launch fee's token and the creator's balance and allowance of it, at the pinned block. */
async function erc20LaunchFee(snapshot: Snapshot, factory: Address, creator: Address) {
  const [tokenRead] = await snapshot.read([
    { address: factory, abi: ERC20_FEE_FACTORY, functionName: 'launchFeeToken', args: [] },
  ]);
  if (!tokenRead?.ok) throw new ApiError('upstream_error', 'The launch fee token could not be read');
  const token = tokenRead.value as Address;
  const reads = await snapshot.read([
    { address: token, abi: ERC20_ABI as Abi, functionName: 'balanceOf', args: [creator] },
    { address: token, abi: ERC20_ABI as Abi, functionName: 'allowance', args: [creator, factory] },
    { address: token, abi: ERC20_ABI as Abi, functionName: 'decimals', args: [] },
    { address: token, abi: ERC20_ABI as Abi, functionName: 'symbol', args: [] },
  ]);
  if (reads.some((r) => !r.ok))
    throw new ApiError('upstream_error', `The launch fee token ${token} could not be read`);
  const [balance, allowance, decimals, symbol] = reads.map((r) => (r as { value: unknown }).value) as [
    bigint,
    bigint,
    number,
    string,
  ];
  return { token, balance, allowance, decimals, symbol };
}

/** Prepares a launch: the createLaunch plan, simulated at one pinned block, with the predicted token address. */
export async function prepareLaunch(deps: LaunchDeps, input: PrepareLaunchInput) {
  const { body, timing } = input;
  checkLaunchBody(body);
  const image = decodeImage(body.token);
  const chainId = body.chain_id as ChainId;
  const { suite, quote } = resolveSuite(deps, body);
  const tax = suite.launch_product === 'tax' ? body.tax : undefined;
  if (tax && suite.tax_format !== 'inclusive') {
    throw unsupported(`Suite ${suite.id} is not an inclusive tax suite; its tax inputs differ`, chainId);
  }
  const creator = getAddress(body.creator);
  const factory = suite.contracts.factory as Address;

  // Pin first (slow I/O), then pin the block, so the plan is as fresh as it can be.
  const pinStarted = performance.now();
  const imageCid = await deps.pins.pin(image, body.token.image_type);
  const document = Buffer.from(JSON.stringify(metadataDocument(body, imageCid)));
  const metadataCid = await deps.pins.pin(document, 'application/json');
  timing?.add('pin', pinStarted);
  const metadataUri = `ipfs://${metadataCid}`;
  const keys = (body.token.extra_metadata ?? []).map((m) => m.key);
  const values = (body.token.extra_metadata ?? []).map((m) => m.value);

  const nowMs = deps.clock.now();
  const rpcStarted = performance.now();
  return withSnapshot(deps.chains, chainId, async (snapshot) => {
    const plan = new PlanBuilder(snapshot, creator, {
      nowMs,
      lifetimeMs: deps.settings.planLifetimeMs.default,
    });
    const params = {
      tokenName: body.token.name,
      tokenSymbol: body.token.symbol,
      tokenContractURI: metadataUri,
      creatorSalt: zeroHash as Hex,
      quoteToken: quote.address as Address,
      expectedConfigVersion: 0n,
      deadline: plan.expiresAtSeconds,
      metadataEditable: body.token.editable_metadata ?? false,
      metadataKeys: keys,
      metadataValues: values,
    };
    const read = (functionName: string, args: unknown[] = []) => ({
      address: factory,
      abi: FACTORY,
      functionName,
      args,
    });
    const b20 = suite.token_mode === 'b20';
    const erc20Fee = suite.launch_fee === 'erc20';
    const { results, balances } = await snapshot.readWithBalances(
      [
        read('configVersion'),
        read('launchCreationEnabled'),
        erc20Fee ? { ...read('launchFeeAmount'), abi: ERC20_FEE_FACTORY } : read('nativeLaunchFee'),
        read('launchSupply'),
        read('quoteConfig', [quote.address]),
        read('hook'),
        // ERC-20 mode predicts with CREATE2 from the token deployer; B20 mode asks the B20 factory.
        ...(b20 ? [b20ActivationRead] : [read('tokenDeployer'), read('launchTokenBytecodeHash', [params])]),
        ...(tax ? [{ ...read('taxPolicy'), abi: TAX_FACTORY }] : []),
      ],
      [creator],
    );
    if (results.some((r) => !r.ok)) {
      throw new ApiError(
        'upstream_error',
        `Chain ${chainId}: the factory of suite ${suite.id} could not be read`,
        {
          chain_id: chainId,
        },
      );
    }
    const [configVersion, enabled, fee, supply, quoteConfig, hook, ...mode] = results.map(
      (r) => (r as { value: unknown }).value,
    ) as [bigint, boolean, bigint, bigint, [boolean, number, number], Address, ...unknown[]];
    // The tax policy, when read, is the last value; the token-mode reads come before it.
    const taxPolicy = tax ? (mode.pop() as FactoryTaxPolicy) : undefined;
    if (!enabled) throw unsupported(`Launch creation is switched off on suite ${suite.id}`, chainId);
    if (b20 && mode[0] !== true) {
      throw unsupported(
        `B20 asset creation is not active on chain ${chainId} (feature base.b20_asset is off); launches are refused until it is on`,
        chainId,
      );
    }
    if (!quoteConfig[0]) throw unsupported(`${quote.symbol} is not registered on suite ${suite.id}`, chainId);
    if (hook !== suite.contracts.hook)
      throw unsupported(`Suite ${suite.id} is not wired as its manifest says`, chainId);
    // Tax terms are checked against the suite's live policy (REFERENCE §5), as the hook will check them.
    const policy = taxPolicy ? rulesOf(taxPolicy) : undefined;
    if (tax && policy) {
      const violations = taxViolations(tax, policy, supply);
      if (violations.length > 0) {
        throw new ApiError('invalid_parameter', violations.map((v) => v.detail).join('; '), {
          invalid_parameters: violations.map((v) => ({ name: v.name, reason: 'range', detail: v.detail })),
        });
      }
    }

    timing?.add('rpc', rpcStarted);
    const mineStarted = performance.now();
    const salt = b20
      ? await mineB20Salt(snapshot, { factory, creator })
      : await deps.saltMiner.mine({
          tokenDeployer: mode[0] as Address,
          creator,
          initCodeHash: mode[1] as Hex,
        });
    timing?.add('mine', mineStarted);
    params.creatorSalt = salt.creatorSalt;
    params.expectedConfigVersion = configVersion;

    const native = CHAINS[chainId].native_currency;
    // The fee currency and what the creator holds of it (and has approved, for an ERC-20 fee).
    const feeAsset = erc20Fee ? await erc20LaunchFee(snapshot, factory, creator) : undefined;
    const balance = feeAsset ? feeAsset.balance : (balances[0] as bigint);
    const feeCurrency = feeAsset?.token ?? zeroAddress;
    // The spec's launch prepare "validates ... any current creation-fee requirement" and lists
    // insufficient_balance among its errors: a creator who cannot pay the fee gets that problem.
    if (balance < fee) {
      throw new ApiError(
        'insufficient_balance',
        `The creator holds ${balance} of ${fee} needed for the launch fee`,
        {
          chain_id: chainId,
          asset: feeCurrency,
          actual_raw: balance.toString(),
          required_raw: fee.toString(),
        },
      );
    }
    // An ERC-20 fee is pulled by the factory: approve it first when the allowance is short; both steps
    // are simulated as one sequence.
    const approve = feeAsset !== undefined && feeAsset.allowance < fee && fee > 0n;
    if (approve) {
      plan.transaction({
        id: 'approve-creation-fee',
        label: 'Approve the creation fee',
        depends_on: [],
        to: feeCurrency,
        data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'approve', args: [factory, fee] }),
        value: 0n,
      });
    }
    plan.transaction({
      id: 'create-launch',
      label: 'Create launch',
      depends_on: approve ? ['approve-creation-fee'] : [],
      to: factory,
      data: tax
        ? encodeFunctionData({
            abi: TAX_FACTORY,
            functionName: 'createTaxLaunch',
            args: [params, taxTerms(tax)],
          })
        : encodeFunctionData({ abi: FACTORY, functionName: 'createLaunch', args: [params] }),
      value: feeAsset ? 0n : fee,
    });
    const simulateStarted = performance.now();
    const built = await plan.build();
    timing?.add('simulate', simulateStarted);
    return {
      ...built,
      predicted_token_address: salt.predictedToken,
      suite_id: suite.id,
      metadata_uri: metadataUri,
      image_url: `${input.origin}/ipfs/${imageCid}`,
      creation_fee: feeAsset
        ? {
            amount_raw: fee.toString(),
            currency_address: feeAsset.token,
            decimals: feeAsset.decimals,
            symbol: feeAsset.symbol,
          }
        : {
            amount_raw: fee.toString(),
            currency_address: zeroAddress,
            decimals: native.decimals,
            symbol: native.symbol,
          },
      review: {
        market: body.market,
        token: {
          name: body.token.name,
          symbol: body.token.symbol,
          editable_metadata: body.token.editable_metadata ?? false,
          extra_metadata: body.token.extra_metadata ?? [],
        },
        quote_address: quote.address,
        ...(tax && policy
          ? {
              tax: {
                ...tax,
                // The protocol's part of each side's tax, in percentage units (carved out of the tax).
                buy_protocol_fee_rate: splitSide(BigInt(tax.buy_tax_rate), policy).protocolRate.toString(),
                sell_protocol_fee_rate: splitSide(BigInt(tax.sell_tax_rate), policy).protocolRate.toString(),
              },
            }
          : {}),
        total_supply_raw: supply.toString(),
        // One band holds the whole supply in current suites.
        pool_supply_raw: supply.toString(),
      },
    };
  });
}
