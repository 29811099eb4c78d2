// Test helpers against a devnet chain: send as anvil's unlocked accounts, move time, launch tokens
// and swap through the Universal Router the way a wallet would.
import { randomBytes } from 'node:crypto';
import {
  type Abi,
  type Address,
  createPublicClient,
  concatHex,
  createWalletClient,
  decodeEventLog,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  http,
  maxUint160,
  numberToHex,
  parseAbi,
  type PublicClient,
  type TransactionReceipt,
  zeroAddress,
} from 'viem';
import * as A from '../../contracts/artifacts/index.ts';
import type { DevnetChain } from '../../src/devnet/devnet.ts';
import { mineLaunchSalt, scopedLaunchSalt } from '../../src/launchpad/salt.ts';
import { B20_ABI, B20_FACTORY, MULTICALL3 } from '../../src/launchpad/b20.ts';
import { launchPoolKey, type PoolKey, encodeHookData } from '../../src/launchpad/pool.ts';
import { encodeExactInSingleSwap, UNIVERSAL_ROUTER_ABI } from '../../src/chain/universalRouter.ts';

export const ERC20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
  'function totalSupply() view returns (uint256)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
]);
export const PERMIT2 = parseAbi([
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function allowance(address owner, address token, address spender) view returns (uint160, uint48, uint48)',
]);
export const ERC6909 = parseAbi(['function balanceOf(address owner, uint256 id) view returns (uint256)']);

export class TestChain {
  readonly client: PublicClient;
  private readonly wallet;
  readonly current: DevnetChain['suites'][number]['contracts'];
  readonly tokenMode: 'erc20' | 'b20';

  constructor(readonly chain: DevnetChain) {
    this.client = createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;
    this.wallet = createWalletClient({ transport: http(chain.rpc_url) });
    const current = chain.suites.find((s) => s.status === 'current') as DevnetChain['suites'][number];
    this.current = current.contracts;
    this.tokenMode = current.token_mode;
  }

  account(i: number): Address {
    return this.chain.accounts[i] as Address;
  }

  quote(symbol: string): Address {
    const q = this.chain.quotes.find((x) => x.symbol === symbol);
    if (!q) throw new Error(`no quote ${symbol}`);
    return q.address;
  }

