// bin/tick-shape.js: every entry point holds one nextTick object, so full collections never drop the
// shape V8 gave those objects (and process.nextTick keeps its fast path).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// In a fresh process: load the hold, run full collections with no tick queued, then check that a new
// tick object (with and without arguments) is built on the held object's shape.
const PROBE = `
const shape = await import('./bin/tick-shape.js');
const tick = (...args) =>
  new Promise((resolve) => process.nextTick((..._) => resolve(executionAsyncResource()), ...args));
const { executionAsyncResource } = await import('node:async_hooks');
await new Promise((r) => setImmediate(r));
const heldTick = shape.heldTick;
for (let i = 0; i < 8; i++) globalThis.gc();
const plain = await tick();
const withArgs = await tick(1, 2);
console.log(JSON.stringify({
  symbols: Object.getOwnPropertySymbols(heldTick).map(String),
  callback: typeof heldTick.callback,
  same: %HaveSameMap(heldTick, plain) && %HaveSameMap(heldTick, withArgs),
}));
`;

describe('tick shape', () => {
  it('holds a tick object whose shape new ticks still use after full collections', () => {
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', PROBE],
      { encoding: 'utf8' },
    );
    const probe = JSON.parse(out.trim().split('\n').at(-1) as string);
    expect(probe.symbols).toContain('Symbol(async_id_symbol)');
    expect(probe.callback).toBe('function');
    expect(probe.same).toBe(true);
  });
});
