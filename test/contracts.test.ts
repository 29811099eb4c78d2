// The committed contract artifacts are exactly what the sources compile to.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, compileContracts } from '../scripts/contracts.ts';

describe('contracts/artifacts', () => {
  // (solc-js compiles every source on one core: 27-33 s while the rest of the suite runs.)
  it('are up to date with contracts/*.sol (run npm run contracts:build)', { timeout: 120_000 }, () => {
    const fresh = compileContracts();
    expect(readdirSync(ARTIFACTS_DIR).sort()).toEqual([...fresh.keys()].sort());
    for (const [file, content] of fresh) {
      expect(readFileSync(join(ARTIFACTS_DIR, file), 'utf8'), `${file} is stale`).toBe(content);
    }
  });
});
