// A devnet and an in-process gateway on it, for the end-to-end route tests.
import { type Devnet, devnetEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { startGateway, type TestGateway, tempDir } from './gateway.ts';
import { freePortRange } from './net.ts';

export interface DevnetGateway {
  devnet: Devnet;
  dataDir: string;
  gw: TestGateway;
  key: string;
  close(): Promise<void>;
}

export async function startDevnetGateway(env: Record<string, string> = {}): Promise<DevnetGateway> {
  const dataDir = tempDir();
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const gw = await startGateway({ ...devnetEnv(devnet, dataDir), ...env });
  return {
    devnet,
    dataDir,
    gw,
    key: await gw.createKey(),
    async close() {
      await gw.close();
      await devnet.stop();
    },
  };
}
