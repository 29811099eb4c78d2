// Deploys the launchpad suites onto a devnet chain that already has Uniswap v4: the hook at a mined
// CREATE2 address with permission bits 0x2ACC, fee escrow, factory, announcement registry and
// launch-buy adapter (current suite), or a vesting factory with its vault (historical suite), and
// registers the quotes.
import {
  type Abi,
  type Address,
  concat,
  encodeDeployData,
  getAddress,
  type Hex,
  keccak256,
  zeroAddress,
} from 'viem';
import * as A from '../../contracts/artifacts/index.ts';
import { mineCreate2Salt, type MinedSalt } from '../chain/create2.ts';
import {
  B20_ACTIVATION_REGISTRY,
  B20_ASSET_FEATURE,
  B20_FACTORY,
  B20_POLICY_REGISTRY,
  MULTICALL3,
} from '../launchpad/b20.ts';
import { mineLaunchSalt } from '../launchpad/salt.ts';
import type { ChainWriter } from './writer.ts';

/** The deterministic CREATE2 deployer anvil predeploys. */
export const CREATE2_DEPLOYER = '0x4e59b44847b379578588920cA78FbF26c0B4956C' as const;
/** beforeInitialize, before{Add,Remove}Liquidity, before/afterSwap, before/afterSwapReturnDelta. */
export const HOOK_PERMISSION_BITS = 0x2acc;

const art = (abi: unknown, bytecode: Hex) => ({ abi: abi as Abi, bytecode });
export const ARTIFACTS = {
  LaunchHook: art(A.LaunchHookAbi, A.LaunchHookBytecode),
  FeeEscrow: art(A.FeeEscrowAbi, A.FeeEscrowBytecode),
  LaunchFactory: art(A.LaunchFactoryAbi, A.LaunchFactoryBytecode),
  VestingLaunchFactory: art(A.VestingLaunchFactoryAbi, A.VestingLaunchFactoryBytecode),
  AnnouncementRegistry: art(A.AnnouncementRegistryAbi, A.AnnouncementRegistryBytecode),
  LaunchBuyAdapter: art(A.LaunchBuyAdapterAbi, A.LaunchBuyAdapterBytecode),
  VestingVault: art(A.VestingVaultAbi, A.VestingVaultBytecode),
  B20LaunchFactory: art(A.B20LaunchFactoryAbi, A.B20LaunchFactoryBytecode),
  Erc20FeeLaunchFactory: art(A.Erc20FeeLaunchFactoryAbi, A.Erc20FeeLaunchFactoryBytecode),
  B20Factory: art(A.B20FactoryAbi, A.B20FactoryBytecode),
  B20ActivationRegistry: art(A.B20ActivationRegistryAbi, A.B20ActivationRegistryBytecode),
  B20PolicyRegistry: art(A.B20PolicyRegistryAbi, A.B20PolicyRegistryBytecode),
  Multicall3: art(A.Multicall3Abi, A.Multicall3Bytecode),
  UsdPriceFeed: art(A.UsdPriceFeedAbi, A.UsdPriceFeedBytecode),
  TaxHook: art(A.TaxHookAbi, A.TaxHookBytecode),
  TaxLaunchFactory: art(A.TaxLaunchFactoryAbi, A.TaxLaunchFactoryBytecode),
  DividendDistributor: art(A.DividendDistributorAbi, A.DividendDistributorBytecode),
};

/** Deploys `artifact` anywhere, then copies its runtime code (immutables included) to `at`. */
async function placeAt(
  w: ChainWriter,
  at: Address,
  artifact: { abi: Abi; bytecode: Hex },
  args: unknown[] = [],
) {
  const deployed = await w.deploy(artifact, args);
  const code = await w.client.getCode({ address: deployed });
  await w.client.request({ method: 'anvil_setCode', params: [at, code] } as never);
}

/** Multicall3 at its canonical address (anvil has none). */
export async function deployMulticall3(w: ChainWriter): Promise<void> {
  await placeAt(w, MULTICALL3, ARTIFACTS.Multicall3);
}

/**
 * The B20 emulation at Base's precompile addresses, with the asset feature switched on by `w.from`
 * (the activation registry's admin, so tests can switch it off and on again).
 */
