// Tax launches end to end on the devnet's reference tax suite (REFERENCE §5): launch prepare validates the
// terms against the live policy and the plan creates a tax token; buys and sells through the gateway
// receive exactly the quoted output and the tax lands where the split says (protocol, creator and
// integrator credits, a burn, dividends); a holder claims dividends through the gateway; the indexed
// trades carry the components.
import {
  type Abi,
  type Address,
  createWalletClient,
  decodeFunctionData,
  type Hex,
  http,
  zeroAddress,
  zeroHash,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DividendDistributorAbi,
  FeeEscrowAbi,
  TaxHookAbi,
  TaxLaunchFactoryAbi,
} from '../contracts/artifacts/index.ts';
import type { Devnet } from '../src/devnet/devnet.ts';
import { mineLaunchSalt } from '../src/launchpad/salt.ts';
import { rulesOf, splitTax, type FactoryTaxPolicy, type TaxTerms } from '../src/launchpad/tax.ts';
import { ERC6909, TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  postFresh,
  startDevnetGateway,
  startTestIndexer,
  waitIndexed,
} from './support/devnetGateway.ts';
import { call, expectProblem } from './support/gateway.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const DEAD = '0x000000000000000000000000000000000000dEaD';
const TOKENS = 10n ** 18n;

let env: DevnetGateway;
let base: TestChain;
let suite: Devnet['chains'][number]['suites'][number]['contracts'];

beforeAll(async () => {
  env = await startDevnetGateway();
  base = new TestChain(env.devnet.chains[0] as Devnet['chains'][number]);
  suite = base.chain.suites.find((s) => s.launch_product === 'tax')?.contracts as typeof suite;
}, 60_000);
afterAll(() => env?.close());

const post = (path: string, body: unknown) => postFresh(env, path, body);

type Step = {
  id: string;
  kind: string;
  transaction?: { to: Address; data: Hex; value: string };
  typed_data?: { domain: object; types: object; primaryType: string; message: object };
};

// 3% each way: protocol 0.5% (the floor), the 2.5% rest split 40/10/40/10 creator/burn/dividend/integrator.
const creator = () => base.account(1);
const creatorFees = () => base.account(6);
const integrator = () => base.account(7);
const treasury = () => base.account(9);
const TAX = () => ({
  format: 'inclusive',
  buy_tax_rate: '3000000',
  sell_tax_rate: '3000000',
  creator_allocation_share: '40000000',
  burn_allocation_share: '10000000',
  dividend_allocation_share: '40000000',
  integrator_allocation_share: '10000000',
  minimum_dividend_holding_raw: (10_000n * TOKENS).toString(),
  creator_fee_recipient: creatorFees(),
  integrator_fee_recipient: integrator(),
  anti_snipe_enabled: false,
});

const launchBody = (tax: Record<string, unknown>, product = 'tax') => ({
  chain_id: 8453,
  creator: creator(),
  market: 'standard',
  quote_address: zeroAddress,
  launch_product: product,
  tax,
  token: { name: 'Taxed Token', symbol: 'TAXD', image_base64: PNG, image_type: 'image/png' },
});

async function send(from: Address, steps: Step[]) {
  let signature: Hex | undefined;
  for (const s of steps) {
    if (s.transaction)
      await base.send(from, s.transaction.to, s.transaction.data, BigInt(s.transaction.value));
    else if (s.typed_data) {
      const client = createWalletClient({ transport: http(base.chain.rpc_url) });
      signature = await client.signTypedData({ account: from, ...s.typed_data } as never);
    }
  }
  return signature;
}

/** Quote, send the prerequisites, prepare, send the swap: the quote, the receipt and what the wallet got. */
async function swap(wallet: Address, token: Address, side: 'buy' | 'sell', amount: bigint) {
  const q = await post('/v1/swaps/quote', {
    chain_id: 8453,
    wallet,
    token_address: token,
    side,
    amount_in_raw: amount.toString(),
    slippage_bps: 100,
  });
  expect(q.status, q.body).toBe(200);
  const signature = await send(wallet, q.json.data.steps);
  const p = await post('/v1/swaps/prepare', {
    quote_id: q.json.data.quote_id,
    wallet,
    ...(signature ? { permit_signature: signature } : {}),
  });
  expect(p.status, p.body).toBe(200);
  const output = side === 'buy' ? token : zeroAddress;
  const before =
    output === zeroAddress
      ? await base.client.getBalance({ address: wallet })
      : await base.balance(token, wallet);
  const tx = p.json.data.steps[0].transaction;
  const receipt = await base.send(wallet, tx.to, tx.data, BigInt(tx.value));
  const gas = output === zeroAddress ? receipt.gasUsed * receipt.effectiveGasPrice : 0n;
  const after =
    output === zeroAddress
      ? await base.client.getBalance({ address: wallet })
      : await base.balance(token, wallet);
  return { quote: q.json.data, receipt, received: after - before + gas };
}

