// The launch-salt miner: salts found on the event loop and by its worker thread both give the token the
// address the factory will deploy it at, ending in the launch suffix byte.
import { randomBytes } from 'node:crypto';
import { encodeAbiParameters, getContractAddress, type Hex, keccak256 } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { SaltMiner } from '../src/launchpad/saltMiner.ts';

const hex = (n: number) => `0x${randomBytes(n).toString('hex')}` as Hex;
const request = () => ({ tokenDeployer: hex(20), creator: hex(20), initCodeHash: hex(32) });

/** Checks a mined salt against viem's CREATE2 address of keccak256(abi.encode(creator, creatorSalt)). */
function expectValid(r: ReturnType<typeof request>, salt: Awaited<ReturnType<SaltMiner['mine']>>) {
  const scoped = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [r.creator, salt.creatorSalt]),
  );
  expect(salt.scopedSalt).toBe(scoped);
  const address = getContractAddress({
    opcode: 'CREATE2',
    from: r.tokenDeployer,
    salt: scoped,
    bytecodeHash: r.initCodeHash,
  });
  expect(salt.predictedToken).toBe(address);
  expect(address.toLowerCase().endsWith('01')).toBe(true);
}

let miners: SaltMiner[] = [];
afterEach(async () => {
  await Promise.all(miners.map((m) => m.close()));
  miners = [];
});
const miner = (...args: ConstructorParameters<typeof SaltMiner>) => {
  const m = new SaltMiner(...args);
  miners.push(m);
  return m;
};

/** Once the miner is ready, mines `count` requests one after another, each salt checked. */
async function mineInTurn(m: SaltMiner, count: number) {
  await m.ready();
  for (let i = 0; i < count; i++) {
    const r = request();
    expectValid(r, await m.mine(r));
  }
}

describe('SaltMiner', () => {
  it('mines on the event loop when the first candidates suffice, without starting its worker', async () => {
    const m = miner(10_000, 1_000_000);
    await mineInTurn(m, 20);
    expect((m as unknown as { worker?: unknown }).worker).toBeUndefined();
  });

  it('hands the search to its worker past the first candidates', async () => {
    const m = miner(10_000, 0);
    await mineInTurn(m, 10);
    expect((m as unknown as { worker?: unknown }).worker).toBeDefined();
  });

  it('gives valid salts either way by default, for concurrent requests', async () => {
    const m = miner();
    m.warm();
    const requests = Array.from({ length: 40 }, request);
    const salts = await Promise.all(requests.map((r) => m.mine(r)));
    requests.forEach((r, i) => expectValid(r, salts[i] as (typeof salts)[number]));
    expect(new Set(salts.map((s) => s.creatorSalt)).size).toBe(40);
  });
});
