// `launchpad demo [--chain <id>]`: walks the whole product against a running devnet gateway with the
// devnet's accounts, through the typed client (src/client), on any of the four chains with that chain's
// own suite, token mode, quote and router: config → launch (with the creation fee in the currency the
// suite asks) → index → buy (the native currency, or the chain's first token quote through Permit2) → sell
// (Permit2 signature) → fee claim → announcement → trades and holders, with the live event stream
// printing the launch and trades as they are indexed. Each plan is signed locally by the account (a wallet
// would do the same) and sent raw; a step counts only when its transaction succeeded on chain.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  formatUnits,
  type PublicClient,
  zeroAddress,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import {
  createLaunchpadClient,
  type LaunchpadClient,
  type LaunchpadEvent,
  streamEvents,
} from './client/index.ts';
import { describeEvent } from './watch.ts';
import type { ChainId } from './launchpad/chains.ts';
import { CliError } from './lock.ts';

/** anvil's default accounts (the devnet runs anvil with its default mnemonic). */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** The chain walked when none is named. */
export const DEMO_CHAIN: ChainId = 8453;
// A real 1×1 PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export interface DemoInput {
  /** The gateway, e.g. http://127.0.0.1:8080/v1 */
  baseUrl: string;
  apiKey: string;
  /** The data dir of the devnet (its devnet.json lists the RPC URLs and accounts). */
  dataDir: string;
  /** The chain to walk (default 8453). */
  chainId?: ChainId;
  log?: (line: string) => void;
}

interface Step {
  id: string;
  kind: string;
  transaction?: { to: Address; data: Hex; value: string };
  typed_data?: { domain: object; types: object; primaryType: string; message: object };
}

/** A step that did not land; the CLI prints it in one line. */
export class DemoError extends CliError {}

