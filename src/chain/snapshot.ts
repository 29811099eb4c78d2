// Pinned, verified snapshots: a request that reads live state fetches the latest block once, makes every
// read and simulation at that block number, and checks in the same round trip that the block is still
// the one pinned (a reorg retries once at a new block). With several providers, two must agree on the
// pinned block's hash. Failures become the spec's 502/503/504 problems; nothing is served from an older
// snapshot.
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  numberToHex,
} from 'viem';
import { ApiError } from '../errors.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { ChainClients } from './clients.ts';
import {
  type RpcEndpoint,
  type RpcErrorObject,
  type RpcRequest,
  type RpcResult,
  UpstreamFailure,
} from './rpc.ts';

export interface ContractRead {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
}

// viem looks the function up in the ABI on every encode and decode (getAbiItem); the launchpad ABIs are
// large and every live request makes a dozen reads, so each ABI's functions are resolved once. An
// overloaded name keeps the whole ABI (viem then picks the overload by its arguments).
const FUNCTION_ABIS = new WeakMap<Abi, Map<string, Abi>>();
function functionAbi(abi: Abi, functionName: string): Abi {
  let byName = FUNCTION_ABIS.get(abi);
  if (!byName) {
    byName = new Map();
    const counts = new Map<string, number>();
    for (const x of abi) if (x.type === 'function') counts.set(x.name, (counts.get(x.name) ?? 0) + 1);
    for (const x of abi) if (x.type === 'function' && counts.get(x.name) === 1) byName.set(x.name, [x]);
    FUNCTION_ABIS.set(abi, byName);
  }
  return byName.get(functionName) ?? abi;
}

export type ReadResult = { ok: true; value: unknown } | { ok: false; reason: string; data?: Hex };

// Live requests repeat the same reads (a factory's settings and quotes, on every GET /config), and the
// answers rarely change: viem's encode and decode cost a few µs each, most of such a request's CPU.
// So a read's calldata is kept per function and arguments, and an answer of scalars per raw value (an
// array of them is handed out as a copy, which its caller may change; structs are decoded each time).
// Both are bounded, since token and wallet reads are open-ended.
const MEMO_LIMIT = 1024;
const MEMO_DATA_CHARS = 1024; // longer answers (strings, byte arrays) are decoded each time
const CALLDATA = new WeakMap<Abi, Map<string, Hex>>();
const DECODED = new WeakMap<Abi, Map<string, unknown>>();

function memoOf<T>(memos: WeakMap<Abi, Map<string, T>>, abi: Abi): Map<string, T> {
  let memo = memos.get(abi);
  if (!memo) memos.set(abi, (memo = new Map()));
  else if (memo.size >= MEMO_LIMIT) memo.clear();
  return memo;
}

/** The read's arguments as a memo key, when they are numbers, booleans or hex (no key otherwise). */
function argsKey(args: readonly unknown[] | undefined): string | undefined {
  if (!args) return '';
  for (const a of args) {
    const t = typeof a;
    if (t !== 'bigint' && t !== 'number' && t !== 'boolean' && !(t === 'string' && HEX.test(a as string)))
      return undefined;
  }
  return args.join(',');
}
const HEX = /^0x[0-9a-fA-F]*$/;

/** The read's calldata. */
function calldataOf(r: ContractRead): Hex {
  const abi = functionAbi(r.abi, r.functionName);
  const args = argsKey(r.args);
  const key = `${r.functionName}(${args})`;
  const memo = args === undefined ? undefined : memoOf(CALLDATA, abi);
  let data = memo?.get(key);
  if (data === undefined) {
    data = encodeFunctionData({ abi, functionName: r.functionName, args: r.args } as never);
    memo?.set(key, data);
  }
  return data;
}

