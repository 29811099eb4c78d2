// Mines launch salts off the event loop: one long-lived worker thread (started on first use, so its
// start-up cost is paid once), with a time budget per request. Past the budget the worker is replaced
// and the request fails with salt_unavailable.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../errors.ts';
import type { LaunchSalt } from './salt.ts';

type Request = Parameters<typeof import('./salt.ts').mineLaunchSalt>[0];
type Pending = { resolve: (s: LaunchSalt) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

const BOOTSTRAP = fileURLToPath(new URL('../../bin/worker.js', import.meta.url));
const MODULE = new URL('./saltWorker.ts', import.meta.url).href;

export class SaltMiner {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly budgetMs = 10_000) {}

  private start(): Worker {
    const worker = new Worker(BOOTSTRAP, { workerData: { module: MODULE } });
    worker.unref();
    worker.on('message', (m: { id: number; salt?: LaunchSalt; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.salt) p.resolve(m.salt);
      else p.reject(new Error(m.error));
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      this.fail(new Error('salt worker exited'));
    });
    return worker;
  }

  private fail(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }

  /** Starts the worker ahead of the first launch, which would otherwise pay its start-up. */
  warm(): void {
    this.worker ??= this.start();
  }

  mine(request: Request): Promise<LaunchSalt> {
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise<LaunchSalt>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A worker busy past the budget is stopped; the next request starts a fresh one.
        this.worker = undefined;
        void worker.terminate();
        reject(
          new ApiError('salt_unavailable', `No launch salt found within ${this.budgetMs} ms; try again`),
        );
      }, this.budgetMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }
}