/** Runs the walk; resolves when every step landed on chain, rejects with the first that did not. */
export async function runDemo(input: DemoInput): Promise<void> {
  const log = input.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const CHAIN_ID = input.chainId ?? DEMO_CHAIN;
  const devnet = JSON.parse(readFileSync(join(input.dataDir, 'devnet.json'), 'utf8')) as {
    chains: { chain_id: number; rpc_url: string; accounts: Address[] }[];
  };
  const chain = devnet.chains.find((c) => c.chain_id === CHAIN_ID);
  if (!chain) throw new DemoError(`devnet.json has no chain ${CHAIN_ID}`);
  const creator = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const trader = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 });
  if (chain.accounts[1] !== creator.address || chain.accounts[2] !== trader.address)
    throw new DemoError("the devnet's accounts are not anvil's default accounts");
  const rpc = createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;
  const api = createLaunchpadClient(input.baseUrl, input.apiKey);
  const wallets = {
    [creator.address]: createWalletClient({ account: creator, transport: http(chain.rpc_url) }),
    [trader.address]: createWalletClient({ account: trader, transport: http(chain.rpc_url) }),
  };

  /** Signs and sends a transaction step as `from`; returns once it succeeded on chain. */
  const send = async (from: Address, step: Step) => {
    const tx = step.transaction as NonNullable<Step['transaction']>;
    const wallet = wallets[from] as (typeof wallets)[string];
    const hash = await wallet.sendTransaction({
      chain: null,
      to: tx.to,
      data: tx.data,
      value: BigInt(tx.value),
    });
    const receipt = await rpc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new DemoError(`step ${step.id}: transaction ${hash} reverted`);
    return receipt;
  };
  const ok = <T>(what: string, r: { data?: T; error?: unknown; response: Response }): T => {
    if (!r.data) throw new DemoError(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
    return r.data;
  };

  // 1. Configuration.
  const config = ok(
    'GET /v1/config',
    await api.GET('/v1/config', { params: { query: { chain_id: CHAIN_ID } } }),
  ).data;
  const suite = (config.suites ?? []).find((s) => s.creation_available);
  if (!suite) throw new DemoError(`chain ${CHAIN_ID} has no suite that can create launches`);
  // The native currency where the suite pairs with it, else its first standard token quote (Arc: USDC).
  const suiteQuotes = (config.quotes ?? []).filter(
    (q) => q.suite_id === suite.id && q.selectable && q.route === 'standard',
  );
  const quote = suiteQuotes.find((q) => q.address === zeroAddress) ?? suiteQuotes[0];
  if (!quote) throw new DemoError(`chain ${CHAIN_ID}: suite ${suite.id} has no standard quote`);
  const native = quote.address === zeroAddress;
  const units = (raw: string | bigint, decimals: number, symbol: string) =>
    `${formatUnits(BigInt(raw), decimals)} ${symbol}`;
  log(
    `config      chain ${CHAIN_ID} (${config.chain.name}), suite ${suite.id} (${suite.token_mode ?? 'erc20'} tokens), quote ${quote.symbol}, at block ${config.as_of_block}`,
  );
  log(`            proves: suites and quotes read live from the factory at one pinned block`);

  // The live feed, opened before anything happens: the launch and the trades below arrive on it.
  const stop = new AbortController();
  const arrived: LaunchpadEvent[] = [];
  let opened = false;
  const feed = (async () => {
    for await (const e of streamEvents({
      baseUrl: input.baseUrl,
      apiKey: input.apiKey,
      chainId: CHAIN_ID,
      types: ['launch', 'trade'],
      signal: stop.signal,
      onOpen: () => (opened = true),
    })) {
      arrived.push(e);
      log(`stream      ${describeEvent(e)}`);
    }
  })();
  feed.catch(() => {}); // awaited at the end
  await waitFor('the event stream to open', async () => opened);

  // 2. Launch: prepare, sign, send.
  const launch = ok(
    'POST /v1/launches/prepare',
    await api.POST('/v1/launches/prepare', {
      headers: { 'idempotency-key': randomUUID() },
      body: {
        chain_id: CHAIN_ID,
        creator: creator.address,
        market: 'standard',
        quote_address: quote.address,
        token: {
          name: 'Demo Launch',
          symbol: 'DEMO',
          image_base64: PNG,
          image_type: 'image/png',
          description: 'Launched by launchpad demo',
          website: 'https://example.org',
        },
      },
    }),
  ).data;
  for (const step of launch.steps as Step[]) await send(creator.address, step);
  const token = launch.predicted_token_address as Address;
  const code = await rpc.getCode({ address: token });
  if (!code || code === '0x') throw new DemoError(`no token at the predicted address ${token}`);
  const fee = launch.creation_fee;
  log(
    `launch      ${token} created by ${creator.address} (fee ${units(fee.amount_raw, fee.decimals, fee.symbol)}; steps ${(launch.steps as Step[]).map((x) => x.id).join(', ')})`,
  );
  log(
    `            proves: the plan simulated at block ${launch.observed_block} executes; the address was predicted`,
  );

  // 3. The index sees it.
  await waitFor('the index to list the token', async () => {
    const r = await api.GET('/v1/tokens/{chain_id}/{token_address}', {
      params: { path: { chain_id: CHAIN_ID, token_address: token } },
    });
    return r.response.status === 200;
  });
  log(`index       GET /v1/tokens/${CHAIN_ID}/${token} answers`);
  log(`            proves: the indexer followed the factory's Launched event`);

  // 4. Buy with the quote: 0.01 of the native currency, or 10 of a token quote (approval and permit first).
  const buyAmount = native ? 10n ** 16n : 10n * 10n ** BigInt(quote.decimals);
  /** The trader's quote for one side of the token, 1% slippage. */
  const quoteFor = async (side: 'buy' | 'sell', amount: bigint) =>
    ok(
      `POST /v1/swaps/quote (${side})`,
      await api.POST('/v1/swaps/quote', {
        body: {
          chain_id: CHAIN_ID,
          wallet: trader.address,
          token_address: token,
          side,
          amount_in_raw: amount.toString(),
          slippage_bps: 100,
        },
      }),
    ).data;
  // Right after a launch the pool charges the anti-snipe surcharge, which falls every second: a buy
  // quoted then with 1% slippage can revert if it lands a second earlier than priced. Wait it out.
  let buyQuote = await quoteFor('buy', buyAmount);
  let waited = false;
  for (let i = 0; i < 40 && buyQuote.issues.some((x) => x.code === 'anti_snipe_active'); i++) {
    if (i === 0)
      log(
        `wait        the anti-snipe surcharge is on (${buyQuote.fee.total_bps} bps); waiting for its window to end`,
      );
    waited = true;
    await new Promise((r) => setTimeout(r, 1_000));
    buyQuote = await quoteFor('buy', buyAmount);
  }
  if (waited) {
    // The quote is priced at the wall clock. A block stamped earlier (a loaded devnet's clock can lag it)
    // would still charge the end of the surcharge: wait until the chain's time has caught up, quote again.
    const pricedAt = BigInt(Math.ceil(Date.now() / 1000));
    await waitFor(
      'the chain to reach the quote time',
      async () => (await rpc.getBlock()).timestamp >= pricedAt,
    );
    buyQuote = await quoteFor('buy', buyAmount);
  }
  const before = await balanceOf(rpc, token, trader.address);
  await swap(api, send, trader.address, buyQuote);
  const bought = (await balanceOf(rpc, token, trader.address)) - before;
  if (bought < BigInt(buyQuote.minimum_out_raw))
    throw new DemoError(`the buy received ${bought}, below the quoted minimum ${buyQuote.minimum_out_raw}`);
  log(
    `buy         ${units(buyAmount, quote.decimals, quote.symbol)} → ${formatUnits(bought, 18)} tokens (quoted ${formatUnits(BigInt(buyQuote.expected_out_raw), 18)}; steps ${stepIds(buyQuote)})`,
  );
  log(
    `            proves: quote → prepare → the swap through the chain's router; the output met the quoted minimum`,
  );

  // 5. Sell half through Permit2: an approval transaction, a PermitSingle signature, then the swap.
  const sellAmount = bought / 2n;
  const sellQuote = await quoteFor('sell', sellAmount);
  const quoteBalance = () =>
    native
      ? rpc.getBalance({ address: trader.address })
      : balanceOf(rpc, quote.address as Address, trader.address);
  const quoteBefore = await quoteBalance();
  const sold = await swap(api, send, trader.address, sellQuote);
  if (!sold.signed) throw new DemoError('the sell asked for no Permit2 signature');
  const received = (await quoteBalance()) - quoteBefore;
  if (!native && received < BigInt(sellQuote.minimum_out_raw))
    throw new DemoError(
      `the sell received ${received}, below the quoted minimum ${sellQuote.minimum_out_raw}`,
    );
  log(
    `sell        ${formatUnits(sellAmount, 18)} tokens → ${units(received, quote.decimals, quote.symbol)}${native ? ' after gas' : ''} (quoted ${units(sellQuote.expected_out_raw, quote.decimals, quote.symbol)})`,
  );
  log(
    `            proves: Permit2 approval + EIP-712 PermitSingle signed by the wallet, accepted by the router`,
  );

  // 6. The creator claims its fees.
  const positions = await waitFor('a claimable fee position for the creator', async () => {
    const r = await api.GET('/v1/wallets/{address}/fee-claims', {
      params: { path: { address: creator.address }, query: { chain_id: CHAIN_ID } },
    });
    const found = (r.data?.data ?? []).filter((p) => BigInt(p.claimable_raw) > 0n);
    return found.length > 0 ? found : undefined;
  });
  const claim = ok(
    'POST /v1/claims/fees/prepare',
    await api.POST('/v1/claims/fees/prepare', {
      body: {
        chain_id: CHAIN_ID,
        caller: creator.address,
        claims: positions.map((p) => ({
          recipient: p.recipient,
          fee_escrow: p.fee_escrow,
          currency: p.currency,
          mode: 'to_recipient' as const,
        })),
      },
    }),
  ).data;
  for (const step of claim.steps as Step[]) await send(creator.address, step);
  log(
    `fee claim   ${positions.map((p) => `${p.claimable_raw} of ${p.symbol ?? p.currency}`).join(', ')} claimed`,
  );
  log(`            proves: the hook's fee credits are claimable from the escrow by the creator`);

  // 7. An announcement.
  const announcement = ok(
    'POST announcements/prepare',
    await api.POST('/v1/tokens/{chain_id}/{token_address}/announcements/prepare', {
      params: { path: { chain_id: CHAIN_ID, token_address: token } },
      body: { actor: creator.address, description: 'gm from launchpad demo' },
    }),
  ).data;
  for (const step of announcement.steps as Step[]) await send(creator.address, step);
  log(`announce    ${announcement.announcement_id}`);
  log(`            proves: the registry accepts posts from the token's creator`);

  // 8. The index shows the trades and the holders.
  const trades = await waitFor('the index to show both trades', async () => {
    const r = await api.GET('/v1/tokens/{chain_id}/{token_address}/trades', {
      params: { path: { chain_id: CHAIN_ID, token_address: token } },
    });
    const list = r.data?.data ?? [];
    return list.length >= 2 ? list : undefined;
  });
  const holders = ok(
    'GET holders',
    await api.GET('/v1/tokens/{chain_id}/{token_address}/holders', {
      params: { path: { chain_id: CHAIN_ID, token_address: token } },
    }),
  );
  if (!holders.data.some((h) => h.address === trader.address))
    throw new DemoError('the trader is not among the holders');
  log(`trades      ${trades.map((t) => t.side).join(', ')}; holders ${holders.summary.total_holders}`);
  log(`            proves: swaps are indexed with their fees; holder balances read at one pinned block`);

  // 9. The stream carried the launch and both trades as they were indexed.
  const mine = () => arrived.filter((e) => e.data.token_address === token);
  await waitFor(
    'the event stream to carry the launch and both trades',
    async () =>
      mine().filter((e) => e.event === 'trade').length >= 2 && mine().some((e) => e.event === 'launch'),
  );
  stop.abort();
  await feed;
  log(
    `stream      GET /v1/events sent ${mine()
      .map((e) => e.event)
      .join(', ')} as they were indexed`,
  );
  log(`            proves: push without polling, each event's record as the read routes give it`);
  log('demo: every step landed on chain');
}