/** The read's answer, decoded (throws when it does not decode). */
function decodedOf(r: ContractRead, data: Hex): unknown {
  const abi = functionAbi(r.abi, r.functionName);
  const key = `${r.functionName}:${data}`;
  const memo = memoOf(DECODED, abi);
  if (memo.has(key)) {
    const kept = memo.get(key);
    return Array.isArray(kept) ? [...kept] : kept;
  }
  const value = decodeFunctionResult({ abi, functionName: r.functionName, data } as never);
  if (data.length > MEMO_DATA_CHARS) return value;
  if (isScalar(value)) memo.set(key, value);
  else if (Array.isArray(value) && value.every(isScalar)) {
    memo.set(key, value);
    return [...value];
  }
  return value;
}

/** Per chain, the time of the block a snapshot last pinned: the inclusion-time estimate of `readWithBalances`. */
const LAST_BLOCK_TIME = new Map<ChainId, bigint>();

/** The wall clock in whole seconds, as block times are. */
const wallClock = () => BigInt(Math.floor(Date.now() / 1000));
const later = (a: bigint, b: bigint) => (a > b ? a : b);

const isScalar = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function');

/** A call made inside a simulated block. */
export interface SimulatedCall {
  from: Address;
  to: Address;
  data: Hex;
  value?: bigint;
}

export interface SimulatedCallResult {
  status: 'success' | 'reverted';
  gasUsed: bigint;
  returnData: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
  error?: { message: string; data?: Hex };
}

/** The block moved under a request: its pinned block is no longer canonical. */
class ReorgDetected extends Error {}

interface Head {
  endpoint: RpcEndpoint;
  number: bigint;
  hash: Hex;
  timestamp: bigint;
}

function parseBlock(value: unknown): { number: bigint; hash: Hex; timestamp: bigint } {
  const b = value as { number?: unknown; hash?: unknown; timestamp?: unknown } | null;
  const hex = (v: unknown) => typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v);
  if (
    !b ||
    !hex(b.number) ||
    !hex(b.timestamp) ||
    typeof b.hash !== 'string' ||
    !/^0x[0-9a-fA-F]{64}$/.test(b.hash)
  ) {
    throw new UpstreamFailure('invalid', 'the node sent a malformed block');
  }
  return {
    number: BigInt(b.number as string),
    hash: b.hash.toLowerCase() as Hex,
    timestamp: BigInt(b.timestamp as string),
  };
}

function blockRequest(tag: string): RpcRequest {
  return { method: 'eth_getBlockByNumber', params: [tag, false] };
}

export class Snapshot {
  private head: { number: bigint; hash: Hex; timestamp: bigint } | undefined;

  constructor(
    readonly chainId: ChainId,
    private readonly endpoint: RpcEndpoint,
    head?: { number: bigint; hash: Hex; timestamp: bigint },
  ) {
    this.head = head;
  }

  private pinned() {
    if (!this.head) throw new Error('the snapshot is not pinned yet');
    return this.head;
  }

  get blockNumber(): bigint {
    return this.pinned().number;
  }

  get blockHash(): Hex {
    return this.pinned().hash;
  }

  get timestamp(): bigint {
    return this.pinned().timestamp;
  }

  /**
   * The earliest time a transaction sent now can be included: the wall clock, and never before the
   * pinned block (a chain's next block is at least as late). Quotes price at it, so a fee that decays
   * with time (the anti-snipe surcharge) is not the pinned block's any more. Estimating earlier than
   * the real block errs on the safe side: the fee can only have decayed further. Undefined before the
   * snapshot is pinned.
   */
  get inclusionTime(): bigint | undefined {
    return this.head ? later(wallClock(), this.head.timestamp) : undefined;
  }

  /** Pins the head now, when a request needs its block before (or without) any read. */
  async ensurePinned(): Promise<void> {
    if (this.head) return;
    const r = await this.endpoint.request('eth_getBlockByNumber', ['latest', false]);
    if (!r.ok) throw new UpstreamFailure('invalid', r.error.message);
    this.head = parseBlock(r.result);
    LAST_BLOCK_TIME.set(this.chainId, this.head.timestamp);
  }

