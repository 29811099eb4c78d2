// The launchpad suite on the devnet, end to end through real Uniswap v4: launches, fees, anti-snipe,
// claims, creator rights, metadata, announcements, the atomic launch buy and vesting.
import {
  type Abi,
  type Address,
  type Hex,
  keccak256,
  stringToHex,
  toFunctionSelector,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as A from '../contracts/artifacts/index.ts';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { UNISWAP } from '../src/chain/uniswap.ts';
import { commentBytes32, poolId } from '../src/launchpad/pool.ts';
import { tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';
import { encodeRouteSteps, ERC20, ERC6909, TestChain } from './support/chain.ts';

const FACTORY = A.LaunchFactoryAbi as Abi;
const HOOK = A.LaunchHookAbi as Abi;
const ESCROW = A.FeeEscrowAbi as Abi;
const REGISTRY = A.AnnouncementRegistryAbi as Abi;
const STATE_VIEW = UNISWAP.StateView().abi;
const QUOTER = UNISWAP.V4Quoter().abi;
const ETH = zeroAddress;
const SUPPLY = 10n ** 27n;

let devnet: Devnet;
let base: TestChain;
let robinhood: TestChain;
// anvil accounts: 1 creator, 2 trader, 3 referrer, 4 bystander, 5 claim destination, 9 treasury
let creator: Address,
  trader: Address,
  referrer: Address,
  bystander: Address,
  destination: Address,
  treasury: Address;

beforeAll(async () => {
  devnet = await startDevnet({ dataDir: tempDir(), basePort: await freePortRange(4) });
  base = new TestChain(devnet.chains.find((c) => c.chain_id === 8453) as Devnet['chains'][number]);
  robinhood = new TestChain(devnet.chains.find((c) => c.chain_id === 4663) as Devnet['chains'][number]);
  [creator, trader, referrer, bystander, destination] = [1, 2, 3, 4, 5].map((i) => base.account(i)) as [
    Address,
    Address,
    Address,
    Address,
    Address,
  ];
  treasury = base.account(9);
}, 60_000);
afterAll(() => devnet?.stop());

const owed = (chain: TestChain, who: Address, currency: Address) =>
  chain.read<bigint>(chain.current.fee_escrow, ESCROW, 'owed', [who, currency]);

/** Launches on 8453 against ETH and waits out the anti-snipe window. */
async function launchedPastWindow(chain = base, quote: Address = ETH, editable = true) {
  const launch = await chain.launch(creator, { quote, editable });
  await chain.advance(21);
  return launch;
}

describe('launch', () => {
  it('creates the token at the predicted …01 address and seeds its pool with the whole supply', async () => {
    for (const [chain, quote] of [
      [base, ETH],
      [base, base.quote('USDC')],
      [robinhood, robinhood.quote('DSTK')],
    ] as const) {
      const { token, predicted, poolId: id, key } = await chain.launch(creator, { quote });
      expect(token).toBe(predicted);
      expect(token.toLowerCase().endsWith('01')).toBe(true);
      expect(id).toBe(poolId(key));
      expect(await chain.read(token, ERC20, 'totalSupply')).toBe(SUPPLY);
      const inPool = await chain.balance(token, chain.chain.uniswap.pool_manager);
      const dust = await chain.balance(token, chain.current.hook);
      // All of the supply is in the pool, but for the liquidity rounding left in the hook (about 1e-19).
      expect(inPool + dust).toBe(SUPPLY);
      expect(dust * 10n ** 15n).toBeLessThan(SUPPLY);
      expect(await chain.balance(token, chain.current.factory)).toBe(0n);
      // Priced at the quote's start tick, just outside the token-only band.
      const [, tick] = await chain.read<[bigint, number]>(
        chain.chain.uniswap.state_view,
        STATE_VIEW,
        'getSlot0',
        [id],
      );
      const frame = (
        await chain.read<[boolean, number, number]>(chain.current.factory, FACTORY, 'quoteConfig', [quote])
      )[2];
      const tokenIs0 = key.currency0 === token;
      const start = Math.trunc((tokenIs0 ? frame : -frame) / 200) * 200;
      expect(tick).toBe(tokenIs0 ? start - 200 : start);
      const rights = await chain.read<{
        originalCreator: Address;
        currentCreator: Address;
        creatorFeeRecipient: Address;
        poolId: Hex;
      }>(chain.current.factory, FACTORY, 'creatorRights', [token]);
      expect(rights).toMatchObject({
        originalCreator: creator,
        currentCreator: creator,
        creatorFeeRecipient: creator,
        poolId: id,
      });
    }
  });

  it('rejects a stale config version, an expired deadline, a reused salt and a wrong fee', async () => {
    // A salt mined for the creator whose address for the trader lacks the suffix (1 in 256 would have it).
    let { params } = await base.launchParams(creator);
    while ((await base.predictedToken(trader, params)).toLowerCase().endsWith('01')) {
      ({ params } = await base.launchParams(creator));
    }
    expect((await base.predictedToken(creator, params)).toLowerCase().endsWith('01')).toBe(true);
    const fee = 10n ** 15n;
    const f = base.current.factory;
    expect(
      await base.revertName(
        creator,
        f,
        FACTORY,
        'createLaunch',
        [{ ...params, expectedConfigVersion: 1n }],
        fee,
      ),
    ).toBe('StaleConfig');
    expect(
      await base.revertName(creator, f, FACTORY, 'createLaunch', [{ ...params, deadline: 1n }], fee),
    ).toBe('LaunchExpired');
    expect(await base.revertName(creator, f, FACTORY, 'createLaunch', [params], 0n)).toBe(
      'InvalidNativeLaunchFeePayment',
    );
    // The salt was mined for the creator: the trader gets another address, without the suffix.
    expect(await base.revertName(trader, f, FACTORY, 'createLaunch', [params], fee)).toBe(
      'InvalidTokenAddressSuffix',
    );
    await base.call(creator, f, FACTORY, 'createLaunch', [params], fee);
    expect(await base.revertName(creator, f, FACTORY, 'createLaunch', [params], fee)).toBe('LaunchSaltUsed');
  });
});

describe('swaps through the Universal Router', () => {
  it('a buy and a sell pay the hook fee in the quote currency into the escrow', async () => {
    const { token, key, poolId: id } = await launchedPastWindow();
    const before = {
      creator: await owed(base, creator, ETH),
      referrer: await owed(base, referrer, ETH),
      platform: await owed(base, treasury, ETH),
    };
    const buy = await base.swap(trader, key, ETH, 10n ** 18n, { referrer, comment: 'gm' });
    const [trade] = base.events(buy, HOOK, 'Trade');
    expect(trade).toMatchObject({
      poolId: id,
      referrer,
      feeCurrency: ETH,
      totalFeeAmount: 10n ** 16n,
      comment: commentBytes32('gm'),
    });
    // 1 ETH after the window: 0.01 ETH = creator 0.005, referrer 0.002, platform 0.003.
    expect((await owed(base, creator, ETH)) - before.creator).toBe(5n * 10n ** 15n);
    expect((await owed(base, referrer, ETH)) - before.referrer).toBe(2n * 10n ** 15n);
    expect((await owed(base, treasury, ETH)) - before.platform).toBe(3n * 10n ** 15n);
    const bought = await base.balance(token, trader);
    expect(bought).toBeGreaterThan(0n);

    await base.approveForRouter(trader, token);
    const sell = await base.swap(trader, key, token, bought / 2n, { referrer });
    const [swap] = base.events(sell, UNISWAP.PoolManager().abi, 'Swap') as { amount0: bigint }[];
    const [sellTrade] = base.events(sell, HOOK, 'Trade') as { totalFeeAmount: bigint }[];
    // A sell's fee comes off the realised quote output (ETH is currency0 against any token).
    const poolOut = swap?.amount0 as bigint;
    expect(poolOut).toBeGreaterThan(0n);
    expect(sellTrade?.totalFeeAmount).toBe((poolOut * 100n) / 10_000n);
    expect(await base.balance(token, trader)).toBe(bought - bought / 2n);
    // The escrow holds the fees as PoolManager ERC-6909 claims.
    const claims = await base.read<bigint>(base.chain.uniswap.pool_manager, ERC6909, 'balanceOf', [
      base.current.fee_escrow,
      0n,
    ]);
    expect(claims).toBeGreaterThanOrEqual(10n ** 16n + (sellTrade?.totalFeeAmount as bigint));
  });

  it('drops an invalid referrer (here the current creator): its share goes to the platform', async () => {
    const { key } = await launchedPastWindow();
    const platform = await owed(base, treasury, ETH);
    const buy = await base.swap(trader, key, ETH, 10n ** 18n, { referrer: creator });
    expect(base.events(buy, HOOK, 'Trade')[0]).toMatchObject({
      referrer: zeroAddress,
      totalFeeAmount: 10n ** 16n,
    });
    expect((await owed(base, treasury, ETH)) - platform).toBe(5n * 10n ** 15n);
  });

  it('the V4Quoter quote equals the executed output, for buys and sells against an ERC-20 quote', async () => {
    const usdc = base.quote('USDC');
    const { token, key } = await launchedPastWindow(base, usdc);
    await base.approveForRouter(trader, usdc);
    await base.approveForRouter(trader, token);
    for (const [input, output, amount] of [
      [usdc, token, 250n * 10n ** 6n],
      [token, usdc, 10n ** 24n],
    ] as const) {
      const hookData = base.swapCall(key, input, amount, { referrer }).data; // validity check only
      expect(hookData).toMatch(/^0x/);
      const { result } = await base.client.simulateContract({
        address: base.chain.uniswap.quoter,
        abi: QUOTER,
        functionName: 'quoteExactInputSingle',
        args: [{ poolKey: key, zeroForOne: input === key.currency0, exactAmount: amount, hookData: '0x' }],
      });
      const [quoted] = result as [bigint, bigint];
      const before = await base.balance(output, trader);
      await base.swap(trader, key, input, amount, { minOut: quoted });
      expect((await base.balance(output, trader)) - before).toBe(quoted);
    }
  });
});

describe('anti-snipe', () => {
  it('decays from its start to the base fee over the window', async () => {
    const { key, poolId: id, launchTime } = await base.launch(creator);
    // total = base + floor((start − base) × (window − elapsed) / window): 5000 bps at 10 s, 2550 at 15 s.
    for (const [elapsed, bps] of [
      [10n, 5000n],
      [15n, 2550n],
      [20n, 100n],
    ] as const) {
      const platform = await owed(base, treasury, ETH);
      const creatorOwed = await owed(base, creator, ETH);
      await base.setNextTimestamp(launchTime + elapsed);
      const buy = await base.swap(trader, key, ETH, 10n ** 18n, { referrer });
      const fee = (10n ** 18n * bps) / 10_000n;
      expect(base.events(buy, HOOK, 'Trade')[0]).toMatchObject({ poolId: id, totalFeeAmount: fee });
      // The surcharge goes to the platform; the creator keeps its base share.
      expect((await owed(base, creator, ETH)) - creatorOwed).toBe(5n * 10n ** 15n);
      expect((await owed(base, treasury, ETH)) - platform).toBe(fee - 7n * 10n ** 15n);
    }
    expect(await base.read(base.current.hook, HOOK, 'currentFeeBps', [id])).toBe(100n);
  });
});

describe('exact-output swaps', () => {
  const quoteExactOut = (key: Awaited<ReturnType<TestChain['launch']>>['key'], amountOut: bigint) =>
    base.client.simulateContract({
      address: base.chain.uniswap.quoter,
      abi: QUOTER,
      functionName: 'quoteExactOutputSingle',
      args: [{ poolKey: key, zeroForOne: true, exactAmount: amountOut, hookData: '0x' }],
    });

  it('are refused inside the anti-snipe window and charged ceil(m × bps / (10000 − bps)) after it', async () => {
    const { token, key } = await base.launch(creator);
    const selector = toFunctionSelector('ExactOutputDisabledDuringAntiSnipe()').slice(2);
    const refused = await quoteExactOut(key, 10n ** 24n).then(
      () => '',
      (err: { walk: (fn: (e: unknown) => boolean) => unknown }) =>
        JSON.stringify(err.walk((e) => typeof (e as { raw?: unknown }).raw === 'string')),
    );
    expect(refused).toContain(selector);

    await base.advance(21);
    const want = 10n ** 24n;
    const { result } = await quoteExactOut(key, want);
    const [amountIn] = result as [bigint, bigint];
    // Paying that input exact-in buys at least the wanted amount (the fee maths of both modes agree).
    const before = await base.balance(token, trader);
    await base.swap(trader, key, ETH, amountIn);
    const got = (await base.balance(token, trader)) - before;
    expect(got).toBeGreaterThanOrEqual(want);
    expect(got - want).toBeLessThan(want / 10_000n);
  });
});

describe('fee escrow', () => {
  it('claimFor pays the recipient and claimTo pays the caller’s balance to a destination', async () => {
    const { key } = await launchedPastWindow();
    await base.swap(trader, key, ETH, 10n ** 18n, { referrer });
    const creatorOwed = await owed(base, creator, ETH);
    const creatorBefore = await base.balance(ETH, creator);
    const claim = await base.call(bystander, base.current.fee_escrow, ESCROW, 'claimFor', [creator, ETH]);
    expect(base.events(claim, ESCROW, 'Claimed')[0]).toMatchObject({
      recipient: creator,
      currency: ETH,
      destination: creator,
      amount: creatorOwed,
    });
    expect((await base.balance(ETH, creator)) - creatorBefore).toBe(creatorOwed);
    expect(await owed(base, creator, ETH)).toBe(0n);
    expect(
      await base.revertName(bystander, base.current.fee_escrow, ESCROW, 'claimFor', [creator, ETH]),
    ).toBe('NothingToClaim');

    const referrerOwed = await owed(base, referrer, ETH);
    const destinationBefore = await base.balance(ETH, destination);
    await base.call(referrer, base.current.fee_escrow, ESCROW, 'claimTo', [ETH, destination]);
    expect((await base.balance(ETH, destination)) - destinationBefore).toBe(referrerOwed);
    expect(await owed(base, referrer, ETH)).toBe(0n);
  });
});

describe('creator rights, metadata and announcements', () => {
  it('only the current creator updates metadata and posts announcements, and rights move with a transfer', async () => {
    const { token } = await base.launch(creator, { editable: true });
    const f = base.current.factory;
    const r = base.current.announcement_registry;
    const id1 = keccak256(stringToHex('announcement-1'));
    expect(await base.revertName(trader, f, FACTORY, 'updateTokenName', [token, 'Hijack'])).toBe(
      'NotCurrentCreator',
    );
    expect(await base.revertName(trader, r, REGISTRY, 'postAnnouncement', [token, id1, 'hi', ''])).toBe(
      'NotCreator',
    );

    await base.call(creator, f, FACTORY, 'updateTokenName', [token, 'Renamed']);
    await base.call(creator, f, FACTORY, 'updateTokenSymbol', [token, 'RNM']);
    await base.call(creator, f, FACTORY, 'updateTokenContractURI', [token, 'ipfs://bafynew']);
    await base.call(creator, f, FACTORY, 'updateTokenExtraMetadata', [
      token,
      'website',
      'https://example.org',
    ]);
    expect(await base.read(token, ERC20, 'name')).toBe('Renamed');
    expect(await base.read(token, ERC20, 'symbol')).toBe('RNM');
    expect(await base.read(token, A.LaunchTokenAbi as Abi, 'contractURI')).toBe('ipfs://bafynew');
    expect(await base.read(token, A.LaunchTokenAbi as Abi, 'extraMetadata', ['website'])).toBe(
      'https://example.org',
    );

    const posted = await base.call(creator, r, REGISTRY, 'postAnnouncement', [
      token,
      id1,
      'We launched',
      'https://example.org/a',
    ]);
    expect(base.events(posted, REGISTRY, 'AnnouncementPosted')[0]).toMatchObject({
      token,
      creator,
      announcementId: id1,
      description: 'We launched',
    });
    expect(await base.revertName(creator, r, REGISTRY, 'postAnnouncement', [token, id1, 'again', ''])).toBe(
      'IdAlreadyUsed',
    );

    await base.call(creator, f, FACTORY, 'proposeCreatorRightsTransfer', [token, trader]);
    await base.call(trader, f, FACTORY, 'acceptCreatorRightsTransfer', [token]);
    expect(await base.read(f, FACTORY, 'currentCreatorOf', [token])).toBe(trader);
    const id2 = keccak256(stringToHex('announcement-2'));
    expect(await base.revertName(creator, f, FACTORY, 'updateTokenName', [token, 'Old creator'])).toBe(
      'NotCurrentCreator',
    );
    expect(await base.revertName(creator, r, REGISTRY, 'postAnnouncement', [token, id2, 'hi', ''])).toBe(
      'NotCreator',
    );
    await base.call(trader, f, FACTORY, 'updateTokenName', [token, 'New creator']);
    await base.call(trader, r, REGISTRY, 'postAnnouncement', [token, id2, 'Hello', '']);
    expect(await base.read(token, ERC20, 'name')).toBe('New creator');
  });

  it('metadata of a token launched without metadataEditable cannot change, the contract URI included', async () => {
    const { token } = await base.launch(creator, { editable: false });
    const f = base.current.factory;
    expect(await base.revertName(creator, f, FACTORY, 'updateTokenName', [token, 'X'])).toBe(
      'MetadataNotEditable',
    );
    expect(await base.revertName(creator, f, FACTORY, 'updateTokenContractURI', [token, 'ipfs://x'])).toBe(
      'MetadataNotEditable',
    );
  });

  it('the creator fee recipient receives the creator share after setCreatorFeeRecipient', async () => {
    const { token, key } = await launchedPastWindow();
    await base.call(creator, base.current.factory, FACTORY, 'setCreatorFeeRecipient', [token, destination]);
    const before = await owed(base, destination, ETH);
    await base.swap(trader, key, ETH, 10n ** 18n);
    expect((await owed(base, destination, ETH)) - before).toBe(5n * 10n ** 15n);
  });
});

describe('createLaunchAndBuy', () => {
  const routeData = (tokenIn: Address, token: Address, hook: Address): Hex => {
    const step = {
      kind: 2,
      tokenIn,
      tokenOut: token,
      pool: zeroAddress,
      fee: 0,
      tickSpacing: 200,
      hooks: hook,
      hookData: '0x' as Hex,
    };
    return encodeRouteSteps([step]);
  };

  it('delivers the bought tokens to the creator, at the base fee only, with a native or a quote-token first hop', async () => {
    for (const quote of [ETH, base.quote('USDC')]) {
      const { params, predicted } = await base.launchParams(creator, { quote });
      const amountIn = quote === ETH ? 10n ** 17n : 100n * 10n ** 6n;
      const buy = {
        fundingToken: quote,
        amountIn,
        minAmountOut: 1n,
        routeData: routeData(quote, predicted, base.current.hook),
      };
      const fee = 10n ** 15n;
      if (quote !== ETH) await base.call(creator, quote, ERC20, 'approve', [base.current.factory, amountIn]);
      const receipt = await base.call(
        creator,
        base.current.factory,
        FACTORY,
        'createLaunchAndBuy',
        [params, buy],
        fee + (quote === ETH ? amountIn : 0n),
      );
      const [executed] = base.events(receipt, FACTORY, 'LaunchBuyExecuted') as {
        amountOut: bigint;
        token: Address;
      }[];
      expect(executed?.token).toBe(predicted);
      expect(executed?.amountOut).toBeGreaterThan(0n);
      expect(await base.balance(predicted, creator)).toBe(executed?.amountOut);
      // Inside the anti-snipe window, yet charged the base fee (100 bps) only.
      expect(base.events(receipt, HOOK, 'Trade')[0]).toMatchObject({ totalFeeAmount: amountIn / 100n });
    }
  });

  it('rejects empty buy parameters and a payment that does not match', async () => {
    const { params, predicted } = await base.launchParams(creator);
    const f = base.current.factory;
    const buy = {
      fundingToken: ETH,
      amountIn: 10n ** 17n,
      minAmountOut: 1n,
      routeData: routeData(ETH, predicted, base.current.hook),
    };
    expect(
      await base.revertName(
        creator,
        f,
        FACTORY,
        'createLaunchAndBuy',
        [params, { ...buy, routeData: '0x' }],
        10n ** 15n + buy.amountIn,
      ),
    ).toBe('InvalidLaunchBuyParams');
    expect(await base.revertName(creator, f, FACTORY, 'createLaunchAndBuy', [params, buy], 10n ** 15n)).toBe(
      'InvalidLaunchBuyPayment',
    );
  });
});

describe('vesting (historical suite on 8453)', () => {
  it('a claim releases exactly the unlocked amount, to the beneficiary', async () => {
    const fixture = base.chain.vesting_launch as NonNullable<Devnet['chains'][number]['vesting_launch']>;
    const historical = base.chain.suites.find((s) => s.status === 'historical')?.contracts;
    const vault = historical?.vesting_vault as Address;
    const VAULT = A.VestingVaultAbi as Abi;
    const [first] = fixture.beneficiaries as [{ address: Address; amount_raw: string }];
    const schedule = await base.read<{
      total: bigint;
      claimed: bigint;
      points: { timestamp: bigint; cumulativeAmount: bigint }[];
    }>(vault, VAULT, 'getSchedule', [fixture.token, first.address]);
    expect(schedule.total).toBe(BigInt(first.amount_raw));
    const [p1, p2] = schedule.points as [
      { timestamp: bigint; cumulativeAmount: bigint },
      { timestamp: bigint; cumulativeAmount: bigint },
    ];
    expect(p1.cumulativeAmount).toBe(BigInt(first.amount_raw) / 4n);

    if ((await base.timestamp()) < p1.timestamp) {
      expect(await base.read(vault, VAULT, 'claimable', [fixture.token, first.address])).toBe(0n);
      expect(await base.revertName(bystander, vault, VAULT, 'claim', [fixture.token, first.address])).toBe(
        'NothingToClaim',
      );
    }
    await base.setNextTimestamp(p1.timestamp);
    await base.client.request({ method: 'evm_mine', params: [] } as never);
    const before = await base.balance(fixture.token, first.address);
    await base.call(bystander, vault, VAULT, 'claim', [fixture.token, first.address]);
    expect((await base.balance(fixture.token, first.address)) - before).toBe(p1.cumulativeAmount);
    expect(await base.read(vault, VAULT, 'claimable', [fixture.token, first.address])).toBe(0n);

    await base.setNextTimestamp(p2.timestamp);
    await base.call(bystander, vault, VAULT, 'claim', [fixture.token, first.address]);
    expect((await base.balance(fixture.token, first.address)) - before).toBe(BigInt(first.amount_raw));
  });
});
