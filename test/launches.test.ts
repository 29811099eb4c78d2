// POST /v1/launches/prepare end to end: prepare over HTTP, sign and send every step as the creator's
// wallet, then check the chain (token at the predicted address, metadata resolvable, pool tradable).
import { randomBytes, randomUUID } from 'node:crypto';
import { type Abi, type Address, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchFactoryAbi, LaunchTokenAbi } from '../contracts/artifacts/index.ts';
import type { Devnet } from '../src/devnet/devnet.ts';
import { launchPoolKey } from '../src/launchpad/pool.ts';
import { TestChain } from './support/chain.ts';
import { call, expectProblem, type TestGateway } from './support/gateway.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';

// A real 1×1 PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
let env: DevnetGateway;
let devnet: Devnet;
let gw: TestGateway;
let key: string;
const chains: Record<number, TestChain> = {};

beforeAll(async () => {
  env = await startDevnetGateway();
  ({ devnet, gw, key } = env);
  for (const c of devnet.chains) chains[c.chain_id] = new TestChain(c);
}, 60_000);
afterAll(() => env?.close());

function body(
  chainId: number,
  creator: Address,
  market: string,
  quote: Address,
  token: Record<string, unknown> = {},
) {
  return {
    chain_id: chainId,
    creator,
    market,
    quote_address: quote,
    token: {
      name: 'Gateway Launch',
      symbol: 'GWL',
      image_base64: PNG,
      image_type: 'image/png',
      description: 'Launched through the gateway',
      website: 'https://example.org',
      x: 'https://x.com/example',
      telegram: '',
      editable_metadata: true,
      extra_metadata: [{ key: 'discord', value: 'https://discord.gg/example' }],
      ...token,
    },
  };
}

/** One prepare; the gateway's clock moves a minute first, out of the per-minute launch ceilings' way. */
const prepare = (b: unknown, idempotencyKey = randomUUID()) => {
  gw.clock.advance(61_000);
  return call(gw, '/v1/launches/prepare', {
    key,
    method: 'POST',
    body: b,
    headers: { 'idempotency-key': idempotencyKey },
  });
};

