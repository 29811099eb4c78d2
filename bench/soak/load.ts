// The soak's mixed load: workers that each own one devnet account and loop, by a seeded draw, over reads
// (80 %: lists by every sort, search, trades, holders, detail, config, a creator's tokens, fee claims),
// trades (15 %: a quote and a buy, or a sell of what it bought through Permit2, prepared, signed and sent
// on chain 8453) and writes (5 %: launches with an image, metadata documents, announcements, fee claims
// and vesting claims, all sent), through keys of several plans and both replicas. Writes carry an Idempotency-Key; some are first sent with a
// time-out too short to answer and then sent again with the same key, as a client retries.
import { randomUUID } from 'node:crypto';
import {
  type Address,
  createPublicClient,
  erc20Abi,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  zeroAddress,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import type { Devnet } from '../../src/devnet/devnet.ts';
import type { Operation } from '../../src/http/catalog.ts';
import { call, type LoadClass, type Validate } from './record.ts';

export const MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN = 8453;
/** A real 1×1 PNG. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WORDS = ['rocket', 'moon', 'pepe', 'frog', 'solar', 'nova', 'whale', 'tiger', 'lunar', 'comet'];
const SORTS = ['newest', 'oldest', 'trending', 'liquidity', 'market_cap', 'volume_24h'];

/** mulberry32: the seeded draws of a worker. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The workers' sends to chain 8453, held while a fault needs its node's mining quiet: anvil's evm_revert
 * racing a block being mined leaves the chain with missing blocks and a state its blocks do not explain
 * (nonces and balances off; measured), which no real chain does.
 */
export class SendGate {
  private held?: Promise<void>;
  private release?: () => void;
  private inFlight = 0;

  /** Runs `send` once the gate is open, counted until it returns. */
  async send<T>(send: () => Promise<T>): Promise<T> {
    while (this.held) await this.held;
    this.inFlight++;
    try {
      return await send();
    } finally {
      this.inFlight--;
    }
  }

  /** Holds new sends and resolves once every send under way has returned. */
  async hold(): Promise<void> {
    this.held ??= new Promise((resolve) => {
      this.release = resolve;
    });
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }

  open(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

/** A plan's step, as the worker reads it. */
type Step = {
  kind: string;
  transaction?: { to: Address; data: Hex; value: string };
  typed_data?: { domain: object; types: object; primaryType: string; message: object };
};

export interface LoadKey {
  name: string;
  secret: string;
}

export interface LoadState {
  replicas: { origin: string; index: number }[];
  devnet: Devnet;
  validate: Validate;
  /**
   * Keys by role: each worker's own `traders` key (its trades and writes, and half its reads), a shared
   * `reader` key for the other half, and `tight` keys of small plans that the limits worker keeps at
   * their limit.
   */
  keys: { traders: LoadKey[]; reader: LoadKey; tight: LoadKey[] };
  /** Tokens known on each chain (launched in the run or listed). */
  tokens: Map<number, string[]>;
  /** Every CID a pin answered with (launch images and documents, metadata documents). */
  cids: Set<string>;
  /** Transactions of plans that landed, by kind. */
  landed: { kind: string; hash: Hex }[];
  /** The token whose vested allocations (one per worker) unlock during the run, and its vault. */
  vesting: { token: Address; vault: Address };
  /** The workers' transactions pass it (see SendGate). */
  sends: SendGate;
  stopped: boolean;
}

/**
 * Worker `index` (devnet account index + 1): `launch` launches one token (the set-up before the clock
 * starts, so that trades have pools from the first second), `run` loops until the state says stop.
 */
export function worker(
  state: LoadState,
  index: number,
  seed: number,
): { launch(): Promise<boolean>; run(): Promise<void> } {
  const rnd = seeded(seed * 1000 + index);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const chain = state.devnet.chains.find((c) => c.chain_id === CHAIN) as Devnet['chains'][number];
  const account = mnemonicToAccount(MNEMONIC, { addressIndex: index + 1 });
  const transport = http(chain.rpc_url, { timeout: 10_000, retryCount: 0 });
  const rpc = createPublicClient({ transport }) as PublicClient;
  const wallet = createWalletClient({ account, transport });
  const nodeWallet = createWalletClient({ transport });
  const mine: string[] = []; // tokens this worker launched (it is their creator)
  const bought = new Set<Address>(); // tokens it bought, that it may sell
  const replica = () => pick(state.replicas);
  // A 429 is waited out as its Retry-After says, per operation and key: meanwhile the worker does other work.
  const blocked = new Map<string, number>();
  let sent = 0;
  const isBlocked = (op: Operation, key: LoadKey = state.keys.traders[index] as LoadKey) =>
    (blocked.get(`${op} ${key.name}`) ?? 0) > Date.now();
  const req = async (
    cls: LoadClass,
    op: Operation,
    method: 'GET' | 'POST',
    path: string,
    extra: {
      query?: Record<string, string | number>;
      body?: unknown;
      key?: LoadKey;
      idem?: string;
      timeoutMs?: number;
    } = {},
  ) => {
    const key = extra.key ?? (state.keys.traders[index] as LoadKey);
    if (isBlocked(op, key)) return { status: -1 } as Awaited<ReturnType<typeof call>>; // not sent
    sent++;
    const r = await call(
      {
        replica: replica(),
        key,
        op,
        cls,
        method,
        path,
        query: extra.query,
        body: extra.body,
        idempotencyKey: extra.idem,
        timeoutMs: extra.timeoutMs,
        keepBody: extra.idem !== undefined,
        source: `127.0.0.${10 + index}`,
      },
      state.validate,
    );
    if (r.retryAfterS !== undefined) blocked.set(`${op} ${key.name}`, Date.now() + r.retryAfterS * 1000);
    return r;
  };

  /**
   * Sends the steps' transactions as this worker's account and signs their typed data (by the node,
   * whose account it is); true when all succeeded, with the last signature.
   */
  const sendSteps = async (kind: string, steps: Step[]): Promise<{ ok: boolean; signature?: Hex }> => {
    let signature: Hex | undefined;
    for (const step of steps) {
      if (step.kind === 'typed_data' && step.typed_data) {
        const t = step.typed_data;
        signature = await nodeWallet
          .signTypedData({ account: account.address, ...t } as never)
          .catch(() => undefined);
        if (!signature) return { ok: false };
        continue;
      }
      if (step.kind !== 'transaction' || !step.transaction) return { ok: false };
      try {
        const tx = step.transaction;
        const hash = await state.sends.send(() =>
          wallet.sendTransaction({ chain: null, to: tx.to, data: tx.data, value: BigInt(tx.value) }),
        );
        const receipt = await rpc.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 15_000 });
        if (receipt.status !== 'success') return { ok: false };
        state.landed.push({ kind, hash });
      } catch {
        return { ok: false }; // a stalled or reorganised chain: the plan is simply not sent
      }
    }
    return { ok: true, signature };
  };

  /** A write with an Idempotency-Key, sometimes first cut off by a short time-out and sent again. */
  const write = async (op: Operation, path: string, body: unknown) => {
    const idem = randomUUID();
    if (rnd() < 0.3)
      await req('write', op, 'POST', path, { body, idem, timeoutMs: 20 + Math.floor(rnd() * 300) });
    // Still running elsewhere (the cut-off attempt): asked again, as its answer says.
    for (let attempt = 0; ; attempt++) {
      const r = await req('write', op, 'POST', path, { body, idem });
      if (r.json?.code !== 'idempotency_in_progress' || attempt === 5) return r;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };

  const read = async () => {
    const own = state.keys.traders[index] as LoadKey;
    const key = rnd() < 0.5 && !isBlocked('token_list', state.keys.reader) ? state.keys.reader : own;
    const chainId = pick([8453, 4663, 143, 5042]);
    const known = state.tokens.get(chainId) ?? [];
    const token = known.length > 0 ? pick(known) : undefined;
    const r = rnd();
    if (r < 0.3)
      await req('read', 'token_list', 'GET', '/v1/tokens', {
        key,
        query: { chain_id: chainId, sort: pick(SORTS), ...(rnd() < 0.3 ? { market: 'standard' } : {}) },
      });
    else if (r < 0.45)
      await req('read', 'token_search', 'GET', '/v1/tokens/search', {
        key,
        query: { chain_id: chainId, q: pick(WORDS) },
      });
    else if (r < 0.6 && token)
      await req('read', 'token_trades', 'GET', `/v1/tokens/${chainId}/${token}/trades`, { key });
    else if (r < 0.7 && token)
      await req('read', 'holder_snapshot', 'GET', `/v1/tokens/${chainId}/${token}/holders`, { key });
    else if (r < 0.8 && token)
      await req('read', 'token_detail', 'GET', `/v1/tokens/${chainId}/${token}`, { key });
    else if (r < 0.87)
      await req('read', 'config', 'GET', '/v1/config', {
        key,
        query: { chain_id: chainId, include: 'chains' },
      });
    else if (r < 0.94)
      await req('read', 'creator_tokens', 'GET', `/v1/creators/${account.address}/tokens`, {
        key,
        query: { chain_id: CHAIN },
      });
    else
      await req('read', 'fee_claims_read', 'GET', `/v1/wallets/${account.address}/fee-claims`, {
        key,
        query: { chain_id: CHAIN },
      });
  };

  const trade = async () => {
    const known = state.tokens.get(CHAIN) ?? [];
    if (known.length === 0 || isBlocked('swap_quote') || isBlocked('swap_prepare')) return read();
    const held = [...bought];
    const sell = held.length > 0 && rnd() < 0.3;
    const token = (sell ? pick(held) : pick(known)) as Address;
    let amount = 10n ** 14n + BigInt(Math.floor(rnd() * 1e6));
    if (sell) {
      const balance = await rpc
        .readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })
        .catch(() => 0n);
      if (balance === 0n) return void bought.delete(token);
      amount = balance / 2n;
    }
    const quote = await req('quote', 'swap_quote', 'POST', '/v1/swaps/quote', {
      body: {
        chain_id: CHAIN,
        wallet: account.address,
        token_address: token,
        side: sell ? 'sell' : 'buy',
        amount_in_raw: String(amount),
        slippage_bps: 300,
      },
    });
    const q = quote.json?.data;
    if (quote.status !== 200 || q?.issues?.some((i: { code: string }) => i.code === 'anti_snipe_active'))
      return;
    // A sell's quote asks first for the Permit2 approval and a permit: sent and signed before preparing.
    const before = await sendSteps(sell ? 'sell approval' : 'buy approval', q.steps ?? []);
    if (!before.ok) return;
    const prepared = await req('swap', 'swap_prepare', 'POST', '/v1/swaps/prepare', {
      body: {
        quote_id: q.quote_id,
        wallet: account.address,
        ...(before.signature ? { permit_signature: before.signature } : {}),
      },
      idem: randomUUID(),
    });
    if (prepared.status !== 200) return;
    if ((await sendSteps(sell ? 'sell' : 'buy', prepared.json.data.steps)).ok && !sell) bought.add(token);
  };

  /** Launches a token as this worker's account, with an image; true when it landed. */
  const launch = async () => {
    const word = pick(WORDS);
    const n = Math.floor(rnd() * 10_000);
    const launched = await write('launch_prepare', '/v1/launches/prepare', {
      chain_id: CHAIN,
      creator: account.address,
      market: 'standard',
      quote_address: zeroAddress,
      token: {
        name: `Soak ${word} ${n}`,
        symbol: `S${n}`,
        image_base64: PNG,
        image_type: 'image/png',
        description: `soak worker ${index}`,
        editable_metadata: true,
      },
    });
    if (launched.status !== 200) return false;
    noteCids(state, launched.text);
    if ((await sendSteps('launch', launched.json.data.steps)).ok) {
      const token = launched.json.data.predicted_token_address as string;
      mine.push(token);
      state.tokens.get(CHAIN)?.push(token);
      return true;
    }
    return false;
  };

  const writeOne = async () => {
    const r = rnd();
    if (r < 0.35 || mine.length === 0) {
      if (isBlocked('launch_prepare')) return read();
      await launch();
      return;
    }
    const token = pick(mine);
    if (r < 0.55) {
      const doc = await write(
        'metadata_document_prepare',
        `/v1/tokens/${CHAIN}/${token}/metadata/document/prepare`,
        {
          actor: account.address,
          document: { description: `updated ${Math.floor(rnd() * 1e6)}` },
        },
      );
      if (doc.status === 200) {
        noteCids(state, doc.text);
        await sendSteps('metadata', doc.json.data.steps);
      }
    } else if (r < 0.7) {
      const post = await write('announcement_prepare', `/v1/tokens/${CHAIN}/${token}/announcements/prepare`, {
        actor: account.address,
        description: `soak news ${Math.floor(rnd() * 1e6)}`,
      });
      if (post.status === 200) await sendSteps('announcement', post.json.data.steps);
    } else if (r < 0.85) {
      const positions = await req(
        'read',
        'fee_claims_read',
        'GET',
        `/v1/wallets/${account.address}/fee-claims`,
        {
          query: { chain_id: CHAIN },
        },
      );
      const claimable = (
        (positions.json?.data ?? []) as {
          claimable_raw: string;
          recipient: string;
          fee_escrow: string;
          currency: string;
        }[]
      )
        .filter((p) => BigInt(p.claimable_raw) > 0n)
        .slice(0, 3);
      if (claimable.length === 0) return;
      const claim = await write('fee_claim_prepare', '/v1/claims/fees/prepare', {
        chain_id: CHAIN,
        caller: account.address,
        claims: claimable.map((p) => ({
          recipient: p.recipient,
          fee_escrow: p.fee_escrow,
          currency: p.currency,
          mode: 'to_recipient',
        })),
      });
      if (claim.status === 200) await sendSteps('fee claim', claim.json.data.steps);
    } else {
      // Its own vested allocation, a step of which unlocks every so often: nothing_to_claim in between.
      const claim = await write('vesting_claim_prepare', '/v1/claims/vesting/prepare', {
        chain_id: CHAIN,
        caller: account.address,
        claims: [
          { beneficiary: account.address, token_address: state.vesting.token, vault: state.vesting.vault },
        ],
      });
      if (claim.status === 200) await sendSteps('vesting claim', claim.json.data.steps);
    }
  };

  return {
    launch,
    async run() {
      while (!state.stopped) {
        const before = sent;
        const r = rnd();
        if (r < 0.8) await read();
        else if (r < 0.95) await trade();
        else await writeOne();
        // Everything it drew was waiting out a 429: a moment before drawing again.
        if (sent === before) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** The CIDs an answer names (ipfs://…). */
function noteCids(state: LoadState, text: string | undefined) {
  for (const m of (text ?? '').matchAll(/ipfs:\/\/([a-z0-9]{20,})/g)) state.cids.add(m[1] as string);
}

/**
 * Keeps the small plans' keys at their limits: reads as fast as they are admitted, each 429 waited out
 * as its Retry-After says (bounded in record.ts).
 */
export async function limitsWorker(state: LoadState, seed: number): Promise<void> {
  const rnd = seeded(seed * 1000 + 999);
  while (!state.stopped) {
    const key = state.keys.tight[Math.floor(rnd() * state.keys.tight.length)] as LoadKey;
    const replica = state.replicas[
      Math.floor(rnd() * state.replicas.length)
    ] as LoadState['replicas'][number];
    const r = await call(
      {
        replica,
        key,
        op: 'token_list',
        cls: 'read',
        method: 'GET',
        path: '/v1/tokens',
        query: { chain_id: CHAIN },
        source: '127.0.0.9',
      },
      state.validate,
    );
    // Told to wait: asks again within a second (to find the window's end), not at once.
    if (r.retryAfterS !== undefined)
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, (r.retryAfterS ?? 1) * 1000)));
  }
}
