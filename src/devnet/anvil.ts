// One anvil (the real binary from @foundry-rs/anvil-linux-amd64) per chain id, on 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
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

export async function startAnvil(chainId: number, port: number): Promise<AnvilNode> {
  const child: ChildProcess = spawn(
    anvilBinary(),
    [
      '--chain-id',
      String(chainId),
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--hardfork',
      'cancun',
      '--silent',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
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
      child.kill('SIGKILL');
      throw new Error(`anvil for chain ${chainId} did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    chainId,
    rpcUrl,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