describe('POST /v1/launches/prepare', () => {
  it('prepares launches that a wallet sends and that really launch, for every market and quote kind', async () => {
    const cases: [number, string, string][] = [
      [8453, 'standard', 'native'],
      [8453, 'standard', 'USDC'],
      [8453, 'rwa', 'DSTK'],
      [4663, 'standard', 'native'],
      [143, 'standard', 'USDC'],
      [5042, 'standard', 'USDC'],
    ];
    for (const [chainId, market, symbol] of cases) {
      const chain = chains[chainId] as TestChain;
      const creator = chain.account(1);
      const quote = symbol === 'native' ? zeroAddress : chain.quote(symbol);
      const r = await prepare(body(chainId, creator, market, quote));
      expect(r.status, r.body).toBe(200);
      const d = r.json.data;
      expect(d).toMatchObject({
        chain_id: chainId,
        actor: creator,
        suite_id: chain.chain.suites[0]?.id,
        issues: [],
      });
      expect(d.predicted_token_address).toMatch(/01$/);
      expect(d.metadata_uri).toMatch(/^ipfs:\/\/bafkrei[a-z2-7]{52}$/);
      expect(d.review).toMatchObject({
        market,
        quote_address: quote,
        total_supply_raw: '1000000000000000000000000000',
      });
      // Monad's devnet suite charges its fee in USDC: the plan approves it, then launches (value 0).
      const feeInToken = chainId === 143;
      if (feeInToken) {
        expect(d.creation_fee).toEqual({
          amount_raw: '5000000',
          currency_address: chain.quote('USDC'),
          decimals: 6,
          symbol: 'USDC',
        });
      }
      expect(d.steps.map((x: { id: string }) => x.id)).toEqual(
        feeInToken ? ['approve-creation-fee', 'create-launch'] : ['create-launch'],
      );
      const step = d.steps.at(-1);
      expect(step).toMatchObject({
        id: 'create-launch',
        kind: 'transaction',
        depends_on: feeInToken ? ['approve-creation-fee'] : [],
        simulation: { status: 'succeeded', block_number: d.observed_block },
      });
      expect(step.transaction).toMatchObject({
        chain_id: chainId,
        from: creator,
        to: chain.current.factory,
        value: feeInToken ? '0' : d.creation_fee.amount_raw,
      });
      const feeBalance = () => chain.balance(chain.quote('USDC'), creator);
      const feeBefore = feeInToken ? await feeBalance() : 0n;
      if (feeInToken) {
        const approve = d.steps[0].transaction;
        await chain.send(creator, approve.to, approve.data as Hex, BigInt(approve.value));
      }
      // The deadline in the calldata is the plan's expiry.
      expect(Date.parse(d.expires_at) - Date.parse(d.prepared_at)).toBeLessThanOrEqual(900_000);

      // The wallet signs and sends the step; the chain has the token at the predicted address.
      const receipt = await chain.send(
        creator,
        step.transaction.to,
        step.transaction.data as Hex,
        BigInt(step.transaction.value),
      );
      const [launched] = chain.events(receipt, LaunchFactoryAbi as Abi, 'Launched') as { token: Address }[];
      expect(launched?.token).toBe(d.predicted_token_address);
      if (feeInToken) expect(feeBefore - (await feeBalance())).toBe(5_000_000n);
      const token = d.predicted_token_address as Address;
      expect(await chain.read(token, LaunchTokenAbi as Abi, 'contractURI')).toBe(d.metadata_uri);
      expect(await chain.read(token, LaunchTokenAbi as Abi, 'extraMetadata', ['discord'])).toBe(
        'https://discord.gg/example',
      );

      // The metadata document and the image resolve through the gateway.
      const doc = await fetch(`${gw.origin}/ipfs/${d.metadata_uri.slice(7)}`);
      expect(doc.headers.get('content-type')).toBe('application/json');
      expect(doc.headers.get('cache-control')).toContain('immutable');
      const json = (await doc.json()) as { name: string; image: string; website: string };
      expect(json).toMatchObject({ name: 'Gateway Launch', symbol: 'GWL', website: 'https://example.org' });
      const image = await fetch(d.image_url);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
      expect(d.image_url.endsWith(json.image.slice(7))).toBe(true);

      // The pool is tradable: a trader buys after the anti-snipe window.
      await chain.advance(21);
      const trader = chain.account(2);
      const key2 = launchPoolKey(token, quote, 200, chain.current.hook);
      const amountIn =
        quote === zeroAddress
          ? 10n ** 16n
          : await chain
              .read<bigint>(chain.current.factory, LaunchFactoryAbi as Abi, 'quoteConfig', [quote])
              .then(() => 10n ** 5n);
      if (quote !== zeroAddress) await chain.approveForRouter(trader, quote);
      await chain.swap(trader, key2, quote, amountIn);
      expect(await chain.balance(token, trader)).toBeGreaterThan(0n);
    }
  });

  it('replays the same Idempotency-Key and body without pinning or mining again', async () => {
    const chain = chains[8453] as TestChain;
    const b = body(8453, chain.account(3), 'standard', zeroAddress, { name: 'Replayed', symbol: 'RPL' });
    const idem = randomUUID();
    const first = await prepare(b, idem);
    expect(first.status).toBe(200);
    const pinCount = async () =>
      (
        await gw.database.db
          .selectFrom('pins')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const pinned = await pinCount();
    const again = await prepare(b, idem);
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    // In the same minute the creator's launch ceiling (1 a minute) would refuse a new launch; a replay
    // starts no new work, so it is still answered.
    const sameMinute = await call(gw, '/v1/launches/prepare', {
      key,
      method: 'POST',
      body: b,
      headers: { 'idempotency-key': idem },
    });
    expect(sameMinute.status, sameMinute.body).toBe(200);
    expect(sameMinute.headers.get('idempotent-replayed')).toBe('true');
    expect(await pinCount()).toBe(pinned);
    // A new key prepares anew: another salt, so another token address.
    const fresh = await prepare(b);
    expect(fresh.json.data.predicted_token_address).not.toBe(first.json.data.predicted_token_address);
  });

  it('refuses a creator who cannot pay the launch fee with insufficient_balance (the spec lists it)', async () => {
    const poor = '0x000000000000000000000000000000000000bEEF';
    const r = await prepare(body(5042, poor, 'standard', (chains[5042] as TestChain).quote('USDC')));
    expect(expectProblem(r, 422, 'insufficient_balance')).toMatchObject({
      asset: zeroAddress,
      actual_raw: '0',
      required_raw: '2000000000000000000',
    });
  });

  it('accepts the links production clients send (the production request schema)', async () => {
    const chain = chains[8453] as TestChain;
    const r = await prepare(
      body(8453, chain.account(4), 'standard', zeroAddress, {
        website: 'https://example.com/my page',
        x: 'https://www.x.com/some one',
        telegram: 'https://telegram.me/a b',
      }),
    );
    expect(r.status, r.body).toBe(200);
    const dot = await prepare(
      body(8453, chain.account(5), 'standard', zeroAddress, { website: 'https://example.com.' }),
    );
    expect(dot.status, dot.body).toBe(200);
  });

  it('refuses bad input with the right problem, never a 500', async () => {
    const base = chains[8453] as TestChain;
    const creator = base.account(1);
    const ok = body(8453, creator, 'standard', zeroAddress);
    const bigPng = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(2 * 1024 * 1024)]).toString(
      'base64',
    );
    const cases: [unknown, number, string][] = [
      [{ ...ok, extra: 1 }, 400, 'unknown_parameter'],
      [{ ...ok, token: { ...ok.token, colour: 'red' } }, 400, 'unknown_parameter'],
      [{ ...ok, token: { ...ok.token, name: 'x'.repeat(51) } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, name: '' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, symbol: 'TWO WORDS' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, symbol: 'ABCDEFGHIJKL' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, image_type: 'image/jpeg' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, image_type: 'image/bmp' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, image_base64: 'not base64!' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, image_base64: bigPng } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, website: 'ftp://example.org' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, website: 'https://localhost' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, x: 'https://twitter.com/a' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, telegram: 'https://t.me/' } }, 400, 'invalid_parameter'],
      [{ ...ok, token: { ...ok.token, description: 'd'.repeat(2001) } }, 400, 'invalid_parameter'],
      [
        {
          ...ok,
          token: {
            ...ok.token,
            extra_metadata: Array.from({ length: 17 }, (_, i) => ({ key: `k${i}`, value: '' })),
          },
        },
        400,
        'invalid_parameter',
      ],
      [{ ...ok, creator: zeroAddress }, 400, 'invalid_parameter'],
      [{ ...ok, market: 'stocks' }, 400, 'invalid_parameter'],
      [{ ...ok, chain_id: 1 }, 422, 'unsupported_chain'],
      [{ ...ok, tax: taxBody() }, 400, 'incompatible_parameters'],
      [{ ...ok, launch_product: 'tax' }, 400, 'invalid_parameter'],
      [
        { ...ok, launch_product: 'tax', tax: { ...taxBody(), buy_tax_rate: '100000001' } },
        400,
        'invalid_parameter',
      ],
      // The tax suite checks the terms against its live policy: shares that do not add up to 100%.
      [
        { ...ok, launch_product: 'tax', tax: { ...taxBody(), creator_allocation_share: '1' } },
        400,
        'invalid_parameter',
      ],
      [
        { ...ok, launch_product: 'tax', tax: { ...taxBody(), creator_fee_recipient: zeroAddress } },
        400,
        'invalid_parameter',
      ],
      [{ ...ok, quote_address: '0x000000000000000000000000000000000000dEaD' }, 422, 'unsupported_operation'],
      [{ ...ok, market: 'standard', quote_address: base.quote('DSTK') }, 422, 'unsupported_operation'],
      [{ ...ok, market: 'rwa' }, 422, 'unsupported_operation'],
      [body(143, creator, 'rwa', zeroAddress), 422, 'unsupported_operation'],
      [body(5042, creator, 'standard', zeroAddress), 422, 'unsupported_operation'],
    ];
    // Each case from its own creator, so the per-creator launch ceilings stay out of the way.
    for (const [b, status, code] of cases) {
      const fresh = b as { creator: string };
      const creatorOf = fresh.creator === zeroAddress ? zeroAddress : `0x${randomBytes(20).toString('hex')}`;
      expectProblem(await prepare({ ...fresh, creator: creatorOf }), status, code);
    }
    expectProblem(
      await call(gw, '/v1/launches/prepare', { key, method: 'POST', body: ok }),
      400,
      'missing_idempotency_key',
    );
  });

  it('answers unsupported_operation while the suite has launch creation switched off', async () => {
    const monad = chains[143] as TestChain;
    const factory = monad.current.factory;
    await monad.call(monad.account(0), factory, LaunchFactoryAbi as Abi, 'setLaunchCreationEnabled', [false]);
    const p = expectProblem(
      await prepare(body(143, monad.account(1), 'standard', zeroAddress)),
      422,
      'unsupported_operation',
    );
    expect(p.detail).toMatch(/switched off/);
    await monad.call(monad.account(0), factory, LaunchFactoryAbi as Abi, 'setLaunchCreationEnabled', [true]);
  });
});

function taxBody() {
  return {
    format: 'inclusive',
    buy_tax_rate: '3000000',
    sell_tax_rate: '3000000',
    creator_allocation_share: '60000000',
    burn_allocation_share: '0',
    dividend_allocation_share: '40000000',
    integrator_allocation_share: '0',
    minimum_dividend_holding_raw: '10000000000000000000000',
    creator_fee_recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    anti_snipe_enabled: false,
  };
}
