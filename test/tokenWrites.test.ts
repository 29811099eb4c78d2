// Claims, metadata and announcements end to end on the devnet: prepare over HTTP, send every step as
// the wallet, check the chain; and each refusal.
import { randomUUID } from 'node:crypto';
import { type Abi, type Address, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AnnouncementRegistryAbi,
  FeeEscrowAbi,
  LaunchTokenAbi,
  VestingVaultAbi,
} from '../contracts/artifacts/index.ts';
import type { Devnet } from '../src/devnet/devnet.ts';
import { ERC20, TestChain } from './support/chain.ts';
import { call, expectProblem, type TestGateway } from './support/gateway.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
let env: DevnetGateway;
let devnet: Devnet;
let gw: TestGateway;
let key: string;
let base: TestChain;

beforeAll(async () => {
  env = await startDevnetGateway();
  ({ devnet, gw, key } = env);
  base = new TestChain(devnet.chains[0] as Devnet['chains'][number]);
}, 60_000);
afterAll(() => env?.close());

const post = (path: string, body: unknown, idempotent = false) => {
  gw.clock.advance(61_000); // out of the per-minute ceilings' way over a long test
  return call(gw, path, {
    key,
    method: 'POST',
    body,
    headers: idempotent ? { 'idempotency-key': randomUUID() } : {},
  });
};

/** Sends every transaction step of a prepared plan as `from`; returns the receipts. */
async function send(
  from: Address,
  data: { steps: { transaction: { to: Address; data: Hex; value: string } }[] },
) {
  const receipts = [];
  for (const s of data.steps)
    receipts.push(await base.send(from, s.transaction.to, s.transaction.data, BigInt(s.transaction.value)));
  return receipts;
}

const owed = (who: Address) =>
  base.read<bigint>(base.current.fee_escrow, FeeEscrowAbi as Abi, 'owed', [who, zeroAddress]);

describe('fee claims', () => {
  it('claims fees both ways and the balances move; refusals have their codes', async () => {
    const creator = base.account(1);
    const referrer = base.account(3);
    const bystander = base.account(4);
    const destination = base.account(5);
    const { key: pool } = await base.launch(creator);
    await base.advance(21);
    await base.swap(base.account(2), pool, zeroAddress, 10n ** 18n, { referrer });
    const escrow = base.current.fee_escrow;
    const position = (recipient: Address, mode: string, extra = {}) => ({
      recipient,
      fee_escrow: escrow,
      currency: zeroAddress,
      mode,
      ...extra,
    });

    const creatorOwed = await owed(creator);
    const r = await post('/v1/claims/fees/prepare', {
      chain_id: 8453,
      caller: bystander,
      claims: [position(creator, 'to_recipient')],
    });
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.review).toEqual({
      claims: [
        {
          kind: 'fee',
          recipient: creator,
          destination: creator,
          fee_escrow: escrow,
          currency: zeroAddress,
          mode: 'to_recipient',
          claimable_raw: creatorOwed.toString(),
          step_id: 'claim-1',
        },
      ],
      atomic: false,
    });
    const before = await base.balance(zeroAddress, creator);
    await send(bystander, r.json.data);
    expect((await base.balance(zeroAddress, creator)) - before).toBe(creatorOwed);

    // Redirect: the referrer sends its own balance to another address; a zero position is only warned.
    const referrerOwed = await owed(referrer);
    const mixed = await post('/v1/claims/fees/prepare', {
      chain_id: 8453,
      caller: referrer,
      claims: [position(referrer, 'redirect', { destination }), position(creator, 'to_recipient')],
    });
    expect(mixed.status, mixed.body).toBe(200);
    expect(mixed.json.data.steps).toHaveLength(1);
    expect(mixed.json.data.issues).toEqual([
      expect.objectContaining({ code: 'nothing_to_claim', severity: 'warning', position: 1 }),
    ]);
    const destBefore = await base.balance(zeroAddress, destination);
    await send(referrer, mixed.json.data);
    expect((await base.balance(zeroAddress, destination)) - destBefore).toBe(referrerOwed);

    expectProblem(
      await post('/v1/claims/fees/prepare', {
        chain_id: 8453,
        caller: bystander,
        claims: [position(creator, 'to_recipient')],
      }),
      409,
      'nothing_to_claim',
    );
    expectProblem(
      await post('/v1/claims/fees/prepare', {
        chain_id: 8453,
        caller: bystander,
        claims: [position(referrer, 'redirect')],
      }),
      403,
      'wallet_not_authorized',
    );
    expectProblem(
      await post('/v1/claims/fees/prepare', {
        chain_id: 8453,
        caller: bystander,
        claims: [{ ...position(creator, 'to_recipient'), fee_escrow: base.current.factory }],
      }),
      422,
      'unsupported_operation',
    );
    expectProblem(
      await post('/v1/claims/fees/prepare', {
        chain_id: 8453,
        caller: bystander,
        claims: [position(creator, 'to_recipient'), position(creator, 'redirect')],
      }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await post('/v1/claims/fees/prepare', {
        chain_id: 8453,
        caller: creator,
        claims: [position(creator, 'to_recipient', { destination })],
      }),
      400,
      'incompatible_parameters',
    );
    expectProblem(
      await post('/v1/claims/fees/prepare', { chain_id: 8453, caller: creator, claims: [] }),
      400,
      'invalid_parameter',
    );
  });
});