export async function deployB20Emulation(w: ChainWriter): Promise<void> {
  await placeAt(w, B20_FACTORY, ARTIFACTS.B20Factory);
  await placeAt(w, B20_ACTIVATION_REGISTRY, ARTIFACTS.B20ActivationRegistry, [w.from]);
  await placeAt(w, B20_POLICY_REGISTRY, ARTIFACTS.B20PolicyRegistry);
  await w.write(B20_ACTIVATION_REGISTRY, ARTIFACTS.B20ActivationRegistry.abi, 'setActive', [
    B20_ASSET_FEATURE,
    true,
  ]);
}

export interface SuiteContracts {
  factory: Address;
  hook: Address;
  fee_escrow: Address;
  announcement_registry: Address;
  token_deployer: Address;
  launch_buy_adapter?: Address;
  vesting_vault?: Address;
  dividend_distributor?: Address;
}

export interface QuoteRegistration {
  quote: Address;
  startTickToken0Frame: number;
  /** Historical suites: the creation fee in this quote. */
  creationFee?: bigint;
}

// Every chain's devnet deploys the same hook init code (same PoolManager address and deployer), so
// the nth salt for an init-code hash is mined once per process.
const minedHookSalts = new Map<string, MinedSalt>();

function hookSalt(initCodeHash: Hex, nth: number): MinedSalt {
  const key = `${initCodeHash}:${nth}`;
  let mined = minedHookSalts.get(key);
  if (!mined) {
    const previous = nth === 0 ? undefined : hookSalt(initCodeHash, nth - 1);
    mined = mineCreate2Salt({
      deployer: CREATE2_DEPLOYER,
      initCodeHash,
      start: previous ? BigInt(previous.salt) + 1n : 0n,
      accept: (a) => (((a[18] as number) << 8) | (a[19] as number)) % 0x4000 === HOOK_PERMISSION_BITS,
    });
    minedHookSalts.set(key, mined);
  }
  return mined;
}

/** Deploys the nth hook of this chain (distinct salts, same init code) through the CREATE2 deployer. */
async function deployHook(
  w: ChainWriter,
  poolManager: Address,
  nth: number,
  artifact: typeof ARTIFACTS.LaunchHook = ARTIFACTS.LaunchHook,
): Promise<Address> {
  const initCode = encodeDeployData({ ...artifact, args: [poolManager, w.from] } as never);
  const mined = hookSalt(keccak256(initCode), nth);
  await w.send({ to: CREATE2_DEPLOYER, data: concat([mined.salt, initCode]) });
  return getAddress(mined.address);
}

async function deployCore(
  w: ChainWriter,
  poolManager: Address,
  nth: number,
  factoryArtifact: typeof ARTIFACTS.LaunchFactory,
  platformFeeRecipient: Address,
) {
  const hook = await deployHook(w, poolManager, nth);
  const feeEscrow = await w.deploy(ARTIFACTS.FeeEscrow, [poolManager, hook]);
  const factory = await w.deploy(factoryArtifact, [poolManager, hook, feeEscrow, w.from]);
  const registry = await w.deploy(ARTIFACTS.AnnouncementRegistry, [factory]);
  const abi = factoryArtifact.abi;
  await w.write(hook, ARTIFACTS.LaunchHook.abi, 'wire', [factory, feeEscrow]);
  await w.write(factory, abi, 'setAnnouncementRegistry', [registry]);
  const components = await Promise.all(
    [0n, 1n, 2n].map((i) => w.read<unknown>(factory, abi, 'feeComponents', [i])),
  );
  await w.write(factory, abi, 'setFeeConfiguration', [platformFeeRecipient, 100, 9900, 20, components]);
  const tokenDeployer = await w.read<Address>(factory, abi, 'tokenDeployer');
  return { hook, feeEscrow, factory, registry, tokenDeployer };
}

