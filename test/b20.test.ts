// B20 on Base, on the devnet's emulation of the precompiles: launch prepare predicts the address the B20
// factory really deploys to (salt mined through batched getB20Address calls), the token trades through
// the hook and takes metadata updates, and the asset feature is read live: off, launches are refused.
import {
  type Abi,
  type Address,
  decodeFunctionData,
  encodeAbiParameters,
  type Hex,
  keccak256,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  B20ActivationRegistryAbi,
  B20FactoryAbi,
  B20TokenAbi,
  LaunchFactoryAbi,
  LaunchTokenAbi,
} from '../contracts/artifacts/index.ts';
import type { Devnet } from '../src/devnet/devnet.ts';
import { B20_ABI, B20_ACTIVATION_REGISTRY, B20_ASSET_FEATURE, B20_FACTORY } from '../src/launchpad/b20.ts';
import { ERC20, TestChain } from './support/chain.ts';
import { type DevnetGateway, postFresh, startDevnetGateway } from './support/devnetGateway.ts';
import { call, expectProblem } from './support/gateway.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
let env: DevnetGateway;
let base: TestChain;

beforeAll(async () => {
  env = await startDevnetGateway();
  base = new TestChain(env.devnet.chains[0] as Devnet['chains'][number]);
}, 60_000);
afterAll(() => env?.close());

const post = (path: string, body: unknown) => postFresh(env, path, body);

async function sendAll(from: Address, steps: { transaction: { to: Address; data: Hex; value: string } }[]) {
  for (const s of steps)
    await base.send(from, s.transaction.to, s.transaction.data, BigInt(s.transaction.value));
}

const launchBody = (creator: Address) => ({
  chain_id: 8453,
  creator,
  market: 'standard',
  quote_address: zeroAddress,
  token: {
    name: 'Base Asset',
    symbol: 'BASSET',
    image_base64: PNG,
    image_type: 'image/png',
    editable_metadata: true,
  },
});

const setFeature = (active: boolean) =>
  base.call(base.account(0), B20_ACTIVATION_REGISTRY, B20ActivationRegistryAbi as Abi, 'setActive', [
    B20_ASSET_FEATURE,
    active,
  ]);

describe('B20 launches on Base', () => {
  it('predicts the address the B20 factory deploys to; the asset trades and takes metadata updates', async () => {
    const creator = base.account(1);
    const r = await post('/v1/launches/prepare', launchBody(creator));
    expect(r.status, r.body).toBe(200);
    const predicted = r.json.data.predicted_token_address as Address;
    expect(predicted.toLowerCase().endsWith('01')).toBe(true);
    await sendAll(creator, r.json.data.steps);
    // Created by the B20 factory (not the ERC-20 token deployer), where the prediction said.
    expect(await base.read(predicted, B20TokenAbi as Abi, 'b20Factory')).toBe(B20_FACTORY);
    const createLaunch = r.json.data.steps[0].transaction.data as Hex;
    const { args } = decodeFunctionData({ abi: LaunchFactoryAbi as Abi, data: createLaunch });
    const creatorSalt = (args?.[0] as { creatorSalt: Hex }).creatorSalt;
    const scoped = keccak256(
      encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [creator, creatorSalt]),
    );
    expect(
      await base.read(B20_FACTORY, B20_ABI as Abi, 'getB20Address', [0, base.current.factory, scoped]),
    ).toBe(predicted);
    expect(await base.read(predicted, ERC20, 'symbol')).toBe('BASSET');
    expect(await base.read(predicted, LaunchTokenAbi as Abi, 'contractURI')).toBe(r.json.data.metadata_uri);

    // A buy and a sell through the gateway's plans.
    await base.advance(30);
    const trader = base.account(2);
    const quote = await post('/v1/swaps/quote', {
      chain_id: 8453,
      wallet: trader,
      token_address: predicted,
      side: 'buy',
      amount_in_raw: (10n ** 16n).toString(),
      slippage_bps: 100,
    });
    expect(quote.status, quote.body).toBe(200);
    const buy = await post('/v1/swaps/prepare', { quote_id: quote.json.data.quote_id, wallet: trader });
    expect(buy.status, buy.body).toBe(200);
    await sendAll(trader, buy.json.data.steps);
    const bought = await base.balance(predicted, trader);
    expect(bought).toBeGreaterThanOrEqual(BigInt(quote.json.data.minimum_out_raw));

    // The creator renames it through the gateway; the asset's metadata role is the factory's.
    const rename = await post(`/v1/tokens/8453/${predicted}/metadata/onchain/prepare`, {
      actor: creator,
      name: 'Base Asset Renamed',
    });
    expect(rename.status, rename.body).toBe(200);
    await sendAll(creator, rename.json.data.steps);
    expect(await base.read(predicted, ERC20, 'name')).toBe('Base Asset Renamed');
  });

  it('reads b20_asset_status live and refuses launches while the feature is off', async () => {
    const status = async () =>
      (await call(env.gw, '/v1/config?chain_id=8453&include=chains,suites', { key: env.key })).json;
    expect((await status()).data.chain.capabilities).toEqual({
      launch_token_mode: 'b20',
      b20_asset_status: 'active',
    });
    await setFeature(false);
    try {
      expect((await status()).data.chain.capabilities.b20_asset_status).toBe('inactive');
      const refused = await post('/v1/launches/prepare', launchBody(base.account(3)));
      expectProblem(refused, 422, 'unsupported_operation');
      expect(refused.json.detail).toMatch(/B20 asset creation is not active/);
      // The chain agrees: the factory reverts FeatureInactive.
      const { params } = await base.launchParams(base.account(3));
      const fee = await base.read<bigint>(base.current.factory, LaunchFactoryAbi as Abi, 'nativeLaunchFee');
      const abi = [...(LaunchFactoryAbi as Abi), ...(B20FactoryAbi as Abi)];
      expect(
        await base.revertName(base.account(3), base.current.factory, abi, 'createLaunch', [params], fee),
      ).toBe('FeatureInactive');
    } finally {
      await setFeature(true);
    }
    expect((await status()).data.chain.capabilities.b20_asset_status).toBe('active');
    const again = await post('/v1/launches/prepare', launchBody(base.account(3)));
    expect(again.status, again.body).toBe(200);

    // Unreadable (no code at the registry): not_checked, with a warning.
    const code = await base.client.getCode({ address: B20_ACTIVATION_REGISTRY });
    const setCode = (c: Hex) =>
      base.client.request({ method: 'anvil_setCode', params: [B20_ACTIVATION_REGISTRY, c] } as never);
    await setCode('0x');
    try {
      const body = await status();
      expect(body.data.chain.capabilities.b20_asset_status).toBe('not_checked');
      expect(body.meta.warnings.join(' ')).toMatch(/B20 activation status could not be read/);
    } finally {
      await setCode(code as Hex);
    }
    const chainOnly = (await call(env.gw, '/v1/config?chain_id=8453&include=chains', { key: env.key })).json;
    expect(chainOnly.data.chain.capabilities.b20_asset_status).toBe('not_checked');
  });
});
