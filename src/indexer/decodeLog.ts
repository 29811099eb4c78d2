// Event decoding for the indexer's hot loop. Events whose fields are all one-word types (address, bool,
// intN, uintN, bytesN, the usual shape of launch, swap and fee events) are read word by word from the
// topics and data; anything else (strings, bytes, arrays, tuples) goes to viem's decodeEventLog. Values
// are what viem returns: checksummed addresses, numbers for integers of at most 48 bits, bigints above.
// Profiled on 3,200 devnet logs: viem's per-log ABI walk, cursor and checksum cache were 55 ms of a
// 230 ms ingest round; this takes a few.
import { type AbiEvent, type AbiParameter, decodeEventLog, getAddress, type Hex } from 'viem';

/** A log as the node sends it: enough to decode. */
export interface RawLog {
  topics: [Hex, ...Hex[]];
  data: Hex;
}

export interface DecodedEvent {
  eventName: string;
  args: Record<string, unknown>;
}

const STATIC = /^(address|bool|u?int\d*|bytes([1-9]|[12]\d|3[0-2]))$/;
const WORD = /^[0-9a-fA-F]{64}$/;
const TWO_256 = 1n << 256n;
const TWO_255 = 1n << 255n;

/**
 * Checksummed addresses by the form they came in (nodes send lowercase: looked up as they are, without a
 * lowercased copy per call); cleared when large (a plain map, no LRU bookkeeping).
 */
const checksums = new Map<string, Hex>();
/** `getAddress` for addresses the indexer sees over and over (contracts, pools, active traders). */
export function checksum(address: string): Hex {
  let out = checksums.get(address);
  if (out === undefined) {
    out = getAddress(address.toLowerCase());
    if (checksums.size >= 50_000) checksums.clear();
    checksums.set(address, out);
  }
  return out;
}

/**
 * A node's hex quantity (a block number, a log index) as a number: they fit in 53 bits, and parseInt
 * takes one call where Number(BigInt(hex)) makes a bigint first (millions of them a backfill).
 */
export const hexNumber = (hex: string): number => Number.parseInt(hex, 16);

/** Reads one 64-hex-digit word as an input's value; throws on a word that is not hex. */
type WordReader = (hex: string) => unknown;

/** The reader of a one-word input, computed once per event input (the type string is parsed here). */
function readerOf(param: AbiParameter): WordReader {
  const type = param.type;
  if (type === 'address') return (hex) => checksum(`0x${hex.slice(24)}`);
  if (type === 'bool') return (hex) => BigInt(`0x${hex}`) !== 0n;
  if (type.startsWith('bytes')) {
    const digits = 2 * Number(type.slice(5));
    return (hex) => {
      // BigInt and getAddress check the other types' words; bytesN here.
      if (!WORD.test(hex)) throw new Error(`${param.name} is not a 32-byte word`);
      return `0x${hex.slice(0, digits)}`;
    };
  }
  const signed = type.startsWith('int');
  const bits = Number(type.slice(signed ? 3 : 4) || 256);
  return (hex) => {
    let value = BigInt(`0x${hex}`);
    if (signed && value >= TWO_255) value -= TWO_256;
    return bits > 48 ? value : Number(value);
  };
}

/** How an event made only of one-word inputs is read; null for any other event. */
interface WordLayout {
  topics: number;
  words: number;
  inputs: { name: string; indexed: boolean; read: WordReader }[];
}
const layouts = new WeakMap<AbiEvent, WordLayout | null>();

function layoutOf(event: AbiEvent): WordLayout | null {
  let layout = layouts.get(event);
  if (layout === undefined) {
    const simple = !event.anonymous && event.inputs.every((i) => i.name && STATIC.test(i.type));
    const indexed = event.inputs.filter((i) => i.indexed).length;
    layout = simple
      ? {
          topics: indexed + 1,
          words: event.inputs.length - indexed,
          inputs: event.inputs.map((i) => ({
            name: i.name as string,
            indexed: !!i.indexed,
            read: readerOf(i),
          })),
        }
      : null;
    layouts.set(event, layout);
  }
  return layout;
}

/** Decodes `log` as `event` (its topic already matched); throws when the log does not fit the event. */
export function decodeLog(event: AbiEvent, log: RawLog): DecodedEvent {
  const layout = layoutOf(event);
  if (!layout) {
    const decoded = decodeEventLog({ abi: [event], data: log.data, topics: log.topics });
    return { eventName: event.name, args: decoded.args as unknown as Record<string, unknown> };
  }
  if (log.topics.length !== layout.topics) throw new Error(`${event.name}: expected ${layout.topics} topics`);
  if (log.data.length < 2 + 64 * layout.words)
    throw new Error(`${event.name}: data shorter than ${layout.words} words`);
  const args: Record<string, unknown> = {};
  let topic = 1;
  let at = 2;
  for (const input of layout.inputs) {
    const hex = input.indexed ? (log.topics[topic++] as Hex).slice(2) : log.data.slice(at, (at += 64));
    if (hex.length !== 64) throw new Error(`${event.name}: ${input.name} is not a 32-byte word`);
    args[input.name] = input.read(hex);
  }
  return { eventName: event.name, args };
}
