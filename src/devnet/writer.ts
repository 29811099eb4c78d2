// Sends the devnet's deployment transactions from one unlocked anvil account. anvil mines each
// transaction as it arrives, so the receipt is read right after sending instead of polling.
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

export class ChainWriter {
  readonly client: PublicClient;
  private readonly wallet;

  constructor(
    readonly rpcUrl: string,
    readonly from: Address,
  ) {
    const transport = http(rpcUrl);
    this.client = createPublicClient({ transport }) as PublicClient;
    this.wallet = createWalletClient({ transport });
  }

  async send(tx: { to?: Address; data: Hex; value?: bigint }): Promise<TransactionReceipt> {
    const hash = await this.wallet.sendTransaction({
      account: this.from,
      chain: null,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
    } as never);
    const receipt =
      (await this.client.getTransactionReceipt({ hash }).catch(() => undefined)) ??
      (await this.client.waitForTransactionReceipt({ hash, pollingInterval: 5 }));
    if (receipt.status !== 'success') throw new Error(`devnet transaction ${hash} reverted`);
    return receipt;
  }

  async deploy(artifact: Artifact, args: readonly unknown[] = []): Promise<Address> {
    const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args } as never);
    const receipt = await this.send({ data });
    if (!receipt.contractAddress) throw new Error('deployment created no contract');
    return getAddress(receipt.contractAddress);
  }

  async write(
    to: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[] = [],
    value?: bigint,
  ): Promise<TransactionReceipt> {
    return this.send({ to, data: encodeFunctionData({ abi, functionName, args } as never), value });
  }

  async read<T>(to: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<T> {
    return (await this.client.readContract({ address: to, abi, functionName, args } as never)) as T;
  }
}
