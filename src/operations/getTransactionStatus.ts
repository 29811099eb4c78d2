// getTransactionStatus: where a transaction stands (pending, confirmed, reverted, not_found), its block,
// confirmations and finality, and the launchpad events of its receipt decoded with the suite's ABIs. Read
// live from the node in one round trip; never cached.
import { type Abi, type Address, decodeEventLog, getAddress, type Hex } from 'viem';
import * as A from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import { UpstreamFailure } from '../chain/rpc.ts';
import { upstreamProblem } from '../chain/snapshot.ts';
import { ApiError } from '../errors.ts';
import { toJson } from '../json.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';

const ABI_BY_ROLE: Record<string, Abi> = {
  factory: A.LaunchFactoryAbi as Abi,
  hook: A.LaunchHookAbi as Abi,
  fee_escrow: A.FeeEscrowAbi as Abi,
  announcement_registry: A.AnnouncementRegistryAbi as Abi,
  vesting_vault: A.VestingVaultAbi as Abi,
  launch_buy_adapter: A.LaunchBuyAdapterAbi as Abi,
};
/** Events a launch token emits that only launch tokens emit (its metadata changes). */
const TOKEN_METADATA_EVENTS = (A.LaunchTokenAbi as Abi).filter(
  (x) => x.type === 'event' && x.name !== 'Transfer' && x.name !== 'Approval',
);

interface RpcLog {
  address: Address;
  topics: [Hex, ...Hex[]];
  data: Hex;
  logIndex: Hex;
}

export interface TransactionStatusDeps {
  chains: ChainClients;
  deployments: Deployments;
}

export interface GetTransactionStatusInput {
  chainId: ChainId;
  hash: Hex;
}

/** The status of one transaction and its decoded launchpad events, read live. */
export async function getTransactionStatus(deps: TransactionStatusDeps, input: GetTransactionStatusInput) {
  const { chainId, hash } = input;
  const endpoint = deps.chains.endpoints(chainId)[0];
  if (!endpoint) {
    throw new ApiError('temporarily_unavailable', `No RPC is configured for chain ${chainId}`, {
      chain_id: chainId,
    });
  }
  let answers;
  try {
    answers = await endpoint.batch([
      { method: 'eth_getTransactionByHash', params: [hash] },
      { method: 'eth_getTransactionReceipt', params: [hash] },
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getBlockByNumber', params: ['finalized', false] },
    ]);
  } catch (err) {
    if (err instanceof UpstreamFailure) throw upstreamProblem(chainId, [err]);
    throw err;
  }
  const [tx, receipt, head, finalized] = answers.map((a) => (a.ok ? a.result : null)) as [
    { from: Address; to: Address | null } | null,
    { status: Hex; blockNumber: Hex; blockHash: Hex; gasUsed: Hex; logs: RpcLog[] } | null,
    Hex | null,
    { number: Hex } | null,
  ];
  const out: Record<string, unknown> = { chain_id: chainId, transaction_hash: hash };
  // Addresses leave checksummed (spec: Conventions).
  const from = tx?.from ? getAddress(tx.from) : null;
  const to = tx?.to ? getAddress(tx.to) : null;
  if (!tx && !receipt) return { ...out, status: 'not_found' };
  if (!receipt) {
    return {
      ...out,
      status: 'pending',
      from,
      to,
    };
  }
  const block = BigInt(receipt.blockNumber);
  const confirmations = head ? Number(BigInt(head) - block + 1n) : 1;
  // Contracts of every suite on the chain, by address, with the ABI of their role.
  const roles = new Map<string, Abi>();
  for (const suite of deps.deployments.get(chainId)?.suites ?? []) {
    for (const [role, address] of Object.entries(suite.contracts)) {
      const abi = ABI_BY_ROLE[role];
      if (abi && address) roles.set(getAddress(address), abi);
    }
  }
  const events = receipt.logs.flatMap((log) => {
    const abi = roles.get(getAddress(log.address)) ?? TOKEN_METADATA_EVENTS;
    try {
      const ev = decodeEventLog({ abi, data: log.data, topics: log.topics });
      return [
        {
          address: getAddress(log.address),
          log_index: Number(BigInt(log.logIndex)),
          name: ev.eventName,
          args: toJson(ev.args ?? {}),
        },
      ];
    } catch {
      return [];
    }
  });
  return {
    ...out,
    status: BigInt(receipt.status) === 1n ? 'confirmed' : 'reverted',
    block_number: block.toString(),
    block_hash: receipt.blockHash,
    confirmations,
    finalized: finalized ? BigInt(finalized.number) >= block : false,
    from,
    to,
    gas_used: BigInt(receipt.gasUsed).toString(),
    events,
  };
}
