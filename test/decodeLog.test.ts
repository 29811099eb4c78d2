// The indexer's word-by-word event decoder gives exactly what viem's decodeEventLog gives, for every
// event the indexer follows and for edge values (negative and small integers, zero, the largest words);
// a log that does not fit its event throws, so the indexer records it as skipped.
import {
  type AbiEvent,
  type AbiParameter,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  parseAbi,
} from 'viem';
import { describe, expect, it } from 'vitest';
import * as A from '../contracts/artifacts/index.ts';
import { decodeLog } from '../src/indexer/decodeLog.ts';

const EVENTS: AbiEvent[] = [
  ...(Object.values(A) as unknown[])
    .filter((x): x is readonly { type?: string }[] => Array.isArray(x))
    .flatMap((abi) => abi.filter((x) => x.type === 'event') as unknown as AbiEvent[]),
  ...(parseAbi([
    'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
    'event Mixed(bool indexed flag, bytes4 selector, int8 small, uint48 edge, uint56 above)',
  ]) as unknown as AbiEvent[]),
];

/** Sample values of each type, edges included. */
function samples(param: AbiParameter, n: number): unknown {
  const t = param.type;
  if (t === 'address')
    return ['0x000000000000000000000000000000000000dEaD', '0xffffffffffffffffffffffffffffffffffffffff'][
      n % 2
    ];
  if (t === 'bool') return n % 2 === 0;
  if (t === 'string') return ['', 'héllo ✓', 'a'.repeat(70)][n % 3];
  if (t === 'bytes') return ['0x', '0x00ff', `0x${'ab'.repeat(40)}`][n % 3];
  if (t.startsWith('bytes')) return `0x${(n % 2 ? 'ff' : '01').repeat(Number(t.slice(5)))}`;
  const signed = t.startsWith('int');
  const bits = BigInt(t.slice(signed ? 3 : 4) || 256);
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const value = [0n, max, min, signed ? -1n : 1n][n % 4] as bigint;
  return bits > 48n ? value : Number(value);
}

describe('decodeLog', () => {
  const decodable = EVENTS.filter(
    (e) => !e.anonymous && e.inputs.every((i) => !i.type.endsWith(']') && i.type !== 'tuple'),
  );

  it('matches viem for every followed event and edge values', () => {
    expect(decodable.length).toBeGreaterThan(15);
    let checked = 0;
    for (const event of decodable) {
      for (let n = 0; n < 4; n++) {
        const values = event.inputs.map((i) => samples(i, n));
        const args = Object.fromEntries(event.inputs.map((i, k) => [i.name, values[k]]));
        const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as [
          Hex,
          ...Hex[],
        ];
        const data = encodeAbiParameters(
          event.inputs.filter((i) => !i.indexed),
          event.inputs.filter((i) => !i.indexed).map((i) => args[i.name as string]),
        );
        const log = { topics, data };
        const ours = decodeLog(event, log);
        const viems = decodeEventLog({ abi: [event], ...log });
        // viem leaves `args` undefined for an event without inputs; ours is {}.
        expect(ours).toEqual({ eventName: viems.eventName, args: viems.args ?? {} });
        checked++;
      }
    }
    expect(checked).toBe(decodable.length * 4);
  });

  it('throws for a log that does not fit its event', () => {
    const swap = EVENTS.find((e) => e.name === 'Swap') as AbiEvent;
    const topics = encodeEventTopics({
      abi: [swap],
      eventName: 'Swap',
      args: { id: `0x${'11'.repeat(32)}`, sender: '0x000000000000000000000000000000000000dEaD' },
    } as never) as [Hex, ...Hex[]];
    const data = `0x${'00'.repeat(32 * 6)}` as Hex;
    expect(decodeLog(swap, { topics, data }).args.tick).toBe(0);
    expect(() => decodeLog(swap, { topics, data: data.slice(0, -2) as Hex })).toThrow(/shorter/);
    expect(() => decodeLog(swap, { topics: [topics[0]], data })).toThrow(/topics/);
    expect(() => decodeLog(swap, { topics, data: `0x${'zz'.repeat(32 * 6)}` })).toThrow();
    const id = `0x${'zz'.repeat(32)}` as Hex;
    expect(() => decodeLog(swap, { topics: [topics[0], id, topics[2] as Hex], data })).toThrow(/word/);
  });
});
