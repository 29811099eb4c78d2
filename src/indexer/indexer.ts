// The chain index: per chain, follows every suite's factory (Launched, creator-rights changes), hook
// (Trade, FeeComponentCredited), registry (AnnouncementPosted), escrow (Credited, Claimed), the PoolManager (Swap) and the
// launch tokens (Transfer, metadata updates) from the suites' first block, in block ranges, then the
// head. Reorg-safe: the hash of every indexed block with events (and of each range end) is kept;
// when the chain no longer has one of them, rows above the highest kept block below it that the chain
// still has are deleted and those blocks are indexed again.
import {
  type Abi,
  type AbiEvent,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  isAddress,
  numberToHex,
  parseAbi,
  toEventSelector,
  zeroAddress,
} from 'viem';
import * as A from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import {
  AnswerTooLarge,
  MAX_ANSWER_BYTES,
  type RpcEndpoint,
  type RpcRequest,
  UpstreamFailure,
} from '../chain/rpc.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { tokenIsCurrency0 } from '../launchpad/pool.ts';
import { type Insertable, sql, type Transaction } from 'kysely';
import { type Database, insertMany, type Tables } from '../store/db.ts';
import { refreshMarket } from './marketRefresh.ts';
import { addTradeTotals, recountTradeTotals } from './tradeTotals.ts';
import { checksum, decodeLog, type DecodedEvent, hexNumber } from './decodeLog.ts';
import { type ChainText, chainText, chainText32, eventStrings } from './chainText.ts';
import { searchText, searchWords } from './words.ts';
import { applyTransfers, readUnknownBalances, undoBalancesAbove } from './holderBalances.ts';
import { appendEvents, type JournalEntry, pruneEvents, removeEventsAbove } from './journal.ts';
import { announceCommitted, notifyInTransaction } from '../store/wakeups.ts';

const SWAP_ABI = parseAbi([
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
]);
const events = (abi: unknown, names: string[]) =>
  (abi as Abi).filter((x) => x.type === 'event' && names.includes(x.name));
const EVENTS: Abi = [
  ...events(A.LaunchFactoryAbi, [
    'Launched',
    'CreatorRightsTransferred',
    'CreatorRightsReassigned',
    'CreatorFeeRecipientUpdated',
  ]),
  ...events(A.LaunchHookAbi, ['Trade', 'FeeComponentCredited']),
  ...(A.AnnouncementRegistryAbi as Abi).filter((x) => x.type === 'event' && x.name === 'AnnouncementPosted'),
  ...(A.FeeEscrowAbi as Abi).filter(
    (x) => x.type === 'event' && (x.name === 'Credited' || x.name === 'Claimed'),
  ),
  ...(SWAP_ABI as Abi),
];
const TOPICS = EVENTS.map((e) => toEventSelector(e as never));
const LAUNCHED_TOPIC = toEventSelector('Launched(address,bytes32,address,address,uint256,int24)');
const SWAP_TOPIC = toEventSelector(SWAP_ABI[0]);
/** The range's Launched logs, before decoding: the token is the first indexed field. */
const launchLogsOf = (logs: Log[]) => logs.filter((l) => l.topics[0] === LAUNCHED_TOPIC && l.topics[1]);
const launchedToken = (log: Log) => checksum(`0x${(log.topics[1] as Hex).slice(26)}`);
/** Events of the launch tokens themselves: transfers (holder candidates) and metadata updates. */
const TOKEN_EVENTS: Abi = events(A.LaunchTokenAbi, [
  'Transfer',
  'NameUpdated',
  'SymbolUpdated',
  'ContractURIUpdated',
  'ExtraMetadataUpdated',
]);
const TOKEN_TOPICS = TOKEN_EVENTS.map((e) => toEventSelector(e as never));
const BY_TOPIC = new WeakMap<Abi, Map<Hex, AbiEvent>>();
/** An ABI's events by their topic, computed once per ABI. */
function eventByTopic(abi: Abi): Map<Hex, AbiEvent> {
  let map = BY_TOPIC.get(abi);
  if (!map) {
    map = new Map(
      abi.filter((x): x is AbiEvent => x.type === 'event').map((e) => [toEventSelector(e), e] as const),
    );
    BY_TOPIC.set(abi, map);
  }
  return map;
}
const STRING_INPUTS = new WeakMap<AbiEvent, boolean>();
/** Whether an event has `string` inputs (read apart as safe text), computed once per event. */
function hasStrings(event: AbiEvent): boolean {
  let has = STRING_INPUTS.get(event);
  if (has === undefined) {
    has = event.inputs.some((i) => i.type === 'string');
    STRING_INPUTS.set(event, has);
  }
  return has;
}
/** The `strings` of an event without string inputs. */
const NO_STRINGS: Readonly<Record<string, ChainText>> = Object.freeze({});
/** Factory events that change a token's creator or fee recipient. */
const RIGHTS_EVENTS = new Set([
  'CreatorRightsTransferred',
  'CreatorFeeRecipientUpdated',
  'CreatorRightsReassigned',
]);
const abs = (x: bigint) => (x < 0n ? -x : x);
/** The token fields that change after a launch, kept as rows of token_updates (`extra:<key>` too). */
const FIELDS = ['name', 'symbol', 'metadata_uri', 'current_creator', 'fee_recipient'] as const;
const RIGHTS_VIEW = (A.LaunchFactoryAbi as Abi).filter(
  (x) => x.type === 'function' && x.name === 'creatorRights',
);
/** eth_calls made at each launch's block: name, symbol, contractURI, creatorRights. */
const READS_PER_LAUNCH = 4;
// The token's string views, decoded as the bytes they are (see chainText.ts).
const TOKEN_VIEWS = parseAbi([
  'function name() view returns (bytes)',
  'function symbol() view returns (bytes)',
  'function contractURI() view returns (bytes)',
]);

/** A view's answer as safe text; an answer that does not decode is empty text with its raw bytes kept. */
function viewText(fn: 'name' | 'symbol' | 'contractURI', data: Hex | undefined): ChainText {
  try {
    return chainText(decodeFunctionResult({ abi: TOKEN_VIEWS, functionName: fn, data: data ?? '0x' }) as Hex);
  } catch {
    return { text: '', raw: data ?? '0x' };
  }
}

/** The raw bytes of the fields whose text is not exactly them, as JSON; null when there are none. */
function rawHexOf(fields: Record<string, Hex | null>): string | null {
  const lossy = Object.entries(fields).filter(([, v]) => v !== null);
  return lossy.length > 0 ? JSON.stringify(Object.fromEntries(lossy)) : null;
}

/** Blocks per eth_getLogs request, at most. */
const RANGE = 2_000;
/**
 * Logs a range should bring, about: a busy stretch of the chain is read in shorter ranges, so that a
 * tick's memory is bounded by this, not by how busy the chain was. (A node's own cap on the logs of an
 * answer, often 10,000, applies to each request; a range it refuses is halved.) Small, since a range's
 * answer is built, sent and parsed whole: 5,000 against 20,000 gave the index bench's judged backfill
 * pass in less time and CPU, and the indexer less memory (docs/DESIGN.md, "A range is as long…").
 */
const RANGE_LOGS = 5_000;
/**
 * The largest answer a range's log reads take (a range's own answers, RANGE_LOGS logs at ~1 KB of JSON
 * each, are about 5 MB): a burst after a quiet stretch, which grew the range, is refused early and read again
 * in an eighth of the blocks, rather than parsed whole (a 250 MB answer held ~1 GB). A range of one block
 * may take up to MAX_ANSWER_BYTES, since it cannot be split.
 */
