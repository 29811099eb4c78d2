// The fault schedule: each kind of fault, in an order the seed fixes, one at a time. Replica kills come
// in the first half (the resource rows look at the replicas over the last half of the run). After a
// fault ends, a probe asks what the fault took away until it answers; that is its recovery time.
import type { PublicClient } from 'viem';
import { createPublicClient, http } from 'viem';
import type { SendGate } from './load.ts';
import type { Rig } from './rig.ts';

export type FaultKind =
  | 'replica kill -9'
  | 'indexer kill -9'
  | 'postgres restart'
  | 'redis restart'
  | 'chain SIGSTOP'
  | 'reorg of 3 blocks'
  | 'ipfs node restart'
  | 'rpc answers garbage';

export const FAULT_KINDS: FaultKind[] = [
  'replica kill -9',
  'indexer kill -9',
  'postgres restart',
  'redis restart',
  'chain SIGSTOP',
  'reorg of 3 blocks',
  'ipfs node restart',
  'rpc answers garbage',
];

export interface Fault {
  kind: FaultKind;
  /** Which replica or chain it hit. */
  target: string;
  /** When it is planned to start, ms after the load started. */
  at: number;
  started?: number;
  ended?: number;
  /** When the probe first answered after the end. */
  recovered?: number;
  error?: string;
}

/** The schedule: every kind `repeats` times between 10 % and 75 % of the run, replica kills early. */
export function schedule(durationMs: number, repeats: number, rnd: () => number): Fault[] {
  const kinds: FaultKind[] = [];
  for (let i = 0; i < repeats; i++) kinds.push(...FAULT_KINDS);
  // Shuffled by the seed, then replica kills moved to the front half.
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  kinds.sort((a, b) => Number(b === 'replica kill -9') - Number(a === 'replica kill -9'));
  const from = durationMs * 0.1;
  const slot = (durationMs * 0.65) / kinds.length;
  return kinds.map((kind, i) => ({
    kind,
    at: from + i * slot,
    target:
      kind === 'replica kill -9'
        ? String(1 + Math.floor(rnd() * 2))
        : kind === 'chain SIGSTOP'
          ? String([8453, 4663, 143, 5042][Math.floor(rnd() * 4)])
          : kind === 'reorg of 3 blocks'
            ? '8453'
            : kind === 'rpc answers garbage'
              ? '8453 via replica 2'
              : '',
  }));
}

export interface FaultDeps {
  rig: Rig;
  /** How long a stall (SIGSTOP, garbage answers) lasts. */
  holdMs: number;
  /** Resolves once what the fault took away answers again. */
  probe(fault: Fault): Promise<void>;
  /** The load's transactions, held while the reorg swaps the node's blocks. */
  sends: SendGate;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Injects one fault and waits for it to end (not for the recovery). */
export async function inject(deps: FaultDeps, fault: Fault): Promise<void> {
  const { rig } = deps;
  fault.started = Date.now();
  switch (fault.kind) {
    case 'replica kill -9': {
      const replica = rig.replicas[Number(fault.target) - 1] as Rig['replicas'][number];
      await replica.kill('SIGKILL');
      await replica.start();
      break;
    }
    case 'indexer kill -9':
      await rig.indexer.kill('SIGKILL');
      await rig.indexer.start();
      break;
    case 'postgres restart':
      await rig.postgres.restart();
      break;
    case 'redis restart':
      await rig.redis.kill('SIGKILL');
      await rig.redis.start();
      break;
    case 'ipfs node restart':
      await rig.ipfs.kill('SIGKILL');
      await rig.ipfs.start();
      break;
    case 'chain SIGSTOP': {
      const pid = rig.anvilPid(Number(fault.target));
      process.kill(pid, 'SIGSTOP');
      await sleep(deps.holdMs);
      process.kill(pid, 'SIGCONT');
      break;
    }
    case 'rpc answers garbage':
      rig.proxy.mode = 'garbage';
      await sleep(deps.holdMs);
      rig.proxy.mode = 'pass';
      break;
    case 'reorg of 3 blocks': {
      const chain = rig.devnet.chains.find((c) => c.chain_id === 8453) as Rig['devnet']['chains'][number];
      const client = createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;
      const request = (method: string, params: unknown[] = []) => client.request({ method, params } as never);
      const snapshot = (await request('evm_snapshot')) as string;
      const from = await client.getBlockNumber();
      while ((await client.getBlockNumber()) < from + 3n) await sleep(200);
      // The three blocks (and whatever the load sent in them) are replaced by four others. Nothing may be
      // mined meanwhile (see SendGate): the load's sends are held and mined, the interval miner stopped
      // and its last block landed. anvil has no call back to mixed mining: the chain automines after.
      try {
        await deps.sends.hold();
        // (Pending: those the miner takes next; a queued one waits for a nonce that never comes.)
        const pending = async () => Number(((await request('txpool_status')) as { pending: string }).pending);
        for (const until = Date.now() + 10_000; (await pending()) > 0 && Date.now() < until;) await sleep(20);
        await request('evm_setIntervalMining', [0]);
        for (let seen = -1n, now = await client.getBlockNumber({ cacheTime: 0 }); now !== seen;) {
          seen = now;
          await sleep(100);
          now = await client.getBlockNumber({ cacheTime: 0 });
        }
        await request('evm_revert', [snapshot]);
        await request('anvil_mine', ['0x4']);
        await request('evm_setAutomine', [true]);
      } finally {
        deps.sends.open();
      }
      // The node's chain is whole again (a block missing would be the node's defect, not the index's).
      const head = await client.getBlockNumber({ cacheTime: 0 });
      for (let n = from - 1n; n <= head; n++)
        if (!(await client.getBlock({ blockNumber: n }).catch(() => null)))
          throw new Error(`the node has no block ${n} below its head ${head} after the reorg`);
      break;
    }
  }
  fault.ended = Date.now();
}

/** Runs the schedule against the clock of the load (started at `t0`) until it is done or `stopped`. */
export async function runFaults(deps: FaultDeps, faults: Fault[], t0: number, stopped: () => boolean) {
  for (const fault of faults) {
    if (stopped()) return;
    const wait = t0 + fault.at - Date.now();
    if (wait > 0) await sleep(wait);
    try {
      await inject(deps, fault);
      await deps.probe(fault);
      fault.recovered = Date.now();
    } catch (err) {
      fault.error = (err as Error).message;
      fault.ended ??= Date.now();
    }
  }
}