/** The hook's credits of one swap, by component. */
function credits(receipt: Parameters<TestChain['events']>[0]) {
  const out: Record<string, { recipient: Address; amount: bigint }> = {};
  for (const e of base.events(receipt, TaxHookAbi as Abi, 'FeeComponentCredited') as {
    componentId: Hex;
    recipient: Address;
    amount: bigint;
  }[]) {
    const name = Buffer.from(e.componentId.slice(2), 'hex')
      .toString('utf8')
      .replace(/\0+$/, '')
      .toLowerCase();
    out[name] = { recipient: e.recipient, amount: e.amount };
  }
  return out;
}

const owed = (who: Address) =>
  base.read<bigint>(suite.fee_escrow, FeeEscrowAbi as Abi, 'owed', [who, zeroAddress]);
const burned = () =>
  base.read<bigint>(base.chain.uniswap.pool_manager, ERC6909 as Abi, 'balanceOf', [DEAD, 0n]);

describe('tax launches', () => {
  let token: Address;
  let poolId: Hex;

  it('refuses terms the policy does not allow, each with the rule it breaks', async () => {
    const shares = await post('/v1/launches/prepare', launchBody({ ...TAX(), burn_allocation_share: '0' }));
    expectProblem(shares, 400, 'invalid_parameter');
    expect(shares.json.invalid_parameters[0].name).toBe('tax');
    const rate = await post('/v1/launches/prepare', launchBody({ ...TAX(), sell_tax_rate: '11000000' }));
    expectProblem(rate, 400, 'invalid_parameter');
    expect(rate.json.invalid_parameters[0].name).toBe('tax.sell_tax_rate');
    const holding = await post(
      '/v1/launches/prepare',
      launchBody({ ...TAX(), minimum_dividend_holding_raw: '1' }),
    );
    expect(holding.json.invalid_parameters[0].name).toBe('tax.minimum_dividend_holding_raw');
    const integratorless = await post(
      '/v1/launches/prepare',
      launchBody({ ...TAX(), integrator_fee_recipient: zeroAddress }),
    );
    expect(integratorless.json.invalid_parameters[0].name).toBe('tax.integrator_fee_recipient');
    expectProblem(
      await post('/v1/launches/prepare', launchBody(TAX(), 'non-tax')),
      400,
      'incompatible_parameters',
    );
  });

  it('launches a tax token: the plan creates it at the predicted address with the requested terms', async () => {
    const r = await post('/v1/launches/prepare', launchBody(TAX()));
    expect(r.status, r.body).toBe(200);
    const data = r.json.data;
    expect(data.suite_id).toBe(base.chain.suites.find((s) => s.launch_product === 'tax')?.id);
    expect(data.review.tax).toMatchObject({
      buy_protocol_fee_rate: '500000',
      sell_protocol_fee_rate: '500000',
    });
    const step = data.steps[0] as Step;
    expect(step.transaction?.to).toBe(suite.factory);
    expect(
      decodeFunctionData({ abi: TaxLaunchFactoryAbi, data: step.transaction?.data as Hex }).functionName,
    ).toBe('createTaxLaunch');
    await send(creator(), data.steps);
    token = data.predicted_token_address;
    expect(await base.client.getCode({ address: token })).not.toBe('0x');
    poolId = (
      await base.read<{ poolId: Hex }>(suite.factory, TaxLaunchFactoryAbi as Abi, 'creatorRights', [token])
    ).poolId;
    const pool = await base.read<{ token: Address; terms: TaxTerms }>(
      suite.hook,
      TaxHookAbi as Abi,
      'taxPool',
      [poolId],
    );
    expect(pool.token).toBe(token);
    expect(pool.terms).toMatchObject({
      buyTaxRate: 3_000_000,
      sellTaxRate: 3_000_000,
      creatorShare: 40_000_000,
      dividendShare: 40_000_000,
      creatorFeeRecipient: creatorFees(),
      integratorFeeRecipient: integrator(),
      minimumDividendHolding: 10_000n * TOKENS,
    });
  });

  it('a buy gets exactly the quote; the tax is split as quoted (no holder yet: dividends go to the protocol)', async () => {
    const trader = base.account(4);
    const amount = 10n ** 17n;
    const [creatorBefore, integratorBefore, treasuryBefore, burnBefore] = await Promise.all([
      owed(creatorFees()),
      owed(integrator()),
      owed(treasury()),
      burned(),
    ]);
    const { quote, receipt, received } = await swap(trader, token, 'buy', amount);
    expect(received).toBe(BigInt(quote.expected_out_raw));
    expect(quote.fee).toMatchObject({
      total_rate: '3000000',
      total_bps: 300,
      amount_raw: ((amount * 3n) / 100n).toString(),
    });
    const c = credits(receipt);
    // 3% of 0.1 = 0.003: creator 40% and integrator 10% of the 2.5% rest, burn 10%; protocol the rest.
    expect(c.creator?.amount).toBe((amount * 25n * 40n) / 100_000n);
    expect(c.integrator?.amount).toBe((amount * 25n * 10n) / 100_000n);
    expect(c.burn?.amount).toBe((amount * 25n * 10n) / 100_000n);
    expect(c.dividend).toBeUndefined();
    expect(c.protocol?.amount).toBe((amount * 3n) / 100n - (amount * 25n * 60n) / 100_000n);
    expect(quote.fee.components).toEqual(
      Object.entries(c)
        .map(([component, v]) => ({ component, recipient: v.recipient, amount_raw: v.amount.toString() }))
        .sort(
          (a, b) =>
            ['protocol', 'creator', 'burn', 'dividend', 'integrator'].indexOf(a.component) -
            ['protocol', 'creator', 'burn', 'dividend', 'integrator'].indexOf(b.component),
        ),
    );
    expect((await owed(creatorFees())) - creatorBefore).toBe(c.creator?.amount);
    expect((await owed(integrator())) - integratorBefore).toBe(c.integrator?.amount);
    expect((await owed(treasury())) - treasuryBefore).toBe(c.protocol?.amount);
    expect((await burned()) - burnBefore).toBe(c.burn?.amount);
    expect(
      await base.read(suite.dividend_distributor as Address, DividendDistributorAbi as Abi, 'sharesOf', [
        token,
        trader,
      ]),
    ).toBe(await base.balance(token, trader));
  });

  it('with a holder above the minimum, the dividend share is allocated; the holder claims it through the gateway', async () => {
    const holder = base.account(4);
    const distributor = suite.dividend_distributor as Address;
    const amount = 2n * 10n ** 17n;
    const { quote, receipt } = await swap(base.account(5), token, 'buy', amount);
    const c = credits(receipt);
    expect(c.dividend).toEqual({ recipient: distributor, amount: (amount * 25n * 40n) / 100_000n });
    expect(quote.fee.components.find((x: { component: string }) => x.component === 'dividend')).toEqual({
      component: 'dividend',
      recipient: distributor,
      amount_raw: c.dividend?.amount.toString(),
    });
    // The only earlier holder had every share: it is owed the whole allocation (less rounding).
    const claimable = await base.read<bigint>(distributor, DividendDistributorAbi as Abi, 'claimable', [
      token,
      holder,
    ]);
    expect(claimable).toBeGreaterThan((c.dividend?.amount ?? 0n) - 2n);
    expect(claimable).toBeLessThanOrEqual(c.dividend?.amount ?? 0n);

    // Permissionless: another wallet sends the claim; the holder is paid.
    const caller = base.account(8);
    const wrong = await post('/v1/claims/dividends/prepare', {
      chain_id: 8453,
      caller,
      claims: [{ holder, token_address: token, distributor: suite.fee_escrow }],
    });
    expectProblem(wrong, 422, 'unsupported_operation');
    const r = await post('/v1/claims/dividends/prepare', {
      chain_id: 8453,
      caller,
      claims: [{ holder, token_address: token, distributor }],
    });
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.review.claims[0]).toMatchObject({
      kind: 'dividend',
      holder,
      destination: holder,
      claimable_raw: claimable.toString(),
    });
    const before = await base.client.getBalance({ address: holder });
    await send(caller, r.json.data.steps);
    expect((await base.client.getBalance({ address: holder })) - before).toBe(claimable);
    const again = await post('/v1/claims/dividends/prepare', {
      chain_id: 8453,
      caller,
      claims: [{ holder, token_address: token, distributor }],
    });
    expectProblem(again, 409, 'nothing_to_claim');
  });

  it('a sell gets exactly the quote; its tax is split by the same rule, from the output', async () => {
    const seller = base.account(4);
    const amount = (await base.balance(token, seller)) / 2n;
    const { quote, receipt, received } = await swap(seller, token, 'sell', amount);
    expect(received).toBe(BigInt(quote.expected_out_raw));
    const trade = base.events(receipt, TaxHookAbi as Abi, 'Trade')[0] as { totalFeeAmount: bigint };
    // The quote's sell fee is derived from the output (±1 unit); the split follows the actual fee.
    expect(BigInt(quote.fee.amount_raw) - trade.totalFeeAmount).toBeLessThanOrEqual(1n);
    const pool = await base.read<{ terms: TaxTerms; policy: FactoryTaxPolicy }>(
      suite.hook,
      TaxHookAbi as Abi,
      'taxPool',
      [poolId],
    );
    const split = splitTax(
      pool.terms,
      rulesOf(pool.policy),
      false,
      trade.totalFeeAmount,
      trade.totalFeeAmount,
      true,
    );
    const c = credits(receipt);
    expect(c.creator?.amount).toBe(split.creator);
    expect(c.burn?.amount).toBe(split.burn);
    expect(c.dividend?.amount).toBe(split.dividend);
    expect(c.integrator?.amount).toBe(split.integrator);
    expect(c.protocol?.amount).toBe(split.protocol);
  });

  it('anti-snipe, when the launch enables it: the surcharge decays to the tax over the window and goes to the protocol', async () => {
    const r = await post('/v1/launches/prepare', launchBody({ ...TAX(), anti_snipe_enabled: true }));
    expect(r.status, r.body).toBe(200);
    await send(creator(), r.json.data.steps);
    const sniped = r.json.data.predicted_token_address as Address;
    const id = (
      await base.read<{ poolId: Hex }>(suite.factory, TaxLaunchFactoryAbi as Abi, 'creatorRights', [sniped])
    ).poolId;
    const rate = () => base.read<bigint>(suite.hook, TaxHookAbi as Abi, 'currentTaxRate', [id, true]);
    expect(await rate()).toBeGreaterThan(3_000_000n);
    const q = await post('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: base.account(4),
      token_address: sniped,
      side: 'buy',
      amount_in_raw: (10n ** 16n).toString(),
      slippage_bps: 100,
    });
    expect(q.status, q.body).toBe(200);
    expect(q.json.data.issues).toEqual([expect.objectContaining({ code: 'anti_snipe_active' })]);
    expect(BigInt(q.json.data.fee.total_rate)).toBeGreaterThan(3_000_000n);
    // The components of the base tax are unchanged; the protocol takes the surcharge.
    const creatorPart = q.json.data.fee.components.find(
      (c: { component: string }) => c.component === 'creator',
    );
    expect(creatorPart.amount_raw).toBe(((10n ** 16n * 25n * 40n) / 100_000n).toString());
    await base.advance(21);
    expect(await rate()).toBe(3_000_000n);
  });

  it('the tax factory refuses a launch without tax terms', async () => {
    const params = {
      tokenName: 'No Terms',
      tokenSymbol: 'NOTX',
      tokenContractURI: '',
      creatorSalt: zeroHash as Hex,
      quoteToken: zeroAddress,
      expectedConfigVersion: await base.read<bigint>(
        suite.factory,
        TaxLaunchFactoryAbi as Abi,
        'configVersion',
      ),
      deadline: (await base.timestamp()) + 900n,
      metadataEditable: false,
      metadataKeys: [],
      metadataValues: [],
    };
    params.creatorSalt = mineLaunchSalt({
      tokenDeployer: suite.token_deployer,
      creator: creator(),
      initCodeHash: await base.read<Hex>(
        suite.factory,
        TaxLaunchFactoryAbi as Abi,
        'launchTokenBytecodeHash',
        [params],
      ),
    }).creatorSalt;
    const fee = await base.read<bigint>(suite.factory, TaxLaunchFactoryAbi as Abi, 'nativeLaunchFee');
    expect(
      await base.revertName(
        creator(),
        suite.factory,
        TaxLaunchFactoryAbi as Abi,
        'createLaunch',
        [params],
        fee,
      ),
    ).toBe('TaxTermsRequired');
  });

  it('indexes the tax trades with their components', async () => {
    const indexer = startTestIndexer(env.gw, env.devnet);
    try {
      await waitIndexed(env.gw, env.key, base.client);
      const r = await call(env.gw, `/v1/tokens/8453/${token}/trades?limit=10`, { key: env.key });
      expect(r.status, r.body).toBe(200);
      expect(r.json.data).toHaveLength(3);
      const [sell] = r.json.data;
      expect(sell.side).toBe('sell');
      expect(sell.fee_components.map((c: { component: string }) => c.component).sort()).toEqual([
        'BURN',
        'CREATOR',
        'DIVIDEND',
        'INTEGRATOR',
        'PROTOCOL',
      ]);
    } finally {
      await indexer.stop();
    }
  });
});
