// One anvil (the real binary from @foundry-rs/anvil-linux-amd64) per chain id, on 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { CliError } from '../lock.ts';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The binary package is a direct dependency: the wrapper package `@foundry-rs/anvil` lists optional
 * binaries for other platforms that the registry mirror here does not carry, which breaks `npm ci`.
 */
export function anvilBinary(): string {
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

export interface AnvilNode {
  chainId: number;
  rpcUrl: string;
  /** Mines a block stamped with the wall clock: a clock started behind then keeps pace with it. */
  catchUpClock(): Promise<void>;
  stop(): Promise<void>;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const json = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (json.error) throw new Error(`${method}: ${json.error.message}`);
  return json.result;
}

/**
 * anvil runs under a small sh guard that kills it when its stdin closes: on stop(), and also when this
 * process dies without cleaning up (SIGKILL, crash), so no anvil outlives the gateway that started it.
 * The guard exits with anvil, so a failed start (port taken) is seen at once.
 */
const GUARD = 'exec 3<&0; "$0" "$@" & pid=$!; (read -r _ <&3; kill "$pid" 2>/dev/null) & wait "$pid"';

/**
 * anvil with `args` under the guard (stdin a pipe: ending it stops anvil; stderr a pipe, for errors), in
 * a session, so a Linux scheduling group, of its own: a busy node (a backfill's wide log reads) shares
 * the CPU with the other groups rather than queueing its caller's process. No terminal's signal reaches
 * it; the guard stops it all the same.
 */
export function spawnAnvil(args: string[]): ChildProcess {
  return spawn('sh', ['-c', GUARD, anvilBinary(), ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
  });
}

/** Whether nothing listens on the port: anvil would fail on a taken one, and the RPC probe below could
 * otherwise mistake another node on that port for the new one. */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Moves anvil's clock forward when it runs behind the wall clock by more than `-offsetS` seconds.
 * anvil keeps its clock as an offset from the wall clock, fixed from two readings of it in whole
 * seconds (at start: the genesis time and the time its clock was made; after a stamped block: the stamp
 * and the time it was mined). When a second ends between them, the clock stays a second behind for
 * good, and a transaction lands in a block stamped before the time it was sent: a price quoted at the
 * wall clock in a fee's decay (the anti-snipe surcharge) is then a second too low. `evm_increaseTime`
 * returns the offset; by 0 it only reads it.
 */
async function keepClockAtLeast(rpcUrl: string, offsetS: number): Promise<void> {
  const offset = Number(await rpc(rpcUrl, 'evm_increaseTime', [0]));
  if (offset < offsetS) await rpc(rpcUrl, 'evm_increaseTime', [offsetS - offset]);
}

/**
 * One anvil. With `blockTimeS` > 0 it mines an empty block every so often beside automine (anvil's
 * mixed mining), so the chain's clock moves while it is idle, as a real chain's does; transactions are
 * still mined at once. With `behindS` its clock starts that far behind the wall clock (and stays so until
 * a block is stamped later: see `catchUpClock`). anvil answers calls at past blocks only for its recent
 * states (a few thousand); `keepStates` keeps more on disk, for a long run indexed again from its start.
 */
export async function startAnvil(
  chainId: number,
  port: number,
  blockTimeS = 0,
  behindS = 0,
  keepStates?: number,
): Promise<AnvilNode> {
  if (!(await portFree(port)))
    throw new CliError(`devnet port ${port} (chain ${chainId}) is already in use; set DEVNET_PORT`);
  const child = spawnAnvil([
    '--chain-id',
    String(chainId),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--hardfork',
    'cancun',
    '--silent',
    ...(blockTimeS > 0 ? ['--block-time', String(blockTimeS), '--mixed-mining'] : []),
    ...(behindS > 0 ? ['--timestamp', String(Math.floor(Date.now() / 1000) - behindS)] : []),
    ...(keepStates ? ['--max-persisted-states', String(keepStates)] : []),
  ]);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil for chain ${chainId} exited: ${stderr.trim()}`);
    try {
      if (Number(await rpc(rpcUrl, 'eth_chainId')) === chainId) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.stdin?.end();
      throw new Error(`anvil for chain ${chainId} did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  await keepClockAtLeast(rpcUrl, -behindS);
  return {
    chainId,
    rpcUrl,
    async catchUpClock() {
      await rpc(rpcUrl, 'evm_setNextBlockTimestamp', [Math.floor(Date.now() / 1000)]);
      await rpc(rpcUrl, 'evm_mine');
      await keepClockAtLeast(rpcUrl, 0);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end();
      await exited;
    },
  };
}