export async function deployCurrentSuite(
  w: ChainWriter,
  opts: {
    poolManager: Address;
    quotes: QuoteRegistration[];
    nativeLaunchFee: bigint;
    platformFeeRecipient: Address;
    /** `b20`: tokens are B20 assets (deployB20Emulation first). */
    tokenMode: 'erc20' | 'b20';
    /** A launch fee in this ERC-20 instead of the native fee. */
    erc20LaunchFee?: { token: Address; amount: bigint };
  },
): Promise<SuiteContracts> {
  const artifact =
    opts.tokenMode === 'b20'
      ? ARTIFACTS.B20LaunchFactory
      : opts.erc20LaunchFee
        ? ARTIFACTS.Erc20FeeLaunchFactory
        : ARTIFACTS.LaunchFactory;
  const core = await deployCore(w, opts.poolManager, 0, artifact, opts.platformFeeRecipient);
  const abi = ARTIFACTS.LaunchFactory.abi;
  const adapter = await w.deploy(ARTIFACTS.LaunchBuyAdapter, [
    core.factory,
    core.hook,
    opts.poolManager,
    zeroAddress,
  ]);
  await w.write(core.factory, abi, 'setLaunchBuyAdapter', [adapter]);
  if (opts.erc20LaunchFee) {
    const { token, amount } = opts.erc20LaunchFee;
    await w.write(core.factory, ARTIFACTS.Erc20FeeLaunchFactory.abi, 'setLaunchFee', [token, amount]);
  } else {
    await w.write(core.factory, abi, 'setNativeLaunchFee', [opts.nativeLaunchFee]);
  }
  await w.write(core.factory, abi, 'registerQuotes', [
    opts.quotes.map((q) => ({ quote: q.quote, startTickToken0Frame: q.startTickToken0Frame })),
  ]);
  await w.write(core.factory, abi, 'setLaunchCreationEnabled', [true]);
  return {
    factory: core.factory,
    hook: core.hook,
    fee_escrow: core.feeEscrow,
    announcement_registry: core.registry,
    token_deployer: core.tokenDeployer,
    launch_buy_adapter: adapter,
  };
}

/**
 * The reference inclusive tax suite (REFERENCE §5): TaxHook, fee escrow, dividend distributor and tax
 * factory (ERC-20 tokens that report balances), with the fixture policy and the protocol's share paid to
 * `platformFeeRecipient`.
 */
export async function deployTaxSuite(
  w: ChainWriter,
  opts: {
    poolManager: Address;
    quotes: QuoteRegistration[];
    nativeLaunchFee: bigint;
    platformFeeRecipient: Address;
  },
): Promise<SuiteContracts> {
  const hook = await deployHook(w, opts.poolManager, 0, ARTIFACTS.TaxHook);
  const feeEscrow = await w.deploy(ARTIFACTS.FeeEscrow, [opts.poolManager, hook]);
  const distributor = await w.deploy(ARTIFACTS.DividendDistributor, [opts.poolManager, w.from]);
  const abi = ARTIFACTS.TaxLaunchFactory.abi;
  const factory = await w.deploy(ARTIFACTS.TaxLaunchFactory, [
    opts.poolManager,
    hook,
    feeEscrow,
    w.from,
    distributor,
  ]);
  const registry = await w.deploy(ARTIFACTS.AnnouncementRegistry, [factory]);
  await w.write(hook, ARTIFACTS.TaxHook.abi, 'wireDividends', [distributor]);
  await w.write(hook, ARTIFACTS.TaxHook.abi, 'wire', [factory, feeEscrow]);
  await w.write(distributor, ARTIFACTS.DividendDistributor.abi, 'wire', [factory, hook]);
  await w.write(factory, abi, 'setAnnouncementRegistry', [registry]);
  const components = await Promise.all(
    [0n, 1n, 2n].map((i) => w.read<unknown>(factory, abi, 'feeComponents', [i])),
  );
  await w.write(factory, abi, 'setFeeConfiguration', [opts.platformFeeRecipient, 100, 9900, 20, components]);
  const policy = await w.read<Record<string, unknown>>(factory, abi, 'taxPolicy');
  await w.write(factory, abi, 'setTaxPolicy', [
    { ...policy, protocolFeeRecipient: opts.platformFeeRecipient },
  ]);
  await w.write(factory, abi, 'setNativeLaunchFee', [opts.nativeLaunchFee]);
  await w.write(factory, abi, 'registerQuotes', [
    opts.quotes.map((q) => ({ quote: q.quote, startTickToken0Frame: q.startTickToken0Frame })),
  ]);
  await w.write(factory, abi, 'setLaunchCreationEnabled', [true]);
  return {
    factory,
    hook,
    fee_escrow: feeEscrow,
    announcement_registry: registry,
    token_deployer: await w.read<Address>(factory, abi, 'tokenDeployer'),
    dividend_distributor: distributor,
  };
}