const stepIds = (q: { steps: unknown[] }) => (q.steps as Step[]).map((x) => x.id).join(', ') || 'none';

/** Quote steps (approval transactions, a Permit2 signature), then prepare and send the swap. */
async function swap(
  api: LaunchpadClient,
  send: (from: Address, step: Step) => Promise<unknown>,
  wallet: Address,
  quote: { quote_id: string; steps: unknown[] },
) {
  let signature: Hex | undefined;
  for (const step of quote.steps as Step[]) {
    if (step.kind === 'transaction') await send(wallet, step);
    else signature = await signTypedData(wallet, step);
  }
  const prepared = await api.POST('/v1/swaps/prepare', {
    body: { quote_id: quote.quote_id, wallet, ...(signature ? { permit_signature: signature } : {}) },
  });
  if (!prepared.data)
    throw new DemoError(
      `POST /v1/swaps/prepare: ${prepared.response.status} ${JSON.stringify(prepared.error)}`,
    );
  for (const step of prepared.data.data.steps as Step[]) await send(wallet, step);
  return { signed: signature !== undefined };
}

async function signTypedData(wallet: Address, step: Step): Promise<Hex> {
  for (let i = 0; i < 10; i++) {
    const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
    if (account.address !== wallet) continue;
    const t = step.typed_data as NonNullable<Step['typed_data']>;
    return account.signTypedData(t as never);
  }
  throw new DemoError(`no devnet account ${wallet}`);
}

const balanceOf = (rpc: PublicClient, token: Address, who: Address) =>
  rpc.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new DemoError(`timed out waiting for ${what}`);
}
