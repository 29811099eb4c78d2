// Poison text from the chain: tokens launched straight through the factory with names and symbols that
// hold NUL, invalid UTF-8, control characters and bidi overrides; renames, extra metadata and
// announcements likewise; and a log that does not decode. On SQLite and PostgreSQL the index keeps going,
// stores valid UTF-8 (NUL and invalid sequences replaced) with the raw bytes beside it, and serves both.
import {
  type Abi,
  type AbiFunction,
  type AbiParameter,
  type Address,
  concatHex,
  encodeAbiParameters,
  type Hex,
  keccak256,
  stringToHex,
  toEventSelector,
  toFunctionSelector,
  toHex,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as A from '../contracts/artifacts/index.ts';
import { startIndexer } from '../src/indexer/indexer.ts';
import { TestChain } from './support/chain.ts';
import {
  type DevnetGateway,
  startDevnetGateway,
  startTestIndexer,
  waitIndexed,
} from './support/devnetGateway.ts';
import { call, freshPostgres } from './support/gateway.ts';

const FACTORY = A.LaunchFactoryAbi as Abi;

/** A function's inputs with every `string` read as `bytes` (one ABI encoding), to send raw bytes. */
function asBytes(params: readonly AbiParameter[]): AbiParameter[] {
  return params.map((p) => {
    const q = p as AbiParameter & { components?: readonly AbiParameter[] };
    const type = q.type.replace(/^string/, 'bytes');
    return q.components
      ? ({ ...q, type, components: asBytes(q.components) } as AbiParameter)
      : { ...q, type };
  });
}

/** Calldata of a function of `abi`, with its string arguments given as raw bytes (hex). */
function rawCall(abi: Abi, name: string, args: unknown[]): Hex {
  const fn = abi.find((x) => x.type === 'function' && x.name === name) as AbiFunction;
  return concatHex([toFunctionSelector(fn), encodeAbiParameters(asBytes(fn.inputs), args as never)]);
}

describe.each(['sqlite', 'postgres'] as const)('poison text from the chain, on %s', (kind) => {
  let env: DevnetGateway;
  let base: TestChain;
  let indexer: ReturnType<typeof startIndexer>;

  beforeAll(async () => {
    env = await startDevnetGateway(
      kind === 'postgres' ? { DATABASE_URL: await freshPostgres(inject('postgresUrl')) } : {},
    );
    base = new TestChain(env.devnet.chains[0] as DevnetGateway['devnet']['chains'][number]);
    indexer = startTestIndexer(env.gw, env.devnet);
  }, 60_000);
  afterAll(async () => {
    await indexer?.stop();
    await env?.close();
  });

  const get = (path: string) => call(env.gw, path, { key: env.key });

  const indexed = () => waitIndexed(env.gw, env.key, base.client);

  /** Launches through the factory with raw name and symbol bytes; returns the token. */
  async function launchRaw(creator: Address, name: Hex, symbol: Hex): Promise<Address> {
    const factory = base.current.factory;
    const params = {
      tokenName: name,
      tokenSymbol: symbol,
      tokenContractURI: stringToHex('ipfs://bafkreipoison'),
      creatorSalt: `0x${'00'.repeat(32)}` as Hex,
      quoteToken: zeroAddress,
      expectedConfigVersion: await base.read<bigint>(factory, FACTORY, 'configVersion'),
      deadline: (await base.timestamp()) + 900n,
      metadataEditable: true,
      metadataKeys: [],
      metadataValues: [],
    };
    // Base's suite is B20: the B20 factory derives the address, whatever the name's bytes.
    const salt = await base.mineB20(factory, creator);
    params.creatorSalt = salt.creatorSalt;
    const fee = await base.read<bigint>(factory, FACTORY, 'nativeLaunchFee');
    await base.send(creator, factory, rawCall(FACTORY, 'createLaunch', [params]), fee);
    return salt.predictedToken;
  }

  it('keeps indexing, stores safe text with the raw bytes, and serves both', async () => {
    const creator = base.account(1);
    const nul = await launchRaw(creator, stringToHex('Null\u0000Byte'), stringToHex('N\u0000L'));
    // 0xff and a truncated 3-byte sequence are not UTF-8.
    const badName = concatHex([stringToHex('Bad'), '0xff', stringToHex('Name'), '0xe282']);
    const invalid = await launchRaw(creator, badName, '0xc3');
    const bidi = await launchRaw(creator, stringToHex('Evil\u202eTxt\u0007'), stringToHex('\u2066B\u2069'));

    // A rename to invalid bytes and extra metadata with a NUL, through the factory.
    const rename = concatHex([stringToHex('Re'), '0x80', stringToHex('named')]);
    await base.send(creator, base.current.factory, rawCall(FACTORY, 'updateTokenName', [bidi, rename]));
    await base.send(
      creator,
      base.current.factory,
      rawCall(FACTORY, 'updateTokenExtraMetadata', [bidi, stringToHex('k\u0000ey'), '0xfe']),
    );
    // An announcement whose text has a NUL and invalid bytes.
    const id = keccak256(toHex('poison announcement'));
    await base.send(
      creator,
      base.current.announcement_registry,
      rawCall(A.AnnouncementRegistryAbi as Abi, 'postAnnouncement', [
        nul,
        id,
        concatHex([stringToHex('gm\u0000'), '0xfffe']),
        stringToHex('https://example.org/\u0000'),
      ]),
    );

    // A log that does not decode, from an address the index follows: the escrow's code is swapped for
    // one that emits Credited's topic with one byte of data, called once, then put back.
    const escrow = base.current.fee_escrow;
    const original = await base.client.getCode({ address: escrow });
    const topic = toEventSelector(
      (A.FeeEscrowAbi as Abi).find((x) => x.type === 'event' && x.name === 'Credited') as never,
    );
    const poison = `0x7f${topic.slice(2)}60016000a100` as Hex;
    await base.client.request({ method: 'anvil_setCode', params: [escrow, poison] } as never);
    const bad = await base.send(creator, escrow, '0x');
    await base.client.request({ method: 'anvil_setCode', params: [escrow, original] } as never);

    // The index goes past all of it, and a launch after it is indexed like any other.
    const after = await base.launch(base.account(2), { name: 'After Poison', symbol: 'AFTR' });
    await indexed();
    expect((await get(`/v1/tokens/8453/${after.token}`)).status).toBe(200);

    const token = async (t: Address) => (await get(`/v1/tokens/8453/${t}`)).json.data.token;
    expect(await token(nul)).toMatchObject({
      name: 'Null\uFFFDByte',
      symbol: 'N\uFFFDL',
      raw_hex: { name: stringToHex('Null\u0000Byte'), symbol: stringToHex('N\u0000L') },
    });
    expect(await token(invalid)).toMatchObject({
      name: 'Bad\uFFFDName\uFFFD',
      symbol: '\uFFFD',
      raw_hex: { name: badName, symbol: '0xc3' },
    });
    // Valid UTF-8 is stored as it is (JSON escapes what needs it); only the rename lost bytes.
    const renamed = await token(bidi);
    expect(renamed).toMatchObject({
      name: 'Re\uFFFDnamed',
      symbol: '\u2066B\u2069',
      raw_hex: { name: rename },
    });
    expect(renamed.extra_metadata).toEqual({ 'k\uFFFDey': '\uFFFD' });
    // Search still works around them.
    const found = await get('/v1/tokens/search?chain_id=8453&q=named');
    expect(found.json.data.map((t: { token: { address: string } }) => t.token.address)).toContain(bidi);

    const posts = (await get(`/v1/tokens/8453/${nul}/announcements`)).json.data;
    expect(posts).toEqual([
      expect.objectContaining({
        announcement_id: id,
        description: 'gm\uFFFD\uFFFD\uFFFD',
        uri: 'https://example.org/\uFFFD',
        raw_hex: {
          description: concatHex([stringToHex('gm\u0000'), '0xfffe']),
          uri: stringToHex('https://example.org/\u0000'),
        },
      }),
    ]);

    // The undecodable log was recorded once, with why.
    const skipped = await env.gw.database.db.selectFrom('skipped_logs').selectAll().execute();
    expect(skipped).toEqual([
      expect.objectContaining({ tx_hash: bad.transactionHash, address: escrow, chain_id: 8453 }),
    ]);
  }, 60_000);
});