describe('metadata and announcements', () => {
  async function gatewayLaunch(creator: Address, editable: boolean) {
    const r = await post(
      '/v1/launches/prepare',
      {
        chain_id: 8453,
        creator,
        market: 'standard',
        quote_address: zeroAddress,
        token: {
          name: 'Profiled',
          symbol: 'PRF',
          image_base64: PNG,
          image_type: 'image/png',
          website: 'https://example.org',
          description: 'first',
          editable_metadata: editable,
        },
      },
      true,
    );
    expect(r.status, r.body).toBe(200);
    await send(creator, r.json.data);
    return r.json.data.predicted_token_address as Address;
  }

  it('updates the document: the new contract URI resolves to the merged, pinned document', async () => {
    const creator = base.account(1);
    const token = await gatewayLaunch(creator, true);
    const path = `/v1/tokens/8453/${token}/metadata/document/prepare`;
    const r = await post(
      path,
      { actor: creator, document: { description: 'second', image_base64: GIF } },
      true,
    );
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.review).toMatchObject({
      operation: 'update_profile',
      token_address: token,
      name: 'Profiled',
      description: 'second',
      website: 'https://example.org',
    });
    await send(creator, r.json.data);
    expect(await base.read(token, LaunchTokenAbi as Abi, 'contractURI')).toBe(r.json.data.metadata_uri);
    const doc = (await (
      await fetch(`${gw.origin}/ipfs/${r.json.data.metadata_uri.slice(7)}`)
    ).json()) as Record<string, string>;
    expect(doc).toMatchObject({
      name: 'Profiled',
      symbol: 'PRF',
      description: 'second',
      website: 'https://example.org',
    });
    const image = await fetch(r.json.data.image_url);
    expect(image.headers.get('content-type')).toBe('image/gif');
    expect(doc.image).toBe(`ipfs://${r.json.data.image_url.split('/ipfs/')[1]}`);

    expectProblem(
      await post(path, { actor: base.account(2), document: { description: 'x' } }, true),
      403,
      'wallet_not_authorized',
    );
    expectProblem(await post(path, { actor: creator, document: {} }, true), 400, 'invalid_parameter');
    expectProblem(
      await post(path, { actor: creator, document: { image_uri: 'ipfs://bafy', image_base64: GIF } }, true),
      400,
      'incompatible_parameters',
    );
    expectProblem(
      await post(path, { actor: creator, document: { image_base64: 'aGVsbG8=' } }, true),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await post(path, { actor: creator, document: { website: 'nope' } }, true),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await post(path, { actor: creator, document: { description: 'x' } }),
      400,
      'missing_idempotency_key',
    );
    expectProblem(
      await post(
        `/v1/tokens/8453/${base.quote('USDC')}/metadata/document/prepare`,
        { actor: creator, document: { description: 'x' } },
        true,
      ),
      404,
      'not_found',
    );
    const fixed = await gatewayLaunch(base.account(3), false);
    expectProblem(
      await post(
        `/v1/tokens/8453/${fixed}/metadata/document/prepare`,
        { actor: base.account(3), document: { description: 'x' } },
        true,
      ),
      422,
      'unsupported_operation',
    );
  });

  it('renames on chain, one step per change', async () => {
    const creator = base.account(1);
    const { token } = await base.launch(creator, { editable: true });
    const path = `/v1/tokens/8453/${token}/metadata/onchain/prepare`;
    const r = await post(path, {
      actor: creator,
      name: 'Renamed',
      symbol: 'RNM',
      extra_metadata: [{ key: 'discord', value: 'https://discord.gg/x' }],
    });
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.steps.map((s: { id: string }) => s.id)).toEqual([
      'update-name',
      'update-symbol',
      'update-extra-discord',
    ]);
    await send(creator, r.json.data);
    expect(await base.read(token, ERC20, 'name')).toBe('Renamed');
    expect(await base.read(token, ERC20, 'symbol')).toBe('RNM');
    expect(await base.read(token, LaunchTokenAbi as Abi, 'extraMetadata', ['discord'])).toBe(
      'https://discord.gg/x',
    );
    expectProblem(await post(path, { actor: base.account(2), name: 'Hijack' }), 403, 'wallet_not_authorized');
    expectProblem(await post(path, { actor: creator }), 400, 'invalid_parameter');
    expectProblem(await post(path, { actor: creator, symbol: 'TWO WORDS' }), 400, 'invalid_parameter');
    expectProblem(
      await post(`/v1/tokens/1/${token}/metadata/onchain/prepare`, { actor: creator, name: 'x' }),
      422,
      'unsupported_chain',
    );
  });

  it('answers the deprecated combined form like the focused route, with Deprecation headers', async () => {
    const creator = base.account(1);
    const { token } = await base.launch(creator, { editable: true });
    const r = await post(`/v1/tokens/8453/${token}/metadata/prepare`, {
      actor: creator,
      operation: 'update_symbol',
      symbol: 'OLD',
    });
    expect(r.status, r.body).toBe(200);
    expect(r.headers.get('deprecation')).toBe('@1767225600');
    expect(r.json.data.steps.map((s: { id: string }) => s.id)).toEqual(['update-symbol']);
    await send(creator, r.json.data);
    expect(await base.read(token, ERC20, 'symbol')).toBe('OLD');
    expectProblem(
      await post(`/v1/tokens/8453/${token}/metadata/prepare`, { actor: creator, operation: 'rename' }),
      400,
      'invalid_parameter',
    );
    // Fields of another operation are refused, naming the focused route that takes them.
    const mixed = await post(`/v1/tokens/8453/${token}/metadata/prepare`, {
      actor: creator,
      operation: 'update_name',
      name: 'New',
      document: { description: 'lost otherwise' },
    });
    expect(expectProblem(mixed, 400, 'incompatible_parameters')).toMatchObject({
      suggested_endpoint: `/v1/tokens/8453/${token}/metadata/document/prepare`,
      invalid_parameters: [{ name: 'document', reason: 'conflict' }],
    });
    const both = await post(`/v1/tokens/8453/${token}/metadata/prepare`, {
      actor: creator,
      operation: 'update_name',
      name: 'New',
      symbol: 'NEW',
    });
    expect(expectProblem(both, 400, 'incompatible_parameters').suggested_endpoint).toBe(
      `/v1/tokens/8453/${token}/metadata/onchain/prepare`,
    );
    // update_profile is a document update: its successor Link, its weight and its pinning ceilings.
    const profile = (n: number) =>
      call(gw, `/v1/tokens/8453/${token}/metadata/prepare`, {
        key,
        method: 'POST',
        body: { actor: creator, operation: 'update_profile', document: { description: `take ${n}` } },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
    const first = await profile(1);
    expect(first.status, first.body).toBe(200);
    expect(first.headers.get('link')).toContain(`</v1/tokens/8453/${token}/metadata/document/prepare>`);
    expect((await profile(2)).status).toBe(200);
    expect(expectProblem(await profile(3), 429, 'quota_exceeded').violated_policies).toEqual([
      'document-token-minute',
    ]);
  });

  it('posts an announcement as the current creator only', async () => {
    const creator = base.account(1);
    const { token } = await base.launch(creator, { editable: false });
    const path = `/v1/tokens/8453/${token}/announcements/prepare`;
    const r = await post(path, {
      actor: creator,
      description: 'We are live',
      uri: 'https://example.org/news',
    });
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.announcement_id).toMatch(/^0x[0-9a-f]{64}$/);
    const [receipt] = await send(creator, r.json.data);
    const [event] = base.events(receipt as never, AnnouncementRegistryAbi as Abi, 'AnnouncementPosted');
    expect(event).toMatchObject({
      token,
      creator,
      announcementId: r.json.data.announcement_id,
      description: 'We are live',
      announcementURI: 'https://example.org/news',
    });
    expectProblem(
      await post(path, { actor: base.account(2), description: 'x' }),
      403,
      'wallet_not_authorized',
    );
    expectProblem(
      await post(path, { actor: creator, description: 'd'.repeat(2001) }),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await post(path, { actor: creator, description: 'x', uri: 'javascript:alert(1)' }),
      400,
      'invalid_parameter',
    );
  });
});

