// The salt-mining worker thread: answers {id, request} messages with a mined launch salt or an error.
// It hashes with WebAssembly keccak, loaded once when the thread starts.
import { parentPort } from 'node:worker_threads';
import { wasmKeccak } from '../chain/create2.ts';
import { mineLaunchSalt } from './salt.ts';

const keccak = await wasmKeccak();

parentPort?.on('message', (message: { id: number; request: Parameters<typeof mineLaunchSalt>[0] }) => {
  try {
    parentPort?.postMessage({ id: message.id, salt: mineLaunchSalt(message.request, keccak) });
  } catch (err) {
    parentPort?.postMessage({ id: message.id, error: (err as Error).message });
  }
});
