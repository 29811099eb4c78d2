// checkDeployment: proves a chain's deployment manifest against its RPC before users do. One batched
// round trip per provider for the chain id and head, one batch for everything else (code at every
// address, the factory's views, quote registrations, Permit2's domain, the PoolManager, StateView and
// quoter), and, with several providers, one more to compare a recent block hash.
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  domainSeparator,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  zeroAddress,
} from 'viem';
import { LaunchFactoryAbi } from '../../contracts/artifacts/index.ts';
import type { ChainClients } from '../chain/clients.ts';
import type { RpcEndpoint, RpcRequest, RpcResult } from '../chain/rpc.ts';
import { PERMIT2_ADDRESS } from '../chain/uniswap.ts';
import type { ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import { FACTORY_VIEWS, FROM_FACTORY } from '../launchpad/manifest.ts';

export interface DeploymentCheck {
  chain_id: ChainId;
  check: string;
  expected: string;
  found: string;
  ok: boolean;
}

/** A manifest field marked from_factory, with the address the factory's view gave. */
export interface ResolvedField {
  chainId: ChainId;
  suiteId: string;
  field: string;
  address: Address;
}

export interface DeploymentDeps {
  chains: ChainClients;
  deployments: Deployments;
}

const FACTORY = LaunchFactoryAbi as Abi;
const UNISWAP_VIEWS = parseAbi([
  'function poolManager() view returns (address)',
  'function owner() view returns (address)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
]);
/** How far below the lowest head the providers' hashes are compared (a block all of them should have). */
const AGREEMENT_DEPTH = 2n;

/** One pending check of the batch: its request and how its answer becomes a row. */
interface Probe {
  request: RpcRequest;
  row: (answer: RpcResult) => Omit<DeploymentCheck, 'chain_id'>;
}

const call = (to: string, abi: Abi, functionName: string, args: unknown[] = []): RpcRequest => ({
  method: 'eth_call',
  params: [{ to, data: encodeFunctionData({ abi, functionName, args } as never) }, 'latest'],
});

/** The decoded result of an eth_call answer, or undefined when it failed or does not decode. */
function decoded(answer: RpcResult, abi: Abi, functionName: string): unknown {
  if (!answer.ok || typeof answer.result !== 'string' || answer.result === '0x') return undefined;
  try {
    return decodeFunctionResult({ abi, functionName, data: answer.result as Hex } as never);
  } catch {
    return undefined;
  }
}

const failure = (answer: RpcResult) => (answer.ok ? 'no decodable answer' : `error: ${answer.error.message}`);

/** Checks one chain's manifest against its RPC; returns the rows and the from_factory fields it resolved. */
export async function checkDeployment(
  deps: DeploymentDeps,
  input: { chainId: ChainId },
): Promise<{ checks: DeploymentCheck[]; resolved: ResolvedField[] }> {
  const { chainId } = input;
  const checks: DeploymentCheck[] = [];
  const add = (row: Omit<DeploymentCheck, 'chain_id'>) => checks.push({ chain_id: chainId, ...row });
  const resolved: ResolvedField[] = [];
  const manifest = deps.deployments.get(chainId);
  if (!manifest) {
    add({ check: 'manifest', expected: `a manifest for chain ${chainId}`, found: 'none', ok: false });
    return { checks, resolved };
  }

  // Round 1, every provider: its chain id and head.
  const endpoints = deps.chains.endpoints(chainId);
  const heads = await Promise.all(
    endpoints.map(async (endpoint, i) => {
      const label = endpoints.length > 1 ? `rpc ${i + 1} eth_chainId` : 'rpc eth_chainId';
      try {
        const [id, head] = await endpoint.batchResults<Hex>([
          { method: 'eth_chainId', params: [] },
          { method: 'eth_blockNumber', params: [] },
        ]);
        const found = Number(BigInt(id as Hex));
        add({ check: label, expected: String(chainId), found: String(found), ok: found === chainId });
        return found === chainId ? { endpoint, head: BigInt(head as Hex) } : undefined;
      } catch (err) {
        add({
          check: label,
          expected: String(chainId),
          found: `unreachable: ${(err as Error).message}`,
          ok: false,
        });
        return undefined;
      }
    }),
  );
  const live = heads.filter((h): h is { endpoint: RpcEndpoint; head: bigint } => h !== undefined);
  if (endpoints.length === 0)
    add({ check: 'rpc', expected: `RPC_URL_${chainId}`, found: 'not configured', ok: false });
  const first = live[0];
  if (!first) return { checks, resolved };

  // Round 2, one provider: everything else in one batch.
  const probes: Probe[] = [];
  const codeChecked = new Set<string>();
  const hasCode = (label: string, address: string) => {
    if (address === FROM_FACTORY || address === zeroAddress || codeChecked.has(address)) return;
    codeChecked.add(address);
    probes.push({
      request: { method: 'eth_getCode', params: [address, 'latest'] },
      row: (a) => {
        const size = a.ok && typeof a.result === 'string' ? (a.result.length - 2) / 2 : 0;
        return {
          check: `code ${label}`,
          expected: `code at ${address}`,
          found: size > 0 ? `${size} bytes` : 'no code',
          ok: size > 0,
        };
      },
    });
  };
  for (const suite of manifest.suites) {
    const contracts = suite.contracts as Record<string, string | undefined>;
    for (const [field, address] of Object.entries(contracts))
      if (address) hasCode(`${suite.id}.${field}`, address);
    const factory = contracts.factory as string;
    for (const [field, view] of Object.entries(FACTORY_VIEWS)) {
      const listed = contracts[field];
      // Historical factories are checked only for what must be read from them.
      if (listed === undefined || (suite.status !== 'current' && listed !== FROM_FACTORY)) continue;
      probes.push({
        request: call(factory, FACTORY, view),
        row: (a) => {
          const value = decoded(a, FACTORY, view) as Address | undefined;
          const found = value ? getAddress(value) : failure(a);
          if (listed === FROM_FACTORY) {
            const ok = value !== undefined && value !== zeroAddress;
            if (ok) resolved.push({ chainId, suiteId: suite.id, field, address: getAddress(value) });
            return { check: `${suite.id} factory.${view}()`, expected: 'read from the factory', found, ok };
          }
          return { check: `${suite.id} factory.${view}()`, expected: listed, found, ok: found === listed };
        },
      });
    }
    if (suite.status === 'current') {
      probes.push({
        request: call(factory, FACTORY, 'configVersion'),
        row: (a) => {
          const v = decoded(a, FACTORY, 'configVersion');
          return {
            check: `${suite.id} factory.configVersion()`,
            expected: 'a version',
            found: v === undefined ? failure(a) : String(v),
            ok: v !== undefined,
          };
        },
      });
      for (const quote of manifest.quotes.filter((q) => q.suite_id === suite.id)) {
        if (quote.address !== zeroAddress) hasCode(`quote ${quote.symbol}`, quote.address);
        probes.push({
          request: call(factory, FACTORY, 'quoteConfig', [quote.address]),
          row: (a) => {
            const v = decoded(a, FACTORY, 'quoteConfig') as [boolean, ...unknown[]] | undefined;
            return {
              check: `${suite.id} quoteConfig(${quote.symbol})`,
              expected: 'registered',
              found: v === undefined ? failure(a) : v[0] ? 'registered' : 'not registered',
              ok: v?.[0] === true,
            };
          },
        });
      }
    }
  }
  const current = manifest.suites.find((s) => s.status === 'current') ?? manifest.suites[0];
  if (current) {
    const c = current.contracts;
    const permit2 = c.permit ?? PERMIT2_ADDRESS;
    const domain = domainSeparator({
      domain: { name: 'Permit2', chainId, verifyingContract: permit2 as Address },
    });
    probes.push({
      request: call(permit2, UNISWAP_VIEWS, 'DOMAIN_SEPARATOR'),
      row: (a) => {
        const v = decoded(a, UNISWAP_VIEWS, 'DOMAIN_SEPARATOR') as Hex | undefined;
        return {
          check: 'Permit2 DOMAIN_SEPARATOR()',
          expected: domain,
          found: v ?? failure(a),
          ok: v === domain,
        };
      },
    });
    probes.push({
      request: call(c.pool_manager, UNISWAP_VIEWS, 'owner'),
      row: (a) => {
        const v = decoded(a, UNISWAP_VIEWS, 'owner') as Address | undefined;
        return {
          check: 'PoolManager owner()',
          expected: 'an answer',
          found: v ?? failure(a),
          ok: v !== undefined,
        };
      },
    });
    for (const [name, address] of [
      ['StateView', c.state_view],
      ['V4Quoter', c.quoter],
    ] as const) {
      probes.push({
        request: call(address, UNISWAP_VIEWS, 'poolManager'),
        row: (a) => {
          const v = decoded(a, UNISWAP_VIEWS, 'poolManager') as Address | undefined;
          const found = v ? getAddress(v) : failure(a);
          return {
            check: `${name} poolManager()`,
            expected: c.pool_manager,
            found,
            ok: found === c.pool_manager,
          };
        },
      });
    }
  }
  try {
    const answers = await first.endpoint.batch(probes.map((p) => p.request));
    probes.forEach((p, i) => add(p.row(answers[i] as RpcResult)));
  } catch (err) {
    add({ check: 'rpc batch', expected: 'answers', found: (err as Error).message, ok: false });
  }
  for (const suite of manifest.suites) {
    add({
      check: `${suite.id} first_block`,
      expected: `≤ head ${first.head}`,
      found: String(suite.first_block),
      ok: BigInt(suite.first_block) <= first.head,
    });
  }

  // Round 3, with several providers: do they agree on a recent block?
  if (live.length > 1) {
    const block = live.reduce((min, h) => (h.head < min ? h.head : min), first.head) - AGREEMENT_DEPTH;
    const tag = `0x${(block < 0n ? 0n : block).toString(16)}`;
    const hashes = await Promise.all(
      live.map((h) =>
        h.endpoint
          .request('eth_getBlockByNumber', [tag, false])
          .then((r) => (r.ok ? ((r.result as { hash?: string } | null)?.hash ?? 'none') : 'error'))
          .catch(() => 'unreachable'),
      ),
    );
    add({
      check: `providers agree on block ${block}`,
      expected: hashes[0] as string,
      found: hashes.join(', '),
      ok: hashes.every((h) => h === hashes[0] && h.startsWith('0x')),
    });
  }
  return { checks, resolved };
}

/** Every chain with an RPC, checked in parallel. */
export async function checkDeployments(
  deps: DeploymentDeps,
  chainIds: readonly ChainId[],
): Promise<{ checks: DeploymentCheck[]; resolved: ResolvedField[] }> {
  const results = await Promise.all(
    chainIds
      .filter((id) => deps.chains.isConfigured(id))
      .map((chainId) => checkDeployment(deps, { chainId })),
  );
  return { checks: results.flatMap((r) => r.checks), resolved: results.flatMap((r) => r.resolved) };
}