const RANGE_ANSWER_BYTES = 64 * 2 ** 20;
/** The answer limit of a range's log reads, by the blocks it spans. */
const answerLimit = (blocks: number) => (blocks > 1 ? RANGE_ANSWER_BYTES : MAX_ANSWER_BYTES);
/** Blocks of an indexer's first range. */
const FIRST_SPAN = 8;

/**
 * The next range's length in blocks, from the current one (`span`) and the last range read (`blocks`
 * long, ending at the head when shorter, with `logs` logs): shorter in proportion past RANGE_LOGS,
 * twice as long (up to RANGE) below half of it.
 */
export function nextSpan(span: number, blocks: number, logs: number): number {
  if (logs > RANGE_LOGS) return Math.max(1, Math.floor((blocks * RANGE_LOGS) / logs));
  return logs < RANGE_LOGS / 2 ? Math.min(RANGE, Math.max(span, blocks * 2)) : span;
}
/**
 * Whether a range of `blocks` blocks is too busy to index whole, from its swaps alone: more of them than
 * a whole range should bring (each brings its trade, fee credits and transfers besides). A block alone is
 * indexed however busy, since it cannot be split.
 */
const tooBusy = (blocks: number, swaps: number) => blocks > 1 && swaps > RANGE_LOGS;
/**
 * Launch tokens asked for by address, at most (500 a request); a chain with more has its token events
 * asked for by topic alone, from every contract, and kept for its launch tokens.
 */
const ADDRESS_LIST = 2_000;
/** Block hashes kept for reorg checks (older ones are final enough). */
const KEEP_BLOCKS = 1_000;
/** How often the most recent kept blocks are checked against the node even when no read saw a reorg. */
const RECHECK_MS = 10_000;

interface Log {
  address: Address;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  /** The block's timestamp, where the node adds it to logs. */
  blockTimestamp?: Hex;
}

const num = (v: number | string | bigint) => Number(v);

/** Whether logs (and the range's end block) show a block number with two hashes: a reorg between reads. */
function forked(logs: Log[], to: number, toHash: Hex): boolean {
  const hashes = new Map<number, Hex>([[to, toHash]]);
  for (const log of logs) {
    const number = hexNumber(log.blockNumber);
    const seen = hashes.get(number);
    if (seen === undefined) hashes.set(number, log.blockHash);
    else if (seen !== log.blockHash) return true;
  }
  return false;
}

/** A decoded log, with its `string` arguments as safe text. */
interface Decoded {
  log: Log;
  /** The log's index in its block (parsed once: the joins below compare it many times). */
  index: number;
  event: DecodedEvent;
  strings: Record<string, ChainText>;
}

/** A launch token's pool: the token and its quote. */
interface Pool {
  address: string;
  quote_address: string;
}

/** Where a log is: the key of every row made from one. */
const positionOf = (chainId: ChainId, log: Log) => ({
  chain_id: chainId,
  tx_hash: log.transactionHash,
  log_index: hexNumber(log.logIndex),
  block_number: hexNumber(log.blockNumber),
});

/**
 * The trades of a range (each PoolManager Swap of a launch pool, joined with the hook's Trade) and the
 * fee components credited for them, from its decoded logs. A trade's trader and time are left for the
 * caller: they come from the node.
 */
function tradeRows(chainId: ChainId, decoded: Decoded[], swaps: Decoded[], pools: Map<Hex, Pool>) {
  // The hook's Trade and FeeComponentCredited events by transaction and pool, in log order, for the
  // join below (a transaction may hold hundreds of swaps: each is joined by a binary search).
  // (By transaction, then pool: two lookups of the strings the node sent, whose hashes V8 keeps, rather
  // than a joined key made and hashed for each log.)
  const poolOf = (d: Decoded) => (d.event.args as unknown as { poolId: Hex }).poolId;
  const tradeEvents = new Map<string, Map<string, Decoded[]>>();
  const creditEvents = new Map<string, Map<string, Decoded[]>>();
  const eventsOf = (by: Map<string, Map<string, Decoded[]>>, tx: string, pool: string) =>
    by.get(tx)?.get(pool) ?? [];
  for (const d of decoded) {
    const by =
      d.event.eventName === 'Trade'
        ? tradeEvents
        : d.event.eventName === 'FeeComponentCredited'
          ? creditEvents
          : null;
    if (!by) continue;
    let pools = by.get(d.log.transactionHash);
    if (!pools) by.set(d.log.transactionHash, (pools = new Map()));
    const list = pools.get(poolOf(d));
    if (list) list.push(d);
    else pools.set(poolOf(d), [d]);
  }
  for (const by of [tradeEvents, creditEvents])
    for (const pools of by.values())
      for (const list of pools.values()) list.sort((a, b) => a.index - b.index);
  /** The position of the first of `list` (in log order) after log index `after`. */
  const firstAfter = (list: Decoded[], after: number) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid] as Decoded).index > after) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const credits: Insertable<Tables['fee_credits']>[] = [];
  /** Each credit's trade, by the credit's position in `credits` (its journal entry is the trade's). */
  const creditTrades: number[] = [];
  const trades: {
    log: Log;
    row: Insertable<Tables['trades']> & { trader: string; timestamp: number; block_number: number };
  }[] = [];
  for (const { log, index: swapIndex, event } of swaps) {
    const s = event.args as unknown as {
      id: Hex;
      amount0: bigint;
      amount1: bigint;
      sqrtPriceX96: bigint;
    };
    const token = pools.get(s.id);
    if (!token) continue; // a pool of another hook
    // The hook's Trade of the same swap: same transaction and pool (the PoolManager logs Swap before
    // the hook's afterSwap logs Trade); with several swaps of one pool in a transaction, the
    // nearest Trade after this Swap.
    const poolTrades = eventsOf(tradeEvents, log.transactionHash, s.id);
    const at = firstAfter(poolTrades, swapIndex);
    const trade = poolTrades[at];
    const t = trade?.event.args as { referrer: Address; totalFeeAmount: bigint; comment: Hex } | undefined;
    if (trade) {
      // The fee components credited for this swap: the hook's credits of this pool between the
      // previous Trade of the pool in the transaction and this one (buys credit before the swap,
      // sells after it; each swap ends with its Trade).
      const previous = at > 0 ? (poolTrades[at - 1] as Decoded).index : -1;
      const poolCredits = eventsOf(creditEvents, log.transactionHash, s.id);
      for (let i = firstAfter(poolCredits, previous); i < poolCredits.length; i++) {
        const c = poolCredits[i] as Decoded;
        if (c.index >= trade.index) break;
        const a = c.event.args as unknown as {
          componentId: Hex;
          recipient: Address;
          currency: Address;
          amount: bigint;
        };
        credits.push({
          ...positionOf(chainId, c.log),
          swap_log_index: swapIndex,
          component: chainText32(a.componentId).text.slice(0, 32),
          recipient: a.recipient,
          currency: a.currency,
          amount: a.amount.toString(),
        });
        creditTrades.push(trades.length);
      }
    }
    const tokenIs0 = tokenIsCurrency0(token.address, token.quote_address);
    const tokenDelta = tokenIs0 ? s.amount0 : s.amount1;
    const quoteDelta = tokenIs0 ? s.amount1 : s.amount0;
    const fee = t?.totalFeeAmount ?? 0n;
    // Swap amounts exclude the hook fee: a buy's input is the pool's quote plus the fee; a sell's
    // output is the pool's quote minus it.
    const buy = tokenDelta > 0n;
    const quoteAmount = buy ? abs(quoteDelta) + fee : abs(quoteDelta) - fee;
    trades.push({
      log,
      row: {
        chain_id: chainId,
        tx_hash: log.transactionHash,
        log_index: swapIndex,
        block_number: hexNumber(log.blockNumber),
        block_hash: log.blockHash,
        timestamp: 0, // filled in with the block's time
        token: token.address,
        trader: zeroAddress as string, // filled in from the transaction
        side: buy ? 'buy' : 'sell',
        amount_in_raw: (buy ? quoteAmount : abs(tokenDelta)).toString(),
        amount_out_raw: (buy ? abs(tokenDelta) : quoteAmount).toString(),
        quote_amount_raw: quoteAmount.toString(),
        token_amount_raw: abs(tokenDelta).toString(),
        fee_raw: fee.toString(),
        fee_currency: token.quote_address,
        referrer: t && t.referrer !== zeroAddress ? t.referrer : null,
        comment: t ? chainText32(t.comment).text : '',
        sqrt_price_x96: s.sqrtPriceX96.toString(),
      } satisfies Insertable<Tables['trades']>,
    });
  }
  return { trades, credits, creditTrades };
}

