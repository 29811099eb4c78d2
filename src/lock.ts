// One process per role and data dir: `launchpad start` (or indexer, devnet) writes <data dir>/<role>.pid
// and removes it on exit; a second one refuses while the first is alive. A lock whose pid is gone (a
// crash) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A failure the CLI reports in one line (exit 1), without a stack trace. */
export class CliError extends Error {}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the data dir's lock for `role` for the life of this process, or throws CliError. */
export function holdLock(dataDir: string, role: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, `${role}.pid`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      process.once('exit', () => {
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
      });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new CliError(
          `data dir ${dataDir} is in use by launchpad ${role} (pid ${pid}, lock file ${file}); stop it or set LAUNCHPAD_DATA_DIR`,
        );
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new CliError(`could not take the lock file ${file}`);
}
