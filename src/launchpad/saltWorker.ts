// The salt-mining worker thread: answers {id, request} messages with a mined launch salt or an error.
import { parentPort } from 'node:worker_threads';
import { mineLaunchSalt } from './salt.ts';

parentPort?.on('message', (message: { id: number; request: Parameters<typeof mineLaunchSalt>[0] }) => {
  try {
    parentPort?.postMessage({ id: message.id, salt: mineLaunchSalt(message.request) });
  } catch (err) {
    parentPort?.postMessage({ id: message.id, error: (err as Error).message });
  }
});