/** What the node answered for a range (see `readRange`). */
interface RangeRead {
  head: number;
  /** The hash of the block before the range (null: the node has none). */
  parent: Hex | null;
  rest?: Log[];
  /** The range's end block, read before its logs. */
  toBlock?: { hash: Hex } | null;
  swaps?: ReturnType<ChainIndexer['swaps']>;
  /** The range's token events from every contract, when the chain has too many tokens to name them. */
  tokenEvents?: Promise<Log[]>;
}

/** The search words of a token's name and symbol (kept at its launch block, for reorgs). */
async function writeWords(
  trx: Transaction<Tables>,
  chainId: ChainId,
  token: string,
  name: string,
  symbol: string,
  launch: { block: number | string | bigint; time: number | string | bigint },
): Promise<void> {
  const words = searchWords(name, symbol);
  if (words.length === 0) return;
  const text = searchText(name, symbol);
  await trx
    .insertInto('token_words')
    .values(
      words.map((word) => ({
        chain_id: chainId,
        word,
        address: token,
        block_number: Number(BigInt(launch.block)),
        created_at: Number(launch.time),
        search_words: text,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Sets tokens' changeable fields (and their search words) to their latest surviving updates. */
export async function refreshFields(
  trx: Transaction<Tables>,
  chainId: ChainId,
  tokens: string[],
): Promise<void> {
  for (const token of tokens) {
    const rows = await trx
      .selectFrom('token_updates')
      .select(['field', 'value', 'raw_hex'])
      .where('chain_id', '=', chainId)
      .where('token', '=', token)
      .where('field', 'in', [...FIELDS])
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    const raw = Object.fromEntries(rows.map((r) => [r.field, r.raw_hex ?? null])) as Record<
      string,
      Hex | null
    >;
    const latest = Object.fromEntries(rows.map((r) => [r.field, r.value])) as Record<
      (typeof FIELDS)[number],
      string | undefined
    >;
    const launch = await trx
      .selectFrom('tokens')
      .select(['block_number', 'created_at'])
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .executeTakeFirst();
    if (!launch || latest.name === undefined) continue; // not a token of ours, or its launch is orphaned
    const words = searchText(latest.name, latest.symbol ?? '');
    await trx
      .updateTable('tokens')
      .set({
        name: latest.name,
        symbol: latest.symbol ?? '',
        search_words: words,
        metadata_uri: latest.metadata_uri ?? '',
        current_creator: latest.current_creator ?? '',
        fee_recipient: latest.fee_recipient ?? '',
        raw_hex: rawHexOf({
          name: raw.name ?? null,
          symbol: raw.symbol ?? null,
          metadata_uri: raw.metadata_uri ?? null,
        }),
      })
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .execute();
    // (Its market row keeps them too, for ranked searches: the chain's refresh runs between its ranges.)
    await trx
      .updateTable('token_market')
      .set({ search_words: words })
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .execute();
    await trx
      .deleteFrom('token_words')
      .where('chain_id', '=', chainId)
      .where('address', '=', token)
      .execute();
    await writeWords(trx, chainId, token, latest.name, latest.symbol ?? '', {
      block: launch.block_number,
      time: launch.created_at,
    });
  }
}

export class ChainIndexer {
  private seenHead = -1;
  /**
   * Blocks the next range spans (see RANGE_LOGS): a few at first, since how busy the chain is there is
   * not known yet, then twice as many a range while the logs stay few.
   */
  private span = FIRST_SPAN;
  /** Blocks of the range the last tick asked for. */
  private tried = FIRST_SPAN;
  /** Blocks of the last range indexed: a longer one is read swaps first (see `readRange`). */
  private proven = 0;
  /** Whether the last tick indexed a range (empty or not): a backfill goes on without pausing. */
  moved = false;
  /** The next range, read while the last one was written. */
  private ahead?: { from: number; to: number; read: Promise<RangeRead> };
  /** The last block this indexer wrote (or found kept and canonical), and its hash (see `step`). */
  private last?: { number: number; hash: string };
  /** When the kept blocks were last checked against the node, and the highest one it found (`undoReorg`). */
  private checked = -Infinity;
  private checkedThrough = -1;
  /**
   * Whether the chain has more launch tokens than ADDRESS_LIST: their events are then asked for by topic
   * alone, with the range's other logs (so read ahead with them). Once true it stays so (a reorg removes
   * a few tokens at most, and asking by topic is right for any number).
   */
  private manyTokens = false;

  constructor(
    readonly chainId: ChainId,
    private readonly endpoint: RpcEndpoint,
    private readonly database: Database,
    private readonly deployments: Deployments,
    private readonly recheckMs = RECHECK_MS,
  ) {}

  /** Where this chain's data comes from (for the market refresh). */
  get source() {
    return { chainId: this.chainId, endpoint: this.endpoint, deployments: this.deployments };
  }

  /** Every suite of the chain, current and historical: they share the event shapes indexed here. */
  private get suites() {
    return this.deployments.get(this.chainId)?.suites ?? [];
  }

  async indexedThrough(): Promise<number> {
    const row = await this.database.db
      .selectFrom('index_state')
      .select('indexed_through')
      .where('chain_id', '=', this.chainId)
      .executeTakeFirst();
    if (row) return num(row.indexed_through);
    const first = Math.min(...this.suites.map((s) => s.first_block));
    return Number.isFinite(first) ? first - 1 : -1;
  }

  /** One step: undo a reorg if there was one, then index the next range. Returns logs applied. */
  async tick(): Promise<number> {
    this.moved = false;
    try {
      return await this.step();
    } catch (err) {
      // A node refusing a range's logs (too many, too wide) is asked for half of it next time. An answer
      // too large to read (a burst after a long quiet stretch grew the range), or not gathered in time
      // (the same burst at a node without a cap on logs: asked for again as it was, it never would be),
      // for an eighth.
      const timedOut = err instanceof UpstreamFailure && err.kind === 'timeout';
      if (err instanceof AnswerTooLarge || timedOut) this.span = Math.max(1, Math.floor(this.tried / 8));
      else if (String(err).includes('eth_getLogs failed'))
        this.span = Math.max(1, Math.floor(this.tried / 2));
      throw err;
    }
  }

  private async step(): Promise<number> {
    if (this.suites.length === 0) return 0;
    let through = await this.indexedThrough();
    // The blocks kept for reorgs are checked against the node when this indexer does not know the last
    // block written, and every `recheckMs`: otherwise each range's read carries the hash of the block
    // before it, which is that block's if no reorg came (a block's hash covers its parent's, so every
    // block below it too). (Asked for at each tick, the kept blocks were a batch of 64 block reads a range
    // for the node.) The recheck mends what no range's read can see: a node behind a balancer that
    // answered a range from a fork its peers left.
    if (performance.now() - this.checked >= this.recheckMs) this.last = undefined;
    if (this.last?.number !== through) through = await this.undoReorg(through);
    // A block is indexed from the tick after the one that first saw it as the head: a node can report a
    // new head a moment before its logs can be queried, and a block indexed without them would stay so.
    // So the range is known before this tick's head, which is asked for with the range's end.
    // A range read ahead while the previous one was written is taken if it starts here.
    const ahead = this.ahead?.from === through ? this.ahead : undefined;
    this.ahead = undefined;
    const to = ahead?.to ?? Math.min(this.seenHead, through + this.span);
    this.tried = Math.max(1, to - through);
    const previousHead = this.seenHead;
    const { head, parent, rest, toBlock, swaps, tokenEvents } = await (ahead?.read ??
      this.readRange(through, to, to - through > this.proven));
    this.seenHead = head;
    // The chain moved under the last block written (or while its range's logs were read): the next tick
    // finds the fork from the kept blocks.
    if (this.last && parent !== this.last.hash) {
      this.last = undefined;
      return 0;
    }
    // A node now behind the range (a reorg to a shorter chain, or another node behind a balancer): its
    // answers for the range are not used, and the next tick asks again up to the head it reports.
    if (!swaps || !toBlock) return 0;
    const swapLogs = await swaps.logs;
    // A burst: the range is read again (its other logs were not asked for, or are dropped), through the
    // block before its swaps pass a quarter of RANGE_LOGS (each brings several other logs), at least one.
    if (tooBusy(to - through, swapLogs.length)) {
      const cut = hexNumber((swapLogs[RANGE_LOGS / 4] as Log).blockNumber);
      this.span = Math.max(1, cut - 1 - through);
      return 0;
    }
    if (!rest || (await swaps.head) < to) return 0;
    const logs = [...rest, ...swapLogs];
    // The swaps and the other logs come from two requests, which may straddle a reorg: a block seen
    // with two hashes has the range read again at the next tick.
    if (forked(logs, to, toBlock.hash)) return 0;
    const span = nextSpan(this.span, to - through, logs.length);
    // Transfers of launch tokens: those known before this range and those launched in it.
    const known = this.manyTokens
      ? []
      : await this.database.db
          .selectFrom('tokens')
          .select('address')
          .where('chain_id', '=', this.chainId)
          .limit(ADDRESS_LIST + 1)
          .execute();
    if (known.length > ADDRESS_LIST) this.manyTokens = true;
    const launchedNow = launchLogsOf(logs).map(launchedToken);
    // Fetched while `apply` reads what the range's own logs need (by topic: read with the range).
    const tokenLogs = this.manyTokens
      ? this.launchTokenLogs(tokenEvents ?? this.tokenEvents(through + 1, to), launchedNow)
      : this.tokenLogs(through + 1, to, [...new Set([...known.map((t) => t.address), ...launchedNow])]);
    tokenLogs.catch(() => {}); // awaited in apply; this only keeps an early failure from going unhandled
    // The next range (up to the head seen before this tick, as above) is read while this one is
    // written: the node's time and the database's overlap, two ranges in memory at most. Its first
    // request, which checks this range's end again, waits for this range's last logs.
    const nextTo = Math.min(previousHead, to + span);
    if (nextTo > to) {
      const read = this.readRange(to, nextTo, nextTo - to > to - through, tokenLogs);
      this.ahead = { from: to, to: nextTo, read };
      read.catch(() => {}); // awaited by the next tick, or dropped
    }
    await this.apply(logs, to, toBlock.hash, tokenLogs, swaps.senders);
    this.last = { number: to, hash: toBlock.hash };
    this.span = span;
    this.proven = to - through;
    this.moved = true;
    return logs.length;
  }

  /**
   * The node's head, the hashes of the blocks before the range and at its end, and then the logs of
   * blocks through+1..to (when there are any): the swaps (with their senders, asked for as soon as they
   * come), the suites' other logs. The end's hash is read before any log, and the next range's read asks
   * for it again (its `parent`) once every log of this one came (see `after`): the same hash both times,
   * no reorg reached the range while its logs were read, whatever order a node served them in (a log
   * read from a fork the node left is otherwise invisible when its block has no other log of the range).
   * With `swapsFirst` (a range longer than the last one indexed, after a quiet stretch grew it), the
   * other logs are asked for once the swaps came, and not at all when they show a burst (`tooBusy`): a
   * node without a cap on an answer's logs builds the whole answer before it sends any of it, so that a
   * range grown into a burst kept it busy for longer than the time-out (bench: 640k logs for 64 blocks,
   * 5 s lost and then its rebuilding), where the burst's swaps alone are an eighth of them.
   */
  private async readRange(
    through: number,
    to: number,
    swapsFirst: boolean,
    after?: Promise<unknown>,
  ): Promise<RangeRead> {
    await after?.catch(() => {});
    const c = this.suites.map((s) => s.contracts);
    const addresses = [
      ...new Set(
        c
          .flatMap((x) => [x.factory, x.hook, x.announcement_registry, x.pool_manager, x.fee_escrow])
          // A field the factory could not be asked for yet (from_factory) is not an address to follow.
          .filter((a) => isAddress(a, { strict: false }))
          .map((a) => checksum(a)),
      ),
    ];
    const poolManagers = new Set(
      c.filter((x) => isAddress(x.pool_manager, { strict: false })).map((x) => checksum(x.pool_manager)),
    );
    const range =
      to > through ? { fromBlock: numberToHex(through + 1), toBlock: numberToHex(to) } : undefined;
    const ends: RpcRequest[] = [
      { method: 'eth_blockNumber', params: [] },
      // The block before the range, whose hash says whether the chain below it is still the one written.
      { method: 'eth_getBlockByNumber', params: [numberToHex(Math.max(0, through)), false] },
      ...(range ? [{ method: 'eth_getBlockByNumber', params: [numberToHex(to), false] }] : []),
    ];
    const [headHex, below, toBlock] = (await this.endpoint.batchResults(ends)) as [
      Hex,
      { hash: Hex } | null,
      { hash: Hex } | null | undefined,
    ];
    const head = Number(BigInt(headHex));
    const parent = below?.hash ?? null;
    if (!range || !toBlock || head < to) return { head, parent };
    // The range's swaps come alone and first: their transactions (the traders) are its
    // largest read, and they are asked for while the rest of its logs come.
    const limit = answerLimit(to - through);
    const swaps = this.swaps(range, [...poolManagers], limit, to - through);
    if (swapsFirst && tooBusy(to - through, (await swaps.logs).length))
      return { head, parent, toBlock, swaps };
    const tokenEvents = this.manyTokens ? this.tokenEvents(through + 1, to) : undefined;
    tokenEvents?.catch(() => {}); // awaited in apply, or dropped with the range
    const requests: RpcRequest[] = [
      // (The node answering has the range: one behind a balancer would leave its logs out.)
      { method: 'eth_blockNumber', params: [] },
      {
        method: 'eth_getLogs',
        params: [
          {
            ...range,
            address: addresses.filter((a) => !poolManagers.has(a)),
            topics: [TOPICS.filter((t) => t !== SWAP_TOPIC)],
          },
        ],
      },
    ];
    const [restHead, rest] = (await this.endpoint.batchResults(requests, limit)) as [Hex, Log[]];
    if (Number(BigInt(restHead)) < to) return { head, parent, swaps };
    return { head, parent, rest, toBlock, swaps, tokenEvents };
  }

  /**
   * The range's Swap logs of the followed PoolManagers, asked for alone with the node's head, and the
   * senders of their transactions (the traders), asked for as soon as the logs come.
   */
  private swaps(
    range: { fromBlock: Hex; toBlock: Hex },
    poolManagers: Address[],
    limit: number,
    blocks: number,
  ) {
    const requests: RpcRequest[] = [
      { method: 'eth_blockNumber', params: [] },
      // An empty address list would follow every contract.
      ...(poolManagers.length > 0
        ? [{ method: 'eth_getLogs', params: [{ ...range, address: poolManagers, topics: [[SWAP_TOPIC]] }] }]
        : []),
    ];
    const answers = this.endpoint.batchResults<unknown>(requests, limit);
    const head = answers.then(([hex]) => Number(BigInt(hex as Hex)));
    const logs = answers.then(([, list]) => (list ?? []) as Log[]);
    const senders = logs.then(async (list) => {
      if (tooBusy(blocks, list.length)) return new Map<Hex, Address>(); // the range is read again
      const hashes = [...new Set(list.map((l) => l.transactionHash))];
      const froms = await this.endpoint.batchResultsInChunks(
        // The transaction, not its receipt: a receipt carries every log of the transaction again.
        hashes.map((hash) => ({ method: 'eth_getTransactionByHash', params: [hash] })),
        100,
        4,
        // Only the sender is kept.
        (tx) => (tx as { from: Address } | null)?.from,
      );
      return new Map(
        froms.map((from, i) => {
          // A node that sent the log has the transaction, unless it is not the node that answered here.
          if (!from) throw new Error(`the node has no transaction ${hashes[i]}, the sender of logs it sent`);
          return [hashes[i] as Hex, checksum(from)];
        }),
      );
    });
    for (const p of [head, logs, senders]) p.catch(() => {}); // awaited by tick and apply
    return { head, logs, senders };
  }

  /** Transfers and metadata updates of blocks from..to from every contract: one request. */
  private async tokenEvents(from: number, to: number): Promise<Log[]> {
    const [all] = await this.endpoint.batchResults<Log[]>(
      [
        {
          method: 'eth_getLogs',
          params: [{ fromBlock: numberToHex(from), toBlock: numberToHex(to), topics: [TOKEN_TOPICS] }],
        },
      ],
      answerLimit(to - from + 1),
    );
    return all ?? [];
  }

  /**
   * The token events (`tokenEvents`) of the launch tokens among their emitters: those indexed before
   * and `launchedNow`.
   */
  private async launchTokenLogs(events: Promise<Log[]>, launchedNow: string[]): Promise<Log[]> {
    const all = await events;
    const emitters = [...new Set((all ?? []).map((l) => checksum(l.address)))];
    const ours = new Set(launchedNow);
    for (let i = 0; i < emitters.length; i += 500) {
      const rows = await this.database.db
        .selectFrom('tokens')
        .select('address')
        .where('chain_id', '=', this.chainId)
        .where('address', 'in', emitters.slice(i, i + 500))
        .execute();
      for (const r of rows) ours.add(r.address);
    }
    return all.filter((l) => ours.has(checksum(l.address)));
  }

  /** Transfers and metadata updates of the launch tokens in the range, 500 tokens per request. */
  private async tokenLogs(from: number, to: number, tokens: string[]): Promise<Log[]> {
    const out: Log[] = [];
    for (let i = 0; i < tokens.length; i += 500) {
      const [chunk] = await this.endpoint.batchResults<Log[]>(
        [
          {
            method: 'eth_getLogs',
            params: [
              {
                fromBlock: numberToHex(from),
                toBlock: numberToHex(to),
                address: tokens.slice(i, i + 500),
                topics: [TOKEN_TOPICS],
              },
            ],
          },
        ],
        answerLimit(to - from + 1),
      );
      out.push(...(chunk ?? []));
    }
    return out;
  }

  /**
   * The highest indexed block still on the chain; rows above it are deleted. With no reorg, that block
   * becomes the last one known (`last`), which the next ranges' reads check. The kept blocks checked are
   * the 64 newest and every one written since the last check (a busy chain may have written hundreds).
   */
  private async undoReorg(through: number): Promise<number> {
    const stored = (
      await this.database.db
        .selectFrom('index_blocks')
        .select(['number', 'hash'])
        .where('chain_id', '=', this.chainId)
        .orderBy('number', 'desc')
        .limit(KEEP_BLOCKS)
        .execute()
    ).filter((b, i) => i < 64 || num(b.number) > this.checkedThrough);
    if (stored.length === 0) {
      this.checked = performance.now();
      return through;
    }
    // (A read the node failed throws: that is no fork, and the check is made again at the next tick.)
    const onChain = await this.endpoint.batchResultsInChunks<{ hash: string } | null>(
      stored.map((b) => ({ method: 'eth_getBlockByNumber', params: [numberToHex(num(b.number)), false] })),
    );
    this.checked = performance.now();
    // Below the lowest kept block the node does not have: one that matches above it was written from two
    // forks' reads (see the recheck in `step`), and its hash alone says nothing of the blocks below.
    const differs = stored.map((b, i) => onChain[i]?.hash !== b.hash);
    const lowest = differs.lastIndexOf(true);
    const keep = lowest === -1 ? 0 : lowest + 1 < stored.length ? lowest + 1 : -1;
    if (keep === 0) {
      const top = stored[0] as { number: number | string; hash: string };
      this.checkedThrough = num(top.number);
      if (num(top.number) === through) this.last = { number: through, hash: top.hash };
      return through;
    }
    this.last = undefined;
    // Everything above the last surviving block (or all the kept window, if none survives) goes.
    const fork =
      keep > 0
        ? num((stored[keep] as { number: number }).number)
        : num((stored.at(-1) as { number: number }).number) - 1;
    await this.database.db.transaction().execute(async (trx) => {
      const chain = this.chainId;
      const tokensAbove = async (table: 'token_updates' | 'trades') =>
        (
          await trx
            .selectFrom(table)
            .select('token')
            .distinct()
            .where('chain_id', '=', chain)
            .where('block_number', '>', fork)
            .execute()
        ).map((r) => r.token);
      // Tokens whose fields changed above the fork get them back from the surviving updates.
      const changed = await tokensAbove('token_updates');
      // The tokens traded above the fork: their totals are counted again from the trades that survive.
      const retraded = await tokensAbove('trades');
      // Market data: tokens launched above the fork go; rows of tokens traded above it are marked, so that
      // the next refresh recomputes them (until then they keep their values). Tokens traded again since
      // are found from the fork (market_state's as_of_block below).
      await trx
        .deleteFrom('token_market')
        .where('chain_id', '=', chain)
        .where('address', 'in', (eb) =>
          eb
            .selectFrom('tokens')
            .select('address')
            .where('chain_id', '=', chain)
            .where('block_number', '>', fork),
        )
        .execute();
      await trx
        .updateTable('token_market')
        .set({ rebuild: 1 })
        .where('chain_id', '=', chain)
        .where('as_of_block', '>', fork)
        .where('address', 'in', (eb) =>
          eb
            .selectFrom('trades')
            .select('token')
            .where('chain_id', '=', chain)
            .where('block_number', '>', fork),
        )
        .execute();
      await trx
        .updateTable('market_state')
        .set({ as_of_block: fork })
        .where('chain_id', '=', chain)
        .where('as_of_block', '>', fork)
        .execute();
      for (const t of [
        'tokens',
        'token_words',
        'token_updates',
        'trades',
        'fee_credits',
        'announcements',
        'fee_events',
        'fee_positions',
        'skipped_logs',
      ] as const)
        await trx.deleteFrom(t).where('chain_id', '=', chain).where('block_number', '>', fork).execute();
      await trx.deleteFrom('index_blocks').where('chain_id', '=', chain).where('number', '>', fork).execute();
      await recountTradeTotals(this.database, trx, chain, retraded);
      await undoBalancesAbove(trx, chain, fork);
      await refreshFields(trx, chain, changed);
      // The stream's removals: every journal event above the fork (the high water stays where it was).
      const state = await trx
        .selectFrom('index_state')
        .select(['indexed_through', 'high_water'])
        .where('chain_id', '=', chain)
        .executeTakeFirst();
      const highWater = Math.max(num(state?.indexed_through ?? fork), num(state?.high_water ?? fork));
      if ((await removeEventsAbove(this.database, trx, chain, fork, highWater)) > 0)
        await notifyInTransaction(this.database, trx, chain);
      await trx
        .updateTable('index_state')
        .set({ indexed_through: fork, high_water: highWater })
        .where('chain_id', '=', chain)
        .execute();
    });
    announceCommitted(this.database, this.chainId);
    this.checkedThrough = fork;
    return fork;
  }

  /** The pools of `swaps` that are launch pools: of tokens indexed before, or launched in `launches`. */
  private async poolsOf(swaps: Decoded[], launches: Decoded[]): Promise<Map<Hex, Pool>> {
    const ids = [...new Set(swaps.map((d) => (d.event.args as unknown as { id: Hex }).id))];
    const known = ids.length
      ? await this.database.db
          .selectFrom('tokens')
          .select(['pool_id', 'address', 'quote_address'])
          .where('chain_id', '=', this.chainId)
          .where('pool_id', 'in', ids)
          .execute()
      : [];
    const pools = new Map<Hex, Pool>(known.map((t) => [t.pool_id as Hex, t]));
    for (const { event } of launches) {
      const a = event.args as unknown as { token: Address; poolId: Hex; quoteToken: Address };
      pools.set(a.poolId, { address: a.token, quote_address: a.quoteToken });
    }
    return pools;
  }

  private async apply(
    logs: Log[],
    to: number,
    toHash: Hex,
    tokenLogs: Promise<Log[]>,
    sendersOf: Promise<Map<Hex, Address>>,
  ): Promise<void> {
    // Each block's hash (for reorg checks) and timestamp come with its logs: nodes add `blockTimestamp`
    // to logs (execution-apis, 2025). Only a block whose logs lack it is fetched, without transactions.
    const blockInfo = new Map<Hex, { timestamp: number; hash: Hex }>();
    const asked = new Set<Hex>();
    /** A log of each block of `list` whose time is not known yet nor asked for (now marked as asked). */
    const untimed = (list: Log[]) => {
      const missing: Log[] = [];
      for (const l of list) {
        if (blockInfo.has(l.blockNumber) || asked.has(l.blockNumber)) continue;
        if (l.blockTimestamp === undefined) {
          asked.add(l.blockNumber);
          missing.push(l);
        } else blockInfo.set(l.blockNumber, { timestamp: Number(l.blockTimestamp), hash: l.blockHash });
      }
      return missing;
    };
    const timeOf = (log: Log) => blockInfo.get(log.blockNumber)?.timestamp ?? 0;
    // By hash: the block of the log, not the one a reorg may have put at its number since.
    const getBlock = (l: Log) => ({ method: 'eth_getBlockByHash', params: [l.blockHash, false] });
    const setBlocks = (blocks: Log[], answers: unknown[]) =>
      answers.forEach((answer, i) => {
        const { blockNumber, blockHash } = blocks[i] as Log;
        const block = answer as { timestamp: Hex } | null;
        if (!block) throw new Error(`the node has no block ${blockHash}, the block of logs it sent`);
        blockInfo.set(blockNumber, { timestamp: Number(BigInt(block.timestamp)), hash: blockHash });
      });
    const blocks = untimed(logs);
    // What the range needs from the node is asked for first, from the raw logs (event topics), and the
    // logs are decoded while it comes: token names and documents at their launch block, the first creator
    // fee recipient and missing blocks. The senders of the swaps (`sendersOf`) were asked before, as soon
    // as the swaps came: the trader is the transaction's sender (the transaction, not its receipt, which
    // would carry every log of the transaction again: 3.8 times the bytes for a 200-swap one, measured).
    const launchLogs = launchLogsOf(logs);
    const requests: RpcRequest[] = [
      ...launchLogs.flatMap((log) => {
        const token = launchedToken(log);
        const at = (to: Address, data: Hex) => ({
          method: 'eth_call',
          params: [{ to, data }, log.blockNumber],
        });
        return [
          ...(['name', 'symbol', 'contractURI'] as const).map((fn) =>
            at(token, encodeFunctionData({ abi: TOKEN_VIEWS, functionName: fn })),
          ),
          // The first creator fee recipient (later ones come with events).
          at(
            log.address,
            encodeFunctionData({ abi: RIGHTS_VIEW, functionName: 'creatorRights', args: [token] }),
          ),
        ];
      }),
      ...blocks.map(getBlock),
    ];
    const reads = this.endpoint.batchResultsInChunks<unknown>(requests);
    reads.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    const position = (log: Log) => positionOf(this.chainId, log);
    // A log that does not decode (anyone can emit anything) is recorded and skipped, never retried.
    const skipped: Insertable<Tables['skipped_logs']>[] = [];
    // Decoded addresses come checksummed (decodeLog, as viem).
    const decode = (abi: Abi, list: Log[]): Decoded[] => {
      const out: Decoded[] = [];
      // The event by its topic, so viem decodes against one item instead of searching the ABI.
      const events = eventByTopic(abi);
      for (const log of list) {
        try {
          const item = events.get(log.topics[0]);
          if (!item) throw new Error(`no event with topic ${log.topics[0]}`);
          const event = decodeLog(item, log);
          const strings = hasStrings(item) ? eventStrings(abi, event.eventName, log.data) : NO_STRINGS;
          out.push({ log, index: hexNumber(log.logIndex), event, strings });
        } catch (err) {
          skipped.push({
            ...position(log),
            address: checksum(log.address),
            reason: String((err as Error).message).slice(0, 500),
          });
        }
      }
      return out;
    };
    const decoded = decode(EVENTS, logs);
    const launches = decoded.filter((d) => d.event.eventName === 'Launched');
    // The rows that need nothing from the node's reads are built while they come; a trade's trader and
    // time are filled in when they are in.
    const swaps = decoded.filter((d) => d.event.eventName === 'Swap');
    const pools = await this.poolsOf(swaps, launches);
    const { trades, credits, creditTrades } = tradeRows(this.chainId, decoded, swaps, pools);
    // The escrows' events: a wallet's positions (each escrow and currency credited or paid in this range,
    // at its first block here), and its claims, kept as events.
    const positions = new Map<string, Insertable<Tables['fee_positions']>>();
    const claims: Insertable<Tables['fee_events']>[] = [];
    for (const { log, event } of decoded) {
      if (event.eventName !== 'Credited' && event.eventName !== 'Claimed') continue;
      const a = event.args as unknown as { recipient: Address; currency: Address; amount: bigint };
      const escrow = checksum(log.address);
      const key = `${a.recipient}:${escrow}:${a.currency}`;
      const block = hexNumber(log.blockNumber);
      const known = positions.get(key);
      if (!known)
        positions.set(key, {
          recipient: a.recipient,
          chain_id: this.chainId,
          escrow,
          currency: a.currency,
          block_number: block,
        });
      else if (block < Number(known.block_number)) known.block_number = block;
      if (event.eventName === 'Claimed')
        claims.push({
          ...position(log),
          escrow,
          recipient: a.recipient,
          currency: a.currency,
          kind: 'claimed',
          amount: a.amount.toString(),
        });
    }
    // The token logs (one request) are in by now, as a rule.
    const tokenEvents = decode(TOKEN_EVENTS, await tokenLogs);
    const transfers = tokenEvents
      .filter((d) => d.event.eventName === 'Transfer')
      .map(({ log, event }) => {
        const a = event.args as unknown as { from: Address; to: Address; value: bigint };
        const token = checksum(log.address);
        return { token, from: a.from, to: a.to, value: a.value, block: hexNumber(log.blockNumber) };
      });
    // Balances a reorg (or an older index) left unknown, read at this range's last block.
    const balances = readUnknownBalances(this.database, this.endpoint, this.chainId, toHash);
    balances.catch(() => {}); // awaited below, with the other reads
    // ContractURIUpdated carries no value: the URI is read at the block of the event.
    const uriUpdates = tokenEvents.filter((d) => d.event.eventName === 'ContractURIUpdated');
    const uriBlocks = untimed(uriUpdates.map((d) => d.log));
    const late = this.endpoint.batchResultsInChunks<unknown>([
      ...uriBlocks.map(getBlock),
      ...uriUpdates.map((d) => ({
        method: 'eth_call',
        params: [
          { to: d.log.address, data: encodeFunctionData({ abi: TOKEN_VIEWS, functionName: 'contractURI' }) },
          d.log.blockNumber,
        ],
      })),
    ]);
    late.catch(() => {}); // awaited below, as `reads`
    const answers = await reads;
    const read = await balances;
    let at = 0;
    const next = (n: number) => answers.slice(at, (at += n));
    const views = next(launchLogs.length * READS_PER_LAUNCH) as Hex[];
    // A decoded launch's views, by its log (a Launched log that does not decode has views but no row).
    const viewsAt = new Map(launchLogs.map((log, i) => [log, i * READS_PER_LAUNCH]));
    setBlocks(blocks, next(blocks.length));
    const senders = await sendersOf;
    for (const { log, row } of trades) {
      row.trader = senders.get(log.transactionHash) ?? zeroAddress;
      row.timestamp = timeOf(log);
    }
    const lateAnswers = await late;
    setBlocks(uriBlocks, lateAnswers.slice(0, uriBlocks.length));
    const uris = lateAnswers.slice(uriBlocks.length) as Hex[];
    // Changes to token fields after launch, in log order.
    const updates = [
      ...tokenEvents.flatMap(({ log, event, strings }) => {
        if (event.eventName === 'Transfer') return []; // most token logs; the rest change a field
        const at = { ...position(log), token: checksum(log.address) };
        const row = (field: string, t: ChainText) => [{ ...at, field, value: t.text, raw_hex: t.raw }];
        const none = { text: '', raw: null };
        if (event.eventName === 'NameUpdated') return row('name', strings.name ?? none);
        if (event.eventName === 'SymbolUpdated') return row('symbol', strings.symbol ?? none);
        if (event.eventName === 'ExtraMetadataUpdated') {
          const key = strings.key ?? none;
          return row(`extra:${key.text}`.slice(0, 300), strings.value ?? none);
        }
        if (event.eventName === 'ContractURIUpdated')
          return row(
            'metadata_uri',
            viewText('contractURI', uris[uriUpdates.findIndex((u) => u.log === log)]),
          );
        return [];
      }),
      ...decoded.flatMap(({ log, event }) => {
        if (!RIGHTS_EVENTS.has(event.eventName)) return [];
        const a = event.args as unknown as {
          token: Address;
          newCreator?: Address;
          creator?: Address;
          feeRecipient?: Address;
          newRecipient?: Address;
        };
        const at = { ...position(log), token: a.token ?? zeroAddress };
        const row = (field: string, value: Address) => ({
          ...at,
          field,
          value,
          raw_hex: null,
        });
        if (event.eventName === 'CreatorRightsTransferred')
          return [row('current_creator', a.newCreator as Address)];
        if (event.eventName === 'CreatorFeeRecipientUpdated')
          return [row('fee_recipient', a.newRecipient as Address)];
        if (event.eventName === 'CreatorRightsReassigned')
          return [
            row('current_creator', a.creator as Address),
            row('fee_recipient', a.feeRecipient as Address),
          ];
        return [];
      }),
    ];
    const db = this.database.db;
    await db.transaction().execute(async (trx) => {
      for (const { log, event } of launches) {
        const v = viewsAt.get(log) as number;
        const a = event.args as unknown as {
          token: Address;
          poolId: Hex;
          originalCreator: Address;
          quoteToken: Address;
          launchSupply: bigint;
          tickSpacing: number;
        };
        const suite = this.suites.find((s) => checksum(s.contracts.factory) === checksum(log.address));
        const quote = this.deployments.quote(this.chainId, suite?.id ?? '', a.quoteToken);
        const [name, symbol, uri] = (['name', 'symbol', 'contractURI'] as const).map((fn, j) =>
          viewText(fn, views[v + j]),
        ) as [ChainText, ChainText, ChainText];
        const rights = decodeFunctionResult({
          abi: RIGHTS_VIEW,
          functionName: 'creatorRights',
          data: views[v + 3] as Hex,
        }) as { creatorFeeRecipient: Address };
        const feeRecipient = checksum(rights.creatorFeeRecipient);
        await trx
          .insertInto('tokens')
          .values({
            chain_id: this.chainId,
            address: a.token,
            suite_id: suite?.id ?? '',
            market: quote?.route ?? 'standard',
            quote_address: a.quoteToken,
            creator: a.originalCreator,
            pool_id: a.poolId,
            hook: checksum(suite?.contracts.hook ?? zeroAddress),
            tick_spacing: Number(a.tickSpacing),
            name: name.text,
            symbol: symbol.text,
            search_words: searchText(name.text, symbol.text),
            metadata_uri: uri.text,
            raw_hex: rawHexOf({ name: name.raw, symbol: symbol.raw, metadata_uri: uri.raw }),
            block_number: hexNumber(log.blockNumber),
            log_index: hexNumber(log.logIndex),
            tx_hash: log.transactionHash,
            created_at: timeOf(log),
            current_creator: a.originalCreator,
            fee_recipient: feeRecipient,
            launch_supply: a.launchSupply.toString(),
          })
          .execute();
        // The launch's values are the first rows of the token's fields.
        const launched = { ...position(log), token: a.token };
        await trx
          .insertInto('token_updates')
          .values([
            { ...launched, field: 'name', value: name.text, raw_hex: name.raw },
            { ...launched, field: 'symbol', value: symbol.text, raw_hex: symbol.raw },
            { ...launched, field: 'metadata_uri', value: uri.text, raw_hex: uri.raw },
            { ...launched, field: 'current_creator', value: a.originalCreator, raw_hex: null },
            { ...launched, field: 'fee_recipient', value: feeRecipient, raw_hex: null },
          ])
          .execute();
        await writeWords(trx, this.chainId, a.token, name.text, symbol.text, {
          block: log.blockNumber,
          time: timeOf(log),
        });
      }
      await insertMany(
        this.database,
        trx,
        'trades',
        trades.map((t) => t.row),
      );
      await addTradeTotals(
        this.database,
        trx,
        this.chainId,
        trades.map((t) => t.row),
      );
      await insertMany(this.database, trx, 'fee_credits', credits);
      await insertMany(
        this.database,
        trx,
        'announcements',
        decoded
          .filter((d) => d.event.eventName === 'AnnouncementPosted')
          .map(({ log, event, strings }) => {
            const a = event.args as unknown as {
              token: Address;
              creator: Address;
              announcementId: Hex;
            };
            return {
              ...position(log),
              token: a.token,
              announcement_id: a.announcementId,
              creator: a.creator,
              description: strings.description?.text ?? '',
              uri: strings.announcementURI?.text ?? '',
              raw_hex: rawHexOf({
                description: strings.description?.raw ?? null,
                uri: strings.announcementURI?.raw ?? null,
              }),
              posted_at: timeOf(log),
            };
          }),
      );
      await insertMany(this.database, trx, 'fee_events', claims);
      // (A position known from an earlier block keeps that block.)
      await insertMany(this.database, trx, 'fee_positions', [...positions.values()], (oc) =>
        oc.columns(['recipient', 'chain_id', 'escrow', 'currency']).doNothing(),
      );
      await applyTransfers(this.database, trx, this.chainId, transfers, read, to);
      await insertMany(this.database, trx, 'token_updates', updates);
      await insertMany(this.database, trx, 'skipped_logs', skipped, (oc) => oc.doNothing());
      await refreshFields(trx, this.chainId, [...new Set(updates.map((u) => u.token))]);
      const hashes = new Map<number, string>([
        [to, toHash],
        ...[...blockInfo].map(([b, info]) => [Number(BigInt(b)), info.hash] as [number, string]),
      ]);
      const blockRows = [...hashes].map(([number, hash]) => ({ chain_id: this.chainId, number, hash }));
      await insertMany(this.database, trx, 'index_blocks', blockRows, (oc) =>
        oc.columns(['chain_id', 'number']).doUpdateSet({ hash: (eb) => eb.ref('excluded.hash') }),
      );
      await trx
        .deleteFrom('index_blocks')
        .where('chain_id', '=', this.chainId)
        .where('number', '<', to - KEEP_BLOCKS)
        .execute();
      // The stream's journal: this range's events, in the same commit as their rows.
      const journal = journalOf(launches, trades, credits, creditTrades, decoded, tokenEvents);
      if ((await appendEvents(this.database, trx, this.chainId, journal)) > 0)
        await notifyInTransaction(this.database, trx, this.chainId);
      await trx
        .insertInto('index_state')
        .values({ chain_id: this.chainId, indexed_through: to, high_water: to })
        .onConflict((oc) =>
          oc.column('chain_id').doUpdateSet({
            indexed_through: to,
            high_water: sql<number>`case when index_state.high_water is null or index_state.high_water < ${to} then ${to} else index_state.high_water end`,
          }),
        )
        .execute();
    });
    // Streams wait on the index head as well as on new events (confirmations): every commit wakes them.
    announceCommitted(this.database, this.chainId);
  }

  /** Drops journal rows beyond the newest `retain` of the chain. */
  pruneJournal(retain: number): Promise<number> {
    return pruneEvents(this.database, this.chainId, retain);
  }
}

/** Token events that change what the token detail shows (not transfers, not creator rights). */
const METADATA_EVENTS = new Set([
  'NameUpdated',
  'SymbolUpdated',
  'ContractURIUpdated',
  'ExtraMetadataUpdated',
]);

/** The journal entries of a range: its launches, trades, fee credits, announcements and metadata changes. */
function journalOf(
  launches: Decoded[],
  trades: { row: Omit<JournalEntry, 'type'> }[],
  credits: { log_index: number }[],
  creditTrades: number[],
  decoded: Decoded[],
  tokenEvents: Decoded[],
): JournalEntry[] {
  const at = (log: Log) => ({
    block_number: hexNumber(log.blockNumber),
    block_hash: log.blockHash,
    tx_hash: log.transactionHash,
    log_index: hexNumber(log.logIndex),
  });
  const entry = (type: JournalEntry['type'], row: Omit<JournalEntry, 'type'>, logIndex = row.log_index) => ({
    type,
    block_number: row.block_number,
    block_hash: row.block_hash,
    tx_hash: row.tx_hash,
    log_index: logIndex,
    token: row.token,
  });
  return [
    ...launches.map(({ log, event }) => ({
      type: 'launch' as const,
      ...at(log),
      token: (event.args as unknown as { token: string }).token,
    })),
    ...trades.map(({ row }) => entry('trade', row)),
    // A fee credit belongs to its swap's trade: its token, its block hash.
    ...credits.map((c, i) =>
      entry('fee_credit', (trades[creditTrades[i] as number] as (typeof trades)[number]).row, c.log_index),
    ),
    ...decoded
      .filter((d) => d.event.eventName === 'AnnouncementPosted')
      .map(({ log, event }) => ({
        type: 'announcement' as const,
        ...at(log),
        token: (event.args as unknown as { token: string }).token,
      })),
    ...tokenEvents
      .filter((d) => METADATA_EVENTS.has(d.event.eventName))
      .map(({ log }) => ({ type: 'metadata' as const, ...at(log), token: checksum(log.address) })),
  ];
}

/** Journal rows kept per chain by default, and how often the indexer prunes older ones. */
export const DEFAULT_EVENTS_RETAIN = 500_000;
const PRUNE_EVERY_MS = 60_000;

/** A stable advisory-lock key per chain: one indexer writes a chain at a time (PostgreSQL). */
const LOCK_BASE = 0x1a0c_0000;

/**
 * Runs one loop per chain with an RPC, every `pollMs`, until stopped. On PostgreSQL each loop first
 * takes the chain's advisory lock on a connection of its own and holds it while it runs, so several
 * indexer processes may be started safely: the others wait as standbys. SQLite has one writer anyway.
 */
export function startIndexer(opts: {
  database: Database;
  chains: ChainClients;
  deployments: Deployments;
  chainIds: ChainId[];
  pollMs: number;
  /** How often each chain's market data is refreshed, once its index has caught up. */
  marketRefreshMs: number;
  /** Journal rows kept per chain (older ones are pruned once caught up); default 500,000. */
  eventsRetain?: number;
  /** How often the kept blocks are checked against the node besides reorgs seen (default RECHECK_MS). */
  recheckMs?: number;
  onError?: (err: unknown) => void;
}): { indexers: ChainIndexer[]; stop(): Promise<void> } {
  const indexers = opts.chainIds.flatMap((id) => {
    const endpoint = opts.chains.endpoints(id)[0];
    return endpoint ? [new ChainIndexer(id, endpoint, opts.database, opts.deployments, opts.recheckMs)] : [];
  });
  let stopped = false;
  const pause = () => new Promise((r) => setTimeout(r, opts.pollMs));
  /** Indexes until stopped, or until `held` says the lock's connection is gone (then it is retaken). */
  const follow = async (indexer: ChainIndexer, held?: () => Promise<unknown>) => {
    let refreshed = 0;
    let pruned = 0;
    while (!stopped) {
      // A lost lock connection (a database restart) releases the lock: another indexer may take it.
      if (held) await held();
      try {
        // Catch up range by range; then refresh market data when it is due, and wait for new blocks.
        if ((await indexer.tick()) > 0 || indexer.moved) continue;
        if (Date.now() - refreshed >= opts.marketRefreshMs) {
          await refreshMarket({ ...indexer.source, database: opts.database, nowMs: Date.now() });
          refreshed = Date.now();
        }
        if (Date.now() - pruned >= PRUNE_EVERY_MS) {
          await indexer.pruneJournal(opts.eventsRetain ?? DEFAULT_EVENTS_RETAIN);
          pruned = Date.now();
        }
        if (!stopped) await pause();
      } catch (err) {
        opts.onError?.(err);
        if (!stopped) await pause();
      }
    }
  };
  const running = indexers.map(async (indexer) => {
    if (opts.database.kind !== 'postgres') return follow(indexer);
    const key = LOCK_BASE + indexer.chainId;
    while (!stopped) {
      try {
        await opts.database.db.connection().execute(async (conn) => {
          const { rows } = await sql<{
            locked: boolean;
          }>`select pg_try_advisory_lock(${key}) as locked`.execute(conn);
          if (!rows[0]?.locked) return;
          try {
            await follow(indexer, () => sql`select 1`.execute(conn));
          } finally {
            await sql`select pg_advisory_unlock(${key})`.execute(conn);
          }
        });
      } catch (err) {
        opts.onError?.(err);
      }
      if (!stopped) await pause();
    }
  });
  return {
    indexers,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}
