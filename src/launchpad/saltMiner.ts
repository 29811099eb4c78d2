// Mines launch salts. A launch token's address needs one chosen byte (1 candidate in 256), so most are
// found within a few hundred candidates: the first INLINE_TRIES are tried on the event loop (about 1 ms,
// enough for 86 % of launches; a message to a thread and back cost 0.3-0.5 ms more than the hashing).
// The rest go off the event loop: one long-lived worker thread (started on first use, so its start-up
// cost is paid once), with a time budget per request. Past the budget the worker is replaced and the
// request fails with salt_unavailable.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../errors.ts';
import { type Keccak, wasmKeccak } from '../chain/create2.ts';
import { type LaunchSalt, mineLaunchSalt } from './salt.ts';

type Request = Parameters<typeof mineLaunchSalt>[0];
type Pending = { resolve: (s: LaunchSalt) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

const BOOTSTRAP = fileURLToPath(new URL('../../bin/worker.js', import.meta.url));
const MODULE = new URL('./saltWorker.ts', import.meta.url).href;

/** Candidates tried on the event loop before the worker is asked: about 1 ms of WebAssembly keccak. */
const INLINE_TRIES = 512;

export class SaltMiner {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** The event loop's WebAssembly keccak, once loaded (until then every request goes to the worker). */
  private keccak: Keccak | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly budgetMs = 10_000,
    private readonly inlineTries = INLINE_TRIES,
  ) {}

  private loadKeccak(): void {
    this.loading ??= wasmKeccak().then(
      (keccak) => {
        this.keccak = keccak;
      },
      () => {}, // the worker mines everything then
    );
  }

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

  /** Resolves once the event loop can mine (its WebAssembly keccak loaded, or failed to load). */
  ready(): Promise<void> {
    this.loadKeccak();
    return this.loading as Promise<void>;
  }

  /** Starts the worker ahead of the first launch, which would otherwise pay its start-up. */
  warm(): void {
    this.loadKeccak();
    this.worker ??= this.start();
  }

  mine(request: Request): Promise<LaunchSalt> {
    this.loadKeccak();
    if (this.keccak && this.inlineTries > 0) {
      try {
        return Promise.resolve(mineLaunchSalt({ ...request, maxTries: this.inlineTries }, this.keccak));
      } catch {
        // Not found in the first candidates (or a request the worker will report on): the worker mines.
      }
    }
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