  /**
   * Runs requests at the pinned block in one round trip, with the check that the block still stands.
   * Not pinned yet (one provider): the same round trip reads the head before and after requests made at
   * `latest`; when both are one block, every request in between ran at it, and that block is pinned.
   * A head that moved meanwhile counts as a reorg: the request is retried with an explicit pin.
   */
  private async batch(build: (tag: Hex | 'latest') => RpcRequest[]): Promise<RpcResult[]> {
    if (this.head) {
      const tag = numberToHex(this.head.number);
      const results = await this.endpoint.batch([...build(tag), blockRequest(tag)]);
      const check = results.pop() as RpcResult;
      if (!check.ok || check.result === null) throw new ReorgDetected();
      if (parseBlock(check.result).hash !== this.head.hash) throw new ReorgDetected();
      return results;
    }
    const results = await this.endpoint.batch([
      blockRequest('latest'),
      ...build('latest'),
      blockRequest('latest'),
    ]);
    const before = results.shift() as RpcResult;
    const after = results.pop() as RpcResult;
    if (!before.ok || !after.ok)
      throw new UpstreamFailure('invalid', 'the node did not return its head block');
    const head = parseBlock(before.result);
    if (parseBlock(after.result).hash !== head.hash) throw new ReorgDetected();
    this.head = head;
    LAST_BLOCK_TIME.set(this.chainId, head.timestamp);
    return results;
  }

  /** Contract reads at the pinned block, all in one round trip; a failed call is a result, not a throw. */
  async read(reads: ContractRead[]): Promise<ReadResult[]> {
    return (await this.readWithBalances(reads, [])).results;
  }

  /** Contract reads and native balances at the pinned block, in one round trip. */
  async readWithBalances(
    reads: ContractRead[],
    accounts: Address[],
    opts: { atInclusionTime?: boolean } = {},
  ): Promise<{ results: ReadResult[]; balances: bigint[] }> {
    // eth_call's block override (4th parameter): the calls see the time of inclusion as block.timestamp.
    // Not pinned yet: an estimate stands in for it in the round trip that pins the block (the wall
    // clock, or the chain's last block time when its clock runs ahead, as a devnet's can), and the
    // reads are made again only if the pinned block shows the estimate was not max(clock, block time).
    let time = opts.atInclusionTime ? this.inclusionTime : undefined;
    const clock = opts.atInclusionTime && !this.head ? wallClock() : undefined;
    if (clock !== undefined) time = later(clock, LAST_BLOCK_TIME.get(this.chainId) ?? 0n);
    const overrides = time === undefined ? [] : [{}, { time: numberToHex(time) }];
    const build = (tag: Hex | 'latest'): RpcRequest[] => [
      ...reads.map((r) => ({
        method: 'eth_call',
        params: [
          {
            to: r.address,
            data: calldataOf(r),
          },
          tag,
          ...overrides,
        ],
      })),
      ...accounts.map((a) => ({ method: 'eth_getBalance', params: [a, tag] })),
    ];
    const answers = await this.batch(build);
    if (clock !== undefined && time !== later(clock, this.pinned().timestamp))
      return this.readWithBalances(reads, accounts, opts);
    const balances = answers.slice(reads.length).map((b) => {
      if (!b.ok || typeof b.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(b.result)) {
        throw new UpstreamFailure('invalid', 'the node sent a malformed balance');
      }
      return BigInt(b.result);
    });
    const results: ReadResult[] = answers.slice(0, reads.length).map((res, i) => {
      const r = reads[i] as ContractRead;
      if (!res.ok) return { ok: false, reason: res.error.message, data: revertData(res.error) };
      try {
        return { ok: true, value: decodedOf(r, res.result as Hex) };
      } catch {
        return {
          ok: false,
          reason: `${r.functionName} returned no decodable value (no such contract or function)`,
        };
      }
    });
    return { results, balances };
  }

