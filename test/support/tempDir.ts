import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temp dir, removed after the test file that made it (test/support/cleanup.ts). */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-test-'));
  made.push(dir);
  return dir;
}

/** Removes every temp dir made by tempDir() in this test process. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
