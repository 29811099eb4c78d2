// The suite's interface matches the production one REFERENCE §4 lists (signatures, tuple layouts,
// indexed event fields, error names), so the gateway's calls and log decoding work on both.
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  parseAbi,
  toEventSelector,
  toFunctionSelector,
} from 'viem';
import { describe, expect, it } from 'vitest';
import * as A from '../contracts/artifacts/index.ts';

const LAUNCH_PARAMS = '(string,string,string,bytes32,address,uint64,uint64,bool,string[],string[])';
const POOL_KEY = '(address,address,uint24,int24,address)';

const PRODUCTION: Record<string, { abi: Abi; functions: string[]; events: string[]; errors: string[] }> = {
  LaunchFactory: {
    abi: A.LaunchFactoryAbi as Abi,
    functions: [
      `function createLaunch(${LAUNCH_PARAMS}) payable returns (address, bytes32)`,
      `function createLaunchAndBuy(${LAUNCH_PARAMS}, (address,uint256,uint256,bytes)) payable returns (address, bytes32, uint256)`,
      `function launchTokenBytecodeHash(${LAUNCH_PARAMS}) view returns (bytes32)`,
      'function configVersion() view returns (uint64)',
      'function launchSupply() view returns (uint256)',
      'function tickSpacing() view returns (int24)',
      'function nativeLaunchFee() view returns (uint256)',
      'function launchCreationEnabled() view returns (bool)',
      'function TOKEN_ADDRESS_SUFFIX() view returns (uint8)',
      'function tokenDeployer() view returns (address)',
      'function hook() view returns (address)',
      'function platformFeeRecipient() view returns (address)',
      'function baseFeeBps() view returns (uint16)',
      'function antiSnipeStartTotalBps() view returns (uint16)',
      'function antiSnipeWindowSeconds() view returns (uint32)',
      'function feeComponentCount() view returns (uint256)',
      'function feeComponents(uint256) view returns ((bytes32,uint8,address,uint16))',
      'function quoteConfig(address) view returns (bool, uint8, int24)',
      'function quoteRevision(address) view returns (uint64)',
      'function launchBuyAdapter() view returns (address)',
      'function isLaunchSaltUsed(bytes32) view returns (bool)',
      'function announcementRegistry() view returns (address)',
      'function creatorRights(address) view returns ((address,address,address,address,bytes32,bool))',
      'function currentCreatorOf(address) view returns (address)',
      'function proposeCreatorRightsTransfer(address, address)',
      'function acceptCreatorRightsTransfer(address)',
      'function cancelCreatorRightsTransfer(address)',
      'function setCreatorFeeRecipient(address, address)',
      'function safeTransferCreatorRights(address, address, bytes)',
      'function adminReassignCreatorRights(address, address, address)',
      'function updateTokenName(address, string)',
      'function updateTokenSymbol(address, string)',
      'function updateTokenContractURI(address, string)',
      'function updateTokenExtraMetadata(address, string, string)',
    ],
    events: [
      'event Launched(address indexed token, bytes32 indexed poolId, address indexed originalCreator, address quoteToken, uint256 launchSupply, int24 tickSpacing)',
      'event NativeLaunchFeePaid(address indexed payer, address indexed recipient, uint256 amount)',
      'event LaunchBuyExecuted(address indexed token, bytes32 indexed poolId, address indexed originalCreator, address fundingToken, uint256 amountIn, uint256 amountOut, address adapter)',
      'event QuoteRegistered(address indexed quote, uint8 decimals, int24 startTickToken0Frame, uint64 revision)',
    ],
    errors: [
      'StaleConfig',
      'LaunchExpired',
      'EmptyTokenNameOrSymbol',
      'QuoteNotRegistered',
      'InvalidConfig',
      'LaunchCreationDisabled',
      'InvalidTokenAddressSuffix',
      'LaunchSaltUsed',
      'TokenMismatch',
      'UnknownLaunchToken',
      'NotCurrentCreator',
      'MetadataNotEditable',
      'InvalidNativeLaunchFeePayment',
      'LaunchBuyAdapterNotConfigured',
      'InvalidLaunchBuyParams',
      'InvalidLaunchBuyPayment',
    ],
  },
  LaunchHook: {
    abi: A.LaunchHookAbi as Abi,
    functions: [
      'function poolConfig(bytes32) view returns (bool, bool, address, address, uint16, uint16, uint32, uint48)',
      'function poolFeeComponents(bytes32) view returns ((bytes32,uint8,address,uint16)[])',
      'function MAX_BASE_FEE_BPS() view returns (uint16)',
      'function MAX_TOTAL_FEE_BPS() view returns (uint16)',
    ],
    events: [
      'event Trade(bytes32 indexed poolId, address indexed executor, address indexed referrer, address feeCurrency, uint256 totalFeeAmount, bytes32 comment)',
      'event FeeComponentCredited(bytes32 indexed poolId, bytes32 indexed componentId, address indexed recipient, address currency, uint256 amount)',
      'event PoolRegistered(bytes32 indexed poolId, address originalCreator, address creatorFeeRecipient, uint16 baseFeeBps)',
      'event Seeded(bytes32 indexed poolId, uint256 tokenAmountSeeded)',
      'event Wired(address factory, address escrow)',
    ],
    errors: [
      'NotFactory',
      'NotWired',
      'UnexpectedFeeCurrency',
      'InvalidFeeConfig',
      'AlreadyRegistered',
      'LiquidityLocked',
      'NotSingleSided',
      'ExactOutputDisabledDuringAntiSnipe',
      'PartialFillUnsupported',
      'InvalidLaunchBuyRequest',
    ],
  },
  FeeEscrow: {
    abi: A.FeeEscrowAbi as Abi,
    functions: [
      'function owed(address, address) view returns (uint256)',
      'function claimFor(address recipient, address currency) returns (uint256)',
      'function claimTo(address currency, address destination) returns (uint256)',
    ],
    events: [
      'event Credited(address indexed recipient, address indexed currency, uint256 amount)',
      'event Claimed(address indexed recipient, address indexed currency, address indexed destination, uint256 amount)',
    ],
    errors: ['NothingToClaim', 'NotHook', 'NotPoolManager', 'ZeroAddress', 'ZeroDestination'],
  },
  AnnouncementRegistry: {
    abi: A.AnnouncementRegistryAbi as Abi,
    functions: [
      'function factory() view returns (address)',
      'function isTokenRegistered(address) view returns (bool)',
      'function isAnnouncementIdUsed(address, bytes32) view returns (bool)',
      'function postAnnouncement(address token, bytes32 announcementId, string description, string announcementURI)',
    ],
    events: [
      'event TokenRegistered(address indexed token)',
      'event AnnouncementPosted(address indexed token, address indexed creator, bytes32 indexed announcementId, string description, string announcementURI)',
    ],
    errors: ['NotCreator', 'IdAlreadyUsed'],
  },
  VestingVault: {
    abi: A.VestingVaultAbi as Abi,
    functions: [
      'function claim(address token, address beneficiary) returns (uint256)',
      'function claimable(address, address) view returns (uint256)',
      'function getSchedule(address, address) view returns ((uint128,uint128,(uint64,uint128)[]))',
      'function register(address, address, uint128, (uint64,uint128)[])',
    ],
    events: [
      'event Registered(address indexed token, address indexed beneficiary, uint256 total, (uint64,uint128)[] points)',
      'event Claimed(address indexed token, address indexed beneficiary, uint256 amount)',
    ],
    errors: ['NothingToClaim'],
  },
  LaunchBuyAdapter: {
    abi: A.LaunchBuyAdapterAbi as Abi,
    functions: [
      'function factory() view returns (address)',
      'function launchHook() view returns (address)',
      'function poolManager() view returns (address)',
      'function router() view returns (address)',
      'function swapCaller() view returns (address)',
      `function executeLaunchBuy((address,address,address,${POOL_KEY},address,uint256,uint256,uint64,bytes)) payable returns (uint256)`,
    ],
    events: [],
    errors: [],
  },
};