export interface VestingFixture {
  token: Address;
  creator: Address;
  beneficiaries: { address: Address; amount_raw: string }[];
}

const DAY = 86_400;

/**
 * A historical-style suite with a vesting vault. It launches one token with vested allocations (so
 * vesting claims have something to claim), then closes creation, as historical suites are.
 */
export async function deployHistoricalSuite(
  w: ChainWriter,
  opts: {
    poolManager: Address;
    quotes: QuoteRegistration[];
    platformFeeRecipient: Address;
    beneficiaries: Address[];
  },
): Promise<{ contracts: SuiteContracts; fixture: VestingFixture }> {
  const core = await deployCore(
    w,
    opts.poolManager,
    1,
    ARTIFACTS.VestingLaunchFactory,
    opts.platformFeeRecipient,
  );
  const abi = ARTIFACTS.VestingLaunchFactory.abi;
  const vault = await w.deploy(ARTIFACTS.VestingVault, [core.factory]);
  await w.write(core.factory, abi, 'setVestingVault', [vault]);
  await w.write(core.factory, abi, 'registerQuotes', [
    opts.quotes.map((q) => ({ quote: q.quote, startTickToken0Frame: q.startTickToken0Frame })),
  ]);
  for (const q of opts.quotes) {
    if (q.creationFee) await w.write(core.factory, abi, 'setCreationFee', [q.quote, q.creationFee]);
  }
  const [first, second] = opts.beneficiaries as [Address, Address];
  const million = 10n ** 6n * 10n ** 18n;
  const vested = [
    {
      beneficiary: first,
      amount: 10n * million,
      steps: [
        { delay: DAY, cumulativeBps: 2500 },
        { delay: 30 * DAY, cumulativeBps: 10_000 },
      ],
    },
    { beneficiary: second, amount: 5n * million, steps: [{ delay: 7 * DAY, cumulativeBps: 10_000 }] },
  ];
  const token = await launchVested(w, {
    factory: core.factory,
    tokenDeployer: core.tokenDeployer,
    name: 'Vested Devnet Token',
    symbol: 'VEST',
    vested,
  });
  return {
    contracts: {
      factory: core.factory,
      hook: core.hook,
      fee_escrow: core.feeEscrow,
      announcement_registry: core.registry,
      token_deployer: core.tokenDeployer,
      vesting_vault: vault,
    },
    fixture: {
      token,
      creator: w.from,
      beneficiaries: vested.map((v) => ({ address: v.beneficiary, amount_raw: v.amount.toString() })),
    },
  };
}

/** A vested allocation: unlock steps of (seconds after the launch, cumulative basis points). */
export interface VestedAllocation {
  beneficiary: Address;
  amount: bigint;
  steps: { delay: number; cumulativeBps: number }[];
}

/**
 * Launches a native-quoted token with vested allocations on a vesting factory, as its owner: creation
 * is opened for this launch and closed again, as historical suites keep it. Returns the token.
 */
export async function launchVested(
  w: ChainWriter,
  opts: {
    factory: Address;
    tokenDeployer: Address;
    name: string;
    symbol: string;
    vested: VestedAllocation[];
  },
): Promise<Address> {
  const abi = ARTIFACTS.VestingLaunchFactory.abi;
  await w.write(opts.factory, abi, 'setLaunchCreationEnabled', [true]);
  const params = {
    tokenName: opts.name,
    tokenSymbol: opts.symbol,
    tokenContractURI: '',
    creatorSalt: `0x${'00'.repeat(32)}` as Hex,
    quoteToken: zeroAddress,
    expectedConfigVersion: await w.read<bigint>(opts.factory, abi, 'configVersion'),
    deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
    allocations: [],
    vestedAllocations: opts.vested,
    roleMode: 0,
  };
  const salt = mineLaunchSalt({
    tokenDeployer: opts.tokenDeployer,
    creator: w.from,
    initCodeHash: await w.read<Hex>(opts.factory, abi, 'launchTokenBytecodeHash', [params]),
  });
  params.creatorSalt = salt.creatorSalt;
  const fee = await w.read<bigint>(opts.factory, abi, 'creationFee', [zeroAddress]);
  await w.write(opts.factory, abi, 'createLaunch', [params], fee);
  await w.write(opts.factory, abi, 'setLaunchCreationEnabled', [false]);
  return salt.predictedToken;
}