  /** Reads that must all succeed: a failure means the deployment is not what the manifest says. */
  async readAll(reads: ContractRead[]): Promise<unknown[]> {
    const results = await this.read(reads);
    return results.map((r, i) => {
      if (r.ok) return r.value;
      const read = reads[i] as ContractRead;
      throw new ApiError(
        'upstream_error',
        `Chain ${this.chainId}: ${read.functionName} on ${read.address} failed`,
        {
          chain_id: this.chainId,
        },
      );
    });
  }

  /**
   * Simulates calls in order, in one block on top of the pinned one (eth_simulateV1), so each call sees
   * the state the earlier ones left.
   */
  async simulate(calls: SimulatedCall[]): Promise<SimulatedCallResult[]> {
    // The simulated block follows the pinned one: strictly later, and no earlier than inclusion.
    const inclusion = this.inclusionTime;
    const time =
      inclusion === undefined || !this.head
        ? undefined
        : inclusion > this.head.timestamp
          ? inclusion
          : this.head.timestamp + 1n;
    const [res] = await this.batch((tag) => [
      {
        method: 'eth_simulateV1',
        params: [
          {
            blockStateCalls: [
              {
                ...(time === undefined ? {} : { blockOverrides: { time: numberToHex(time) } }),
                calls: calls.map((c) => ({
                  from: c.from,
                  to: c.to,
                  data: c.data,
                  value: numberToHex(c.value ?? 0n),
                })),
              },
            ],
            validation: false,
            traceTransfers: false,
          },
          tag,
        ],
      },
    ]);
    if (!res?.ok)
      throw new UpstreamFailure('invalid', `simulation failed at the node: ${res?.error.message}`);
    const blocks = res.result as { calls?: unknown[] }[];
    const out = blocks?.[0]?.calls;
    if (!Array.isArray(out) || out.length !== calls.length) {
      throw new UpstreamFailure('invalid', 'the node sent a malformed simulation');
    }
    return out.map((c) => {
      const call = c as {
        status: Hex;
        gasUsed: Hex;
        returnData: Hex;
        logs?: { address: Address; topics: Hex[]; data: Hex }[];
        error?: { message: string; data?: Hex };
      };
      return {
        status: BigInt(call.status) === 1n ? 'success' : 'reverted',
        gasUsed: BigInt(call.gasUsed),
        returnData: call.returnData,
        logs: call.logs ?? [],
        ...(call.error
          ? { error: { message: call.error.message, data: call.error.data ?? call.returnData } }
          : {}),
      };
    });
  }
}

function revertData(error: RpcErrorObject): Hex | undefined {
  const data = error.data;
  if (typeof data === 'string' && /^0x[0-9a-fA-F]*$/.test(data)) return data as Hex;
  if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') {
    return (data as { data: Hex }).data;
  }
  return undefined;
}

