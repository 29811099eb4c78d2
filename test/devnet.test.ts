// The local devnet: four anvils with their chain ids, Uniswap v4, Permit2 and the launchpad suites
// deployed and wired, described by manifests in the production format.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  hashDomain,
  http,
  parseAbi,
} from 'viem';
import {
  AnnouncementRegistryAbi,
  FeeEscrowAbi,
  LaunchBuyAdapterAbi,
  LaunchFactoryAbi,
  LaunchHookAbi,
} from '../contracts/artifacts/index.ts';
import {
  B20_ABI,
  B20_ACTIVATION_REGISTRY,
  B20_ASSET_FEATURE,
  B20_FACTORY,
  MULTICALL3,
} from '../src/launchpad/b20.ts';
import { parseManifest } from '../src/launchpad/manifest.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, startDevnet } from '../src/devnet/devnet.ts';
import { PERMIT2_ADDRESS } from '../src/chain/uniswap.ts';
import { tempDir } from './support/gateway.ts';
import { freePortRange } from './support/net.ts';

let devnet: Devnet;
const dataDir = tempDir();
let basePort: number;

beforeAll(async () => {
  basePort = await freePortRange(4);
  devnet = await startDevnet({ dataDir, basePort });
}, 60_000);
afterAll(() => devnet?.stop());

const views = parseAbi([
  'function poolManager() view returns (address)',
  'function owner() view returns (address)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
]);

describe('devnet', () => {
  it('runs one anvil per supported chain id on consecutive ports', async () => {
    expect(devnet.chains.map((c) => [c.chain_id, c.rpc_url])).toEqual([
      [8453, `http://127.0.0.1:${basePort}`],
      [4663, `http://127.0.0.1:${basePort + 1}`],
      [143, `http://127.0.0.1:${basePort + 2}`],
      [5042, `http://127.0.0.1:${basePort + 3}`],
    ]);
    for (const chain of devnet.chains) {
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      expect(await client.getChainId()).toBe(chain.chain_id);
      expect(chain.accounts.length).toBeGreaterThanOrEqual(10);
      expect(await client.getBalance({ address: chain.accounts[1] as `0x${string}` })).toBeGreaterThan(
        10n ** 21n,
      );
    }
  });

  it('keeps time like a real chain: empty blocks every 2 s while idle, transactions mined at once', async () => {
    const chain = devnet.chains[1] as Devnet['chains'][number];
    const client = createPublicClient({ transport: http(chain.rpc_url) });
    const before = await client.getBlock({ blockTag: 'latest' });
    // Two empty blocks come within about 4 s (polled up to 10 s: a loaded machine may be late).
    let after = before;
    for (let i = 0; i < 100 && after.number - before.number < 2n; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await client.getBlock({ blockTag: 'latest' });
    }
    expect(after.number - before.number).toBeGreaterThanOrEqual(2n);
    expect(after.timestamp).toBeGreaterThan(before.timestamp);
    expect(after.transactions).toEqual([]);
    const wallet = createWalletClient({ transport: http(chain.rpc_url) });
    const sent = performance.now();
    const hash = await wallet.sendTransaction({
      account: chain.accounts[3] as Address,
      chain: null,
      to: chain.accounts[3] as Address,
      value: 1n,
    });
    // Mined at once, not at the next interval block (up to 2 s away): the receipt is there within a
    // second even on a loaded machine (polled every 20 ms).
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 5_000 });
    expect(receipt.status).toBe('success');
    expect(performance.now() - sent).toBeLessThan(1_000);
  });

  it('places Multicall3 on every chain and emulates the B20 precompiles on Base', async () => {
    for (const chain of devnet.chains) {
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      expect(((await client.getCode({ address: MULTICALL3 })) ?? '0x').length).toBeGreaterThan(2);
      const b20 = ((await client.getCode({ address: B20_FACTORY })) ?? '0x').length > 2;
      expect([chain.chain_id, b20]).toEqual([chain.chain_id, chain.chain_id === 8453]);
    }
    const base = createPublicClient({ transport: http(devnet.chains[0]?.rpc_url) });
    expect(
      await base.readContract({
        address: B20_ACTIVATION_REGISTRY,
        abi: B20_ABI,
        functionName: 'isActive',
        args: [B20_ASSET_FEATURE],
      }),
    ).toBe(true);
  });

  it('deploys Uniswap v4 and places Permit2 at its canonical address, wired together', async () => {
    for (const chain of devnet.chains) {
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      const u = chain.uniswap;
      for (const address of Object.values(u)) {
        expect(((await client.getCode({ address })) ?? '0x').length).toBeGreaterThan(2);
      }
      for (const address of [u.state_view, u.quoter, u.position_manager]) {
        expect(await client.readContract({ address, abi: views, functionName: 'poolManager' })).toBe(
          u.pool_manager,
        );
      }
      expect(await client.readContract({ address: u.pool_manager, abi: views, functionName: 'owner' })).toBe(
        chain.accounts[0],
      );
      // Permit2 answers with the EIP-712 domain of this chain and the canonical address.
      const domain = await client.readContract({
        address: PERMIT2_ADDRESS,
        abi: views,
        functionName: 'DOMAIN_SEPARATOR',
      });
      const expected: Hex = hashDomain({
        domain: { name: 'Permit2', chainId: BigInt(chain.chain_id), verifyingContract: PERMIT2_ADDRESS },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      });
      expect(domain).toBe(expected);
    }
  });

  it('deploys the quote tokens and funds the first accounts with them', async () => {
    const erc20 = parseAbi([
      'function symbol() view returns (string)',
      'function decimals() view returns (uint8)',
      'function balanceOf(address) view returns (uint256)',
    ]);
    const expected: Record<number, string[]> = {
      8453: ['WETH:18', 'USDC:6', 'DSTK:8'],
      4663: ['WETH:18', 'USDG:6', 'DSTK:18'],
      143: ['WETH:18', 'USDC:6'],
      5042: ['USDC:6'],
    };
    for (const chain of devnet.chains) {
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      const seen: string[] = [];
      for (const q of chain.quotes.filter((q) => q.asset_type !== 'native')) {
        const symbol = await client.readContract({ address: q.address, abi: erc20, functionName: 'symbol' });
        const decimals = await client.readContract({
          address: q.address,
          abi: erc20,
          functionName: 'decimals',
        });
        seen.push(`${symbol}:${decimals}`);
        expect(decimals).toBe(q.decimals);
        if (q.symbol === 'WETH') continue;
        const balance = await client.readContract({
          address: q.address,
          abi: erc20,
          functionName: 'balanceOf',
          args: [chain.accounts[4] as `0x${string}`],
        });
        expect(balance).toBe(1_000_000n * 10n ** BigInt(q.decimals));
      }
      expect(seen).toEqual(expected[chain.chain_id]);
    }
  });

  it('writes devnet.json with every chain', () => {
    const written = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
    expect(written.chains).toEqual(JSON.parse(JSON.stringify(devnet.chains)));
  });
});