const types = (params: readonly { type: string; components?: readonly unknown[] }[]): string =>
  JSON.stringify(
    params.map(function flat(p: { type: string; components?: readonly unknown[] }): unknown {
      return p.components ? [p.type, (p.components as typeof params).map(flat)] : p.type;
    }),
  );

describe('contract interfaces match the production suite', () => {
  for (const [contract, spec] of Object.entries(PRODUCTION)) {
    it(contract, () => {
      const ours = spec.abi;
      for (const item of parseAbi(spec.functions as string[]) as unknown as AbiFunction[]) {
        const found = ours.find(
          (x) => x.type === 'function' && toFunctionSelector(x as AbiFunction) === toFunctionSelector(item),
        ) as AbiFunction | undefined;
        expect(found, `${contract}.${item.name}`).toBeDefined();
        expect(types(found?.outputs ?? []), `${contract}.${item.name} outputs`).toBe(types(item.outputs));
        if (item.stateMutability === 'payable') expect(found?.stateMutability).toBe('payable');
      }
      for (const item of parseAbi(spec.events as string[]) as unknown as AbiEvent[]) {
        const found = ours.find(
          (x) => x.type === 'event' && toEventSelector(x as AbiEvent) === toEventSelector(item),
        ) as AbiEvent | undefined;
        expect(found, `${contract} event ${item.name}`).toBeDefined();
        expect(found?.inputs.map((i) => Boolean(i.indexed))).toEqual(
          item.inputs.map((i) => Boolean(i.indexed)),
        );
      }
      const errors = new Set(ours.filter((x) => x.type === 'error').map((x) => (x as { name: string }).name));
      for (const name of spec.errors) expect(errors.has(name), `${contract} error ${name}`).toBe(true);
    });
  }
});