  /** Sends as an unlocked account; resolves with the receipt, or rejects with the revert. */
  async send(from: Address, to: Address, data: Hex, value = 0n): Promise<TransactionReceipt> {
    const hash = await this.wallet.sendTransaction({ account: from, chain: null, to, data, value });
    const receipt = await this.client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== 'success')
      throw new Error(`transaction ${hash} reverted: ${await this.why(receipt)}`);
    return receipt;
  }

  /** Why a mined transaction reverted: replayed on its block's parent state at its block's time. */
  private async why(receipt: TransactionReceipt): Promise<string> {
    const [tx, block] = await Promise.all([
      this.client.getTransaction({ hash: receipt.transactionHash }),
      this.client.getBlock({ blockNumber: receipt.blockNumber }),
    ]);
    const at = `block ${block.number} at ${block.timestamp} (wall clock ${Math.floor(Date.now() / 1000)})`;
    try {
      await this.client.call({
        account: tx.from,
        to: tx.to,
        data: tx.input,
        value: tx.value,
        gas: tx.gas,
        blockNumber: receipt.blockNumber - 1n,
        blockOverrides: { time: block.timestamp },
      });
      return `${at}; replayed, it succeeds (gas used ${receipt.gasUsed} of ${tx.gas})`;
    } catch (err) {
      return `${at}; ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`;
    }
  }

  async call(from: Address, to: Address, abi: Abi, functionName: string, args: unknown[], value = 0n) {
    const data = encodeFunctionData({ abi, functionName, args } as never);
    return this.send(from, to, data, value);
  }

  /** The custom error name a call would revert with (simulated at the latest block). */
  async revertName(from: Address, to: Address, abi: Abi, functionName: string, args: unknown[], value = 0n) {
    try {
      await this.client.simulateContract({
        account: from,
        address: to,
        abi,
        functionName,
        args,
        value,
      } as never);
    } catch (err) {
      const e = err as { walk: (fn: (e: unknown) => boolean) => { data?: { errorName?: string } } | null };
      return e.walk((x) => (x as { data?: { errorName?: string } }).data?.errorName !== undefined)?.data
        ?.errorName;
    }
    return undefined;
  }

  read<T>(address: Address, abi: Abi, functionName: string, args: unknown[] = []): Promise<T> {
    return this.client.readContract({ address, abi, functionName, args } as never) as Promise<T>;
  }

  async timestamp(): Promise<bigint> {
    return (await this.client.getBlock()).timestamp;
  }

  async setNextTimestamp(ts: bigint): Promise<void> {
    await this.client.request({
      method: 'evm_setNextBlockTimestamp',
      params: [`0x${ts.toString(16)}`],
    } as never);
  }

  async advance(seconds: number): Promise<void> {
    await this.client.request({ method: 'evm_increaseTime', params: [`0x${seconds.toString(16)}`] } as never);
    await this.client.request({ method: 'evm_mine', params: [] } as never);
  }

  events(receipt: TransactionReceipt, abi: Abi, eventName: string): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const log of receipt.logs) {
      try {
        const ev = decodeEventLog({ abi, data: log.data, topics: log.topics });
        if (ev.eventName === eventName) out.push({ ...(ev.args as object), address: log.address });
      } catch {
        // another contract's event
      }
    }
    return out;
  }

  async launchParams(
    creator: Address,
    opts: { quote?: Address; name?: string; symbol?: string; editable?: boolean; contractURI?: string } = {},
  ) {
    const factory = this.current.factory;
    const params = {
      tokenName: opts.name ?? 'Devnet Launch',
      tokenSymbol: opts.symbol ?? 'DVL',
      tokenContractURI: opts.contractURI ?? 'ipfs://bafkreidevnetlaunch',
      creatorSalt: `0x${'00'.repeat(32)}` as Hex,
      quoteToken: opts.quote ?? zeroAddress,
      expectedConfigVersion: await this.read<bigint>(factory, A.LaunchFactoryAbi, 'configVersion'),
      deadline: (await this.timestamp()) + 900n,
      metadataEditable: opts.editable ?? true,
      metadataKeys: ['twitter'],
      metadataValues: ['@devnet'],
    };
    const salt =
      this.tokenMode === 'b20'
        ? await this.mineB20(factory, creator)
        : mineLaunchSalt({
            tokenDeployer: this.current.token_deployer,
            creator,
            initCodeHash: await this.read<Hex>(factory, A.LaunchFactoryAbi, 'launchTokenBytecodeHash', [
              params,
            ]),
          });
    params.creatorSalt = salt.creatorSalt;
    return { params, predicted: salt.predictedToken };
  }

  /** The token address the factory would create for `sender` launching `params` (its salt scoped to the sender). */
  async predictedToken(
    sender: Address,
    params: Awaited<ReturnType<TestChain['launchParams']>>['params'],
  ): Promise<Address> {
    const factory = this.current.factory;
    const scopedSalt = scopedLaunchSalt(sender, params.creatorSalt);
    if (this.tokenMode === 'b20') {
      return this.read<Address>(B20_FACTORY, B20_ABI, 'getB20Address', [0, factory, scopedSalt]);
    }
    return getContractAddress({
      opcode: 'CREATE2',
      from: this.current.token_deployer,
      salt: scopedSalt,
      bytecodeHash: await this.read<Hex>(factory, A.LaunchFactoryAbi, 'launchTokenBytecodeHash', [params]),
    });
  }

  /** A creator salt for a B20 suite: candidates asked of the B20 factory, 1,024 per multicall. */
  async mineB20(factory: Address, creator: Address): Promise<{ creatorSalt: Hex; predictedToken: Address }> {
    for (;;) {
      const salts = Array.from({ length: 1024 }, () => `0x${randomBytes(32).toString('hex')}` as Hex);
      const addresses = (await this.client.multicall({
        multicallAddress: MULTICALL3,
        allowFailure: false,
        contracts: salts.map((creatorSalt) => ({
          address: B20_FACTORY,
          abi: B20_ABI,
          functionName: 'getB20Address',
          args: [0, factory, scopedLaunchSalt(creator, creatorSalt)],
        })),
      } as never)) as unknown as Address[];
      const i = addresses.findIndex((a) => a.toLowerCase().endsWith('01'));
      if (i >= 0) return { creatorSalt: salts[i] as Hex, predictedToken: addresses[i] as Address };
    }
  }

  async launch(creator: Address, opts: Parameters<TestChain['launchParams']>[1] = {}) {
    const { params, predicted } = await this.launchParams(creator, opts);
    const fee = await this.read<bigint>(this.current.factory, A.LaunchFactoryAbi, 'nativeLaunchFee');
    const receipt = await this.call(
      creator,
      this.current.factory,
      A.LaunchFactoryAbi,
      'createLaunch',
      [params],
      fee,
    );
    const key = launchPoolKey(predicted, params.quoteToken, 200, this.current.hook);
    const launched = this.events(receipt, A.LaunchFactoryAbi, 'Launched')[0] as {
      token: Address;
      poolId: Hex;
    };
    const block = await this.client.getBlock({ blockNumber: receipt.blockNumber });
    return {
      token: launched.token,
      predicted,
      poolId: launched.poolId,
      key,
      receipt,
      launchTime: block.timestamp,
    };
  }

  /** Lets the Universal Router pull `token` from `owner` through Permit2 (on-chain approvals). */
  async approveForRouter(owner: Address, token: Address): Promise<void> {
    await this.call(owner, token, ERC20, 'approve', [this.chain.uniswap.permit2, 2n ** 256n - 1n]);
    await this.call(owner, this.chain.uniswap.permit2, PERMIT2, 'approve', [
      token,
      this.chain.uniswap.universal_router,
      maxUint160,
      2 ** 48 - 1,
    ]);
  }

  swapCall(
    key: PoolKey,
    input: Address,
    amountIn: bigint,
    opts: { referrer?: Address; comment?: string; minOut?: bigint } = {},
  ) {
    return encodeExactInSingleSwap({
      key,
      zeroForOne: input === key.currency0,
      amountIn,
      minAmountOut: opts.minOut ?? 1n,
      hookData: encodeHookData(opts.referrer, opts.comment),
      deadline: 2n ** 40n,
    });
  }

  async swap(
    trader: Address,
    key: PoolKey,
    input: Address,
    amountIn: bigint,
    opts: { referrer?: Address; comment?: string; minOut?: bigint } = {},
  ) {
    const { data, value } = this.swapCall(key, input, amountIn, opts);
    return this.send(trader, this.chain.uniswap.universal_router, data, value);
  }

  /**
   * A native-quoted launch and `swaps` small buys by three traders with a referrer; the head after them.
   * With `perTransaction` > 1, each transaction makes that many (one router V4_SWAP command each), a
   * block each: a million trades in minutes and a thousand blocks (anvil keeps a state per block, on
   * disk past its recent ones: a few MB each).
   */
  async launchWithSwaps(swaps: number, perTransaction = 1): Promise<{ token: Address; head: number }> {
    const { token } = await this.launch(this.account(1));
    await this.advance(21);
    const key = launchPoolKey(token, zeroAddress, 200, this.current.hook);
    const opts = { referrer: this.account(5) };
    if (perTransaction <= 1) {
      for (let i = 0; i < swaps; i++)
        await this.swap(this.account(2 + (i % 3)), key, zeroAddress, 10n ** 14n, opts);
    } else {
      const one = this.swapCall(key, zeroAddress, 10n ** 14n, opts);
      const { args } = decodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, data: one.data });
      const call = (n: number) => ({
        data: encodeFunctionData({
          abi: UNIVERSAL_ROUTER_ABI,
          functionName: 'execute',
          args: [concatHex(Array(n).fill(args[0])), Array(n).fill(args[1][0]), args[2]],
        }),
        value: one.value * BigInt(n),
      });
      // A block gas limit three times such a transaction's gas: blocks stay under half of it, so the
      // base fee falls rather than compounds (which would strand later transactions' fee caps).
      const gasPerSwap = 150_000n;
      const limit = gasPerSwap * BigInt(perTransaction) * 3n;
      await this.client.request({
        method: 'evm_setBlockGasLimit',
        params: [numberToHex(limit > 30_000_000n ? limit : 30_000_000n)],
      } as never);
      const router = this.chain.uniswap.universal_router;
      const first = call(perTransaction);
      const gas =
        ((await this.client.estimateGas({ account: this.account(2), to: router, ...first })) * 3n) / 2n;
      const traders = [2, 3, 4].map((i) => this.account(i));
      const nonces = await Promise.all(traders.map((a) => this.client.getTransactionCount({ address: a })));
      // At most 32 in the node's pool: a pool of thousands slows every block it mines.
      const sent: Hex[] = [];
      const mined = (hash: Hex) =>
        this.client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: 120_000 });
      for (let done = 0, i = 0; done < swaps; done += perTransaction, i++) {
        const n = Math.min(perTransaction, swaps - done);
        const from = i % traders.length;
        if (i >= 32) await mined(sent[i - 32] as Hex);
        sent.push(
          await this.wallet.sendTransaction({
            account: traders[from] as Address,
            chain: null,
            to: router,
            ...(n === perTransaction ? first : call(n)),
            gas,
            nonce: (nonces[from] as number)++,
          }),
        );
      }
      const receipt = await mined(sent.at(-1) as Hex);
      if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
    }
    return { token, head: Number(await this.client.getBlockNumber({ cacheTime: 0 })) };
  }

  async balance(token: Address, owner: Address): Promise<bigint> {
    if (token === zeroAddress) return this.client.getBalance({ address: owner });
    return this.read<bigint>(token, ERC20, 'balanceOf', [owner]);
  }
}

/** LaunchBuyParams.routeData: abi.encode(Step[]) (REFERENCE §4.6). */
export function encodeRouteSteps(steps: Record<string, unknown>[]): Hex {
  return encodeAbiParameters(
    [
      {
        type: 'tuple[]',
        components: [
          { name: 'kind', type: 'uint8' },
          { name: 'tokenIn', type: 'address' },
          { name: 'tokenOut', type: 'address' },
          { name: 'pool', type: 'address' },
          { name: 'fee', type: 'uint24' },
          { name: 'tickSpacing', type: 'int24' },
          { name: 'hooks', type: 'address' },
          { name: 'hookData', type: 'bytes' },
        ],
      },
    ],
    [steps as never],
  );
}