describe('devnet launchpad suites', () => {
  const A = {
    factory: LaunchFactoryAbi as Abi,
    hook: LaunchHookAbi as Abi,
    escrow: FeeEscrowAbi as Abi,
    registry: AnnouncementRegistryAbi as Abi,
    adapter: LaunchBuyAdapterAbi as Abi,
  };

  it('writes one manifest per chain in the production format, matching what is deployed', async () => {
    const fees: Record<number, bigint> = {
      8453: 10n ** 15n,
      4663: 10n ** 15n,
      143: 0n,
      5042: 2n * 10n ** 18n,
    };
    for (const chain of devnet.chains) {
      const client = createPublicClient({ transport: http(chain.rpc_url) });
      const read = (address: string, abi: Abi, functionName: string, args: unknown[] = []) =>
        client.readContract({
          address: address as Address,
          abi,
          functionName,
          args,
        } as never) as Promise<unknown>;
      const manifest = parseManifest(JSON.parse(readFileSync(chain.manifest_path, 'utf8')));
      expect(manifest.chain_id).toBe(chain.chain_id);
      const current = manifest.suites.find((s) => s.status === 'current');
      const c = current?.contracts as Required<NonNullable<typeof current>['contracts']>;
      expect(c).toMatchObject(chain.suites[0]?.contracts as object);
      expect(current?.routes).toEqual(
        chain.chain_id === 8453 || chain.chain_id === 4663 ? ['rwa', 'standard'] : ['standard'],
      );

      // The hook sits at an address carrying its permission bits, wired to its factory and escrow.
      expect(Number(BigInt(c.hook) & 0x3fffn)).toBe(0x2acc);
      expect(await read(c.hook, A.hook, 'factory')).toBe(c.factory);
      expect(await read(c.hook, A.hook, 'feeEscrow')).toBe(c.fee_escrow);
      expect(await read(c.fee_escrow, A.escrow, 'hook')).toBe(c.hook);
      expect(await read(c.announcement_registry, A.registry, 'factory')).toBe(c.factory);
      expect(await read(c.factory, A.factory, 'announcementRegistry')).toBe(c.announcement_registry);
      expect(await read(c.factory, A.factory, 'launchBuyAdapter')).toBe(c.launch_buy_adapter);
      expect(await read(c.factory, A.factory, 'tokenDeployer')).toBe(c.token_deployer);
      expect(await read(c.factory, A.factory, 'launchCreationEnabled')).toBe(true);
      expect(await read(c.factory, A.factory, 'nativeLaunchFee')).toBe(fees[chain.chain_id]);
      expect(await read(c.factory, A.factory, 'launchSupply')).toBe(10n ** 27n);
      expect(await read(c.factory, A.factory, 'platformFeeRecipient')).toBe(chain.accounts[9]);

      // Every manifest quote is registered on its suite's factory with its decimals.
      expect(manifest.quotes.length).toBeGreaterThan(0);
      for (const q of manifest.quotes) {
        const [registered, decimals] = (await read(c.factory, A.factory, 'quoteConfig', [q.address])) as [
          boolean,
          number,
        ];
        expect([q.symbol, registered, decimals]).toEqual([q.symbol, true, q.decimals]);
      }
      const historical = manifest.suites.filter((s) => s.status === 'historical');
      expect(historical.length).toBe(chain.chain_id === 8453 ? 1 : 0);
      for (const h of historical) {
        expect(h.contracts.vesting_vault).toBeDefined();
        expect(await read(h.contracts.factory, A.factory, 'launchCreationEnabled')).toBe(false);
      }
    }
  });
});
