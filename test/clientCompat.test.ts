// The gateway as production clients speak to it: the request bodies and headers they send (REFERENCE §3,
// transcribed from their code, not from our responses), and the fields and rules they read: non-tax and
// tax launch bodies, swaps with permit2_signature, the alert bot's poll.
import { randomUUID } from 'node:crypto';
import { type Address, createWalletClient, type Hex, http, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../src/devnet/devnet.ts';
import { startIndexer } from '../src/indexer/indexer.ts';
import { TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  startDevnetGateway,
  startTestIndexer,
  waitIndexed,
} from './support/devnetGateway.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
let env: DevnetGateway;
let indexer: ReturnType<typeof startIndexer>;
let base: TestChain;
let monad: TestChain;

beforeAll(async () => {
  // Production keys look like o1_…; the gateway is told so.
  env = await startDevnetGateway({ KEY_PREFIX: 'o1_' });
  base = new TestChain(env.devnet.chains[0] as Devnet['chains'][number]);
  monad = new TestChain(env.devnet.chains[2] as Devnet['chains'][number]);
  indexer = startTestIndexer(env.gw, env.devnet);
}, 60_000);
afterAll(async () => {
  await indexer?.stop();
  await env?.close();
});

/** A request as the clients send it: x-api-key, JSON, a fresh UUID Idempotency-Key on every POST. */
async function client(path: string, body?: unknown) {
  env.gw.clock.advance(61_000);
  const res = await fetch(`${env.gw.origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-api-key': env.key,
      accept: 'application/json',
      'user-agent': 'launch-bot/2.3 (+telegram)',
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text, json: JSON.parse(text) };
}

/** The clients' plan rules (REFERENCE §3.2): only the last step may be a non-approve call. */
function checkPlanAsClients(plan: Record<string, unknown>, chainId: number, actor: Address) {
  const steps = plan.steps as {
    kind: string;
    transaction?: { data: Hex; value: string };
    simulation?: { status: string };
  }[];
  expect(plan.chain_id).toBe(chainId);
  expect(plan.actor).toBe(actor);
  expect(steps.length).toBeGreaterThanOrEqual(1);
  expect(steps.length).toBeLessThanOrEqual(4);
  expect((plan.issues as { severity: string }[]).filter((i) => i.severity === 'blocking')).toEqual([]);
  for (const step of steps.slice(0, -1)) {
    expect(step.kind).toBe('transaction');
    expect(step.transaction?.data.slice(0, 10)).toBe('0x095ea7b3'); // approve(address,uint256)
    expect(step.transaction?.data.length).toBe(2 + 68 * 2);
    expect(step.transaction?.value).toBe('0');
    expect(step.simulation?.status).not.toBe('not_run');
  }
}

async function sendAll(
  chain: TestChain,
  from: Address,
  steps: { transaction: { to: Address; data: Hex; value: string } }[],
) {
  for (const s of steps)
    await chain.send(from, s.transaction.to, s.transaction.data, BigInt(s.transaction.value));
}

describe('production clients, unchanged', () => {
  let token: Address;

  it('launch: every optional field, the production link forms, an o1_ key; the fields clients read', async () => {
    expect(env.key.startsWith('o1_')).toBe(true);
    const creator = base.account(1);
    const r = await client('/v1/launches/prepare', {
      chain_id: 8453,
      creator,
      market: 'standard',
      quote_address: zeroAddress,
      launch_product: 'non-tax',
      token: {
        name: 'Bot Launch',
        symbol: 'BOTL',
        image_base64: PNG,
        image_type: 'image/png',
        description: 'Launched from a chat',
        website: 'https://example.com/my page',
        x: 'https://www.x.com/bot launch',
        telegram: 'https://telegram.me/botlaunch',
        editable_metadata: true,
        extra_metadata: [{ key: 'discord', value: 'https://discord.gg/bot' }],
      },
    });
    expect(r.status, r.body).toBe(200);
    const d = r.json.data;
    checkPlanAsClients(d, 8453, creator);
    expect(d).toMatchObject({
      suite_id: base.chain.suites[0]?.id,
      metadata_uri: expect.stringMatching(/^ipfs:\/\//),
      image_url: expect.stringMatching(/^https?:\/\//),
      creation_fee: {
        amount_raw: expect.any(String),
        currency_address: zeroAddress,
        decimals: 18,
        symbol: 'ETH',
      },
      review: {
        market: 'standard',
        token: { name: 'Bot Launch', symbol: 'BOTL', editable_metadata: true },
        quote_address: zeroAddress,
      },
    });
    expect(d.review.pool_supply_raw).toBe(d.review.total_supply_raw);
    expect(d.steps.at(-1).id).toBe('create-launch');
    await sendAll(base, creator, d.steps);
    token = d.predicted_token_address;
    expect(
      await base.read(
        token,
        [
          {
            type: 'function',
            name: 'symbol',
            stateMutability: 'view',
            inputs: [],
            outputs: [{ type: 'string' }],
          },
        ] as never,
        'symbol',
      ),
    ).toBe('BOTL');
  });

  it('launch with an ERC-20 creation fee: earlier steps are plain approvals, as the clients require', async () => {
    const creator = monad.account(1);
    const r = await client('/v1/launches/prepare', {
      chain_id: 143,
      creator,
      market: 'standard',
      quote_address: zeroAddress,
      token: { name: 'Fee In USDC', symbol: 'FUSD', image_base64: PNG, image_type: 'image/png' },
    });
    expect(r.status, r.body).toBe(200);
    checkPlanAsClients(r.json.data, 143, creator);
    expect(r.json.data.steps.map((s: { id: string }) => s.id)).toEqual([
      'approve-creation-fee',
      'create-launch',
    ]);
    await sendAll(monad, creator, r.json.data.steps);
  });

  it('tax launch: the clients’ tax body (§5 worked example, zero integrator with share 0), then a taxed buy', async () => {
    const creator = base.account(3);
    // Every config call the clients make before a tax launch (REFERENCE §3.1).
    const config = await client(
      '/v1/config?chain_id=8453&market=all&launch_product=tax&include=chains,suites,quotes&active_only=true',
    );
    expect(config.status, config.body).toBe(200);
    const suite = config.json.data.suites[0];
    expect(suite).toMatchObject({ launch_product: 'tax', tax_format: 'inclusive', creation_available: true });
    expect(suite.tax_policy.protocol_fee_configuration.minimum_protocol_fee_rate).toBe('500000');
    const r = await client('/v1/launches/prepare', {
      chain_id: 8453,
      creator,
      market: 'standard',
      quote_address: zeroAddress,
      launch_product: 'tax',
      tax: {
        format: 'inclusive',
        buy_tax_rate: '3000000',
        sell_tax_rate: '3000000',
        creator_allocation_share: '60000000',
        burn_allocation_share: '0',
        dividend_allocation_share: '40000000',
        integrator_allocation_share: '0',
        minimum_dividend_holding_raw: suite.tax_policy.minimum_dividend_holding_requirement_raw,
        creator_fee_recipient: creator,
        integrator_fee_recipient: zeroAddress,
        anti_snipe_enabled: true,
      },
      token: {
        name: 'Bot Tax Launch',
        symbol: 'BTAX',
        image_base64: PNG,
        image_type: 'image/png',
        description: 'A taxed launch from a chat',
        website: 'https://example.com',
        x: 'https://x.com/bottax',
        telegram: 'https://t.me/bottax',
        editable_metadata: false,
        extra_metadata: [],
      },
    });
    expect(r.status, r.body).toBe(200);
    checkPlanAsClients(r.json.data, 8453, creator);
    expect(r.json.data.suite_id).toBe(suite.id);
    await sendAll(base, creator, r.json.data.steps);
    const taxed = r.json.data.predicted_token_address as Address;
    await base.advance(30); // past the anti-snipe window
    const q = await client('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: base.account(2),
      token_address: taxed,
      side: 'buy',
      amount_in_raw: '10000000000000000',
      slippage_bps: 300,
    });
    expect(q.status, q.body).toBe(200);
    // 3% = protocol 0.5% + creator 1.5% (+ dividend 1.0%, to the protocol while no holder is eligible).
    expect(q.json.data.fee).toMatchObject({ total_rate: '3000000', amount_raw: '300000000000000' });
    expect(q.json.data.fee.components).toEqual([
      { component: 'protocol', recipient: expect.any(String), amount_raw: '150000000000000' },
      { component: 'creator', recipient: creator, amount_raw: '150000000000000' },
    ]);
  });

  it('buy, then sell with permit2_signature: the permit passes the clients’ guards', async () => {
    await base.advance(30); // past the anti-snipe window
    const trader = base.account(2);
    const buyQuote = await client('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: trader,
      token_address: token,
      side: 'buy',
      amount_in_raw: '10000000000000000',
      slippage_bps: 300,
    });
    expect(buyQuote.status, buyQuote.body).toBe(200);
    expect(buyQuote.json.data.steps).toEqual([]); // native input: nothing to approve or sign
    const buy = await client('/v1/swaps/prepare', { quote_id: buyQuote.json.data.quote_id, wallet: trader });
    expect(buy.status, buy.body).toBe(200);
    expect(buy.json.data.steps.map((s: { id: string }) => s.id)).toEqual(['swap']);
    await sendAll(base, trader, buy.json.data.steps);

    const balance = await base.balance(token, trader);
    const sellQuote = await client('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: trader,
      token_address: token,
      side: 'sell',
      amount_in_raw: (balance / 2n).toString(),
      slippage_bps: 300,
      comment: 'gm',
    });
    expect(sellQuote.status, sellQuote.body).toBe(200);
    const q = sellQuote.json.data;
    for (const step of q.steps.filter((s: { kind: string }) => s.kind === 'transaction')) {
      expect(step.id).toBe('approve-permit2');
      await sendAll(base, trader, [step]);
    }
    const permit = q.steps.find((s: { kind: string }) => s.kind === 'typed_data');
    expect(permit.id).toBe('permit2-signature');
    const t = permit.typed_data;
    // The guards of the production client (REFERENCE §3.3).
    expect(Object.keys(t.domain).sort()).toEqual(['chainId', 'name', 'verifyingContract']);
    expect(t.domain.name).toBe('Permit2');
    expect(t.primaryType).toBe('PermitSingle');
    expect(BigInt(t.message.details.amount)).toBeLessThanOrEqual(BigInt(q.amount_in_raw));
    const now = Math.floor(Date.now() / 1000);
    expect(Number(t.message.details.expiration)).toBeLessThanOrEqual(now + 31 * 86_400 + 120);
    expect(Number(t.message.sigDeadline)).toBeLessThanOrEqual(now + 86_400 + 120);
    const signature = await createWalletClient({ transport: http(base.chain.rpc_url) }).signTypedData({
      account: trader,
      domain: t.domain,
      types: t.types,
      primaryType: t.primaryType,
      message: t.message,
    } as never);
    // The production client's field name.
    const sell = await client('/v1/swaps/prepare', {
      quote_id: q.quote_id,
      wallet: trader,
      permit2_signature: signature,
    });
    expect(sell.status, sell.body).toBe(200);
    expect(sell.json.data.review).toMatchObject({
      reviewed_minimum_out_raw: q.minimum_out_raw,
      refreshed_expected_out_raw: expect.any(String),
    });
    await sendAll(base, trader, sell.json.data.steps);
    expect(await base.balance(token, trader)).toBe(balance - balance / 2n);
  });

  it('issues carry detail, not message', async () => {
    const r = await client('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: base.account(3),
      token_address: token,
      side: 'buy',
      amount_in_raw: '1000000000000000',
      slippage_bps: 4999, // accepted, with a warning above 10%
    });
    expect(r.status, r.body).toBe(200);
    const issue = r.json.data.issues[0];
    expect(issue).toMatchObject({ severity: 'warning', detail: expect.any(String) });
    expect(issue.message).toBeUndefined();
  });

  it('the alert bot’s poll: newest tokens with USD market cap, USD liquidity and 1h trades', async () => {
    await waitIndexed(env.gw, env.key, base.client);
    let found: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < 200 && !found; i++) {
      const r = await client('/v1/tokens?chain_id=8453&market=all&sort=newest&limit=100');
      expect(r.status, r.body).toBe(200);
      // What the bot filters on.
      found = r.json.data.find(
        (t: {
          token: { address: string };
          market_data: {
            market_cap: { usd: number } | null;
            liquidity: { usd: number } | null;
            activity: Record<string, { trades: number }> | null;
          };
        }) =>
          t.token.address === token &&
          typeof t.market_data.market_cap?.usd === 'number' &&
          typeof t.market_data.liquidity?.usd === 'number' &&
          (t.market_data.activity?.['1h']?.trades ?? 0) >= 2,
      );
      if (!found) await new Promise((res) => setTimeout(res, 50));
    }
    expect(found, 'the native-quoted token with USD figures and its trades').toBeDefined();
    expect(found?.market_data.market_cap.usd).toBeGreaterThan(0);
    expect(found?.market_data.liquidity.usd).toBeGreaterThan(0);
    expect(found?.market_data.quote_price.usd).toBe(3000);
  });

  it('GET /config publishes the contract names the clients read beside the spec’s', async () => {
    const r = await client('/v1/config?chain_id=8453');
    expect(r.status, r.body).toBe(200);
    const contracts = r.json.data.suites[0].contracts;
    expect(contracts.permit2).toBe(contracts.permit);
    // Arc: the dedicated router also under the name the clients' router guard knows (REFERENCE §7 #4).
    const arc = (await client('/v1/config?chain_id=5042&market=standard')).json.data.suites[0].contracts;
    expect(arc.swap_router).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(arc.swapx_router).toBe(arc.swap_router);
  });
});
