// src/heap.ts: a serving process turns off V8's allocation-site pretenuring, so that objects of a site V8
// would judge long-lived (here, kept in a ring) are still allocated young.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// In a fresh process: objects of one literal site kept alive across many scavenges; how many of the last
// 100,000 were allocated in the young generation.
const PROBE = `
const young = new Function('o', 'return %InYoungGeneration(o)');
if (process.env.SERVING === '1') (await import('./src/heap.ts')).servingHeap();
const ring = new Array(200_000);
const make = (k) => ({ a: k, b: [k, k + 1] });
let n = 0;
for (let i = 0; i < 3_000_000; i++) {
  const o = make(i);
  ring[i % ring.length] = o;
  if (i >= 2_900_000 && young(o)) n++;
}
console.log(n);
`;

const youngOfLast = (serving: boolean) =>
  Number(
    execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', PROBE],
      { encoding: 'utf8', env: { ...process.env, SERVING: serving ? '1' : '0' } },
    ).trim(),
  );

describe('serving heap', () => {
  it('allocates young what V8 would otherwise pretenure', () => {
    // (V8's default first: it does pretenure this site, so the serving setting is what changes it.)
    expect(youngOfLast(false)).toBe(0);
    expect(youngOfLast(true)).toBe(100_000);
  });
});