/** Pins the chain's latest block, agreed by two providers when several are configured. */
export async function pin(clients: ChainClients, chainId: ChainId): Promise<Snapshot> {
  const endpoints = clients.endpoints(chainId);
  if (endpoints.length === 0) {
    throw new ApiError('temporarily_unavailable', `No RPC is configured for chain ${chainId}`, {
      chain_id: chainId,
    });
  }
  const settled = await Promise.allSettled(
    endpoints.map((e) => e.request('eth_getBlockByNumber', ['latest', false])),
  );
  const heads: Head[] = [];
  const failures: UpstreamFailure[] = [];
  settled.forEach((s, i) => {
    try {
      if (s.status === 'rejected') throw s.reason;
      if (!s.value.ok) throw new UpstreamFailure('invalid', s.value.error.message);
      heads.push({ endpoint: endpoints[i] as RpcEndpoint, ...parseBlock(s.value.result) });
    } catch (err) {
      failures.push(
        err instanceof UpstreamFailure ? err : new UpstreamFailure('invalid', 'malformed answer'),
      );
    }
  });
  if (heads.length === 0) throw upstreamProblem(chainId, failures);
  if (endpoints.length === 1) {
    const h = heads[0] as Head;
    return new Snapshot(chainId, h.endpoint, h);
  }
  // Quorum: the lowest head every answering provider has; those ahead say what their block there is.
  const target = heads.reduce((min, h) => (h.number < min ? h.number : min), (heads[0] as Head).number);
  const atTarget = await Promise.all(
    heads.map(async (h) => {
      if (h.number === target) return h;
      try {
        const r = await h.endpoint.request('eth_getBlockByNumber', [numberToHex(target), false]);
        return r.ok ? { endpoint: h.endpoint, ...parseBlock(r.result) } : null;
      } catch {
        return null;
      }
    }),
  );
  const votes = new Map<Hex, Head[]>();
  for (const h of atTarget) if (h) votes.set(h.hash, [...(votes.get(h.hash) ?? []), h]);
  const agreed = [...votes.values()].find((group) => group.length >= 2);
  if (!agreed) {
    throw new ApiError(
      'temporarily_unavailable',
      `The RPC providers of chain ${chainId} do not agree on block ${target}; try again shortly`,
      { chain_id: chainId },
    );
  }
  const h = agreed[0] as Head;
  return new Snapshot(chainId, h.endpoint, h);
}

/** Runs `work` against a fresh snapshot; a reorg during the request retries once at a new block. */
export async function withSnapshot<T>(
  clients: ChainClients,
  chainId: ChainId,
  work: (snapshot: Snapshot) => Promise<T>,
): Promise<T> {
  const endpoints = clients.endpoints(chainId);
  for (let attempt = 0; ; attempt++) {
    try {
      // One provider: the snapshot pins itself in its first round trip. Several: pin by quorum first.
      const snapshot =
        attempt === 0 && endpoints.length === 1
          ? new Snapshot(chainId, endpoints[0] as RpcEndpoint)
          : await pin(clients, chainId);
      return await work(snapshot);
    } catch (err) {
      if (err instanceof ReorgDetected) {
        if (attempt === 0) continue;
        throw new ApiError(
          'temporarily_unavailable',
          `Chain ${chainId} reorganised twice during the request`,
          {
            chain_id: chainId,
          },
        );
      }
      if (err instanceof UpstreamFailure) throw upstreamProblem(chainId, [err]);
      throw err;
    }
  }
}

/**
 * Runs `work` against a snapshot pinned at a block chosen earlier (a paginated snapshot's later pages).
 * If that block is no longer on the chain, `onGone` says what to answer instead.
 */
export async function withSnapshotAt<T>(
  clients: ChainClients,
  chainId: ChainId,
  head: { number: bigint; hash: Hex; timestamp: bigint },
  onGone: () => ApiError,
  work: (snapshot: Snapshot) => Promise<T>,
): Promise<T> {
  const endpoint = clients.endpoints(chainId)[0];
  if (!endpoint)
    throw new ApiError('temporarily_unavailable', `No RPC is configured for chain ${chainId}`, {
      chain_id: chainId,
    });
  try {
    return await work(new Snapshot(chainId, endpoint, head));
  } catch (err) {
    if (err instanceof ReorgDetected) throw onGone();
    if (err instanceof UpstreamFailure) throw upstreamProblem(chainId, [err]);
    throw err;
  }
}

/** The most telling problem of a set of provider failures: malformed > timeout > unreachable. */
export function upstreamProblem(chainId: ChainId, failures: UpstreamFailure[]): ApiError {
  const kinds = new Set(failures.map((f) => f.kind));
  const extras = { chain_id: chainId };
  if (kinds.has('invalid'))
    return new ApiError('upstream_error', `The RPC of chain ${chainId} sent an invalid answer`, extras);
  if (kinds.has('timeout'))
    return new ApiError('upstream_timeout', `The RPC of chain ${chainId} did not answer in time`, extras);
  return new ApiError('temporarily_unavailable', `The RPC of chain ${chainId} is unreachable`, extras);
}