// Last: it moves the chain's clock a day ahead of the gateway's.
describe('vesting claims', () => {
  it('claims exactly the unlocked amount once it unlocks', async () => {
    const fixture = base.chain.vesting_launch as NonNullable<Devnet['chains'][number]['vesting_launch']>;
    const vault = base.chain.suites[1]?.contracts.vesting_vault as Address;
    const beneficiary = fixture.beneficiaries[0]?.address as Address;
    const body = {
      chain_id: 8453,
      caller: base.account(4),
      claims: [{ beneficiary, token_address: fixture.token, vault }],
    };
    expectProblem(await post('/v1/claims/vesting/prepare', body), 409, 'nothing_to_claim');
    const schedule = await base.read<{ points: { timestamp: bigint; cumulativeAmount: bigint }[] }>(
      vault,
      VestingVaultAbi as Abi,
      'getSchedule',
      [fixture.token, beneficiary],
    );
    const first = schedule.points[0] as { timestamp: bigint; cumulativeAmount: bigint };
    await base.setNextTimestamp(first.timestamp);
    await base.client.request({ method: 'evm_mine', params: [] } as never);
    const r = await post('/v1/claims/vesting/prepare', body);
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.review.claims[0]).toMatchObject({
      kind: 'vesting',
      beneficiary,
      destination: beneficiary,
      claimable_raw: first.cumulativeAmount.toString(),
    });
    const before = await base.balance(fixture.token, beneficiary);
    await send(base.account(4), r.json.data);
    expect((await base.balance(fixture.token, beneficiary)) - before).toBe(first.cumulativeAmount);
    expectProblem(
      await post('/v1/claims/vesting/prepare', {
        ...body,
        claims: [{ ...body.claims[0], vault: base.current.fee_escrow }],
      }),
      422,
      'unsupported_operation',
    );
  });
});
