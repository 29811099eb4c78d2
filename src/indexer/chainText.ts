// Text the chain hands over as bytes (names, symbols, URIs, announcement texts, extra metadata,
// comments): anyone can put any bytes there, so the index must never refuse them. What is stored and
// served is valid UTF-8 with NUL (which PostgreSQL text refuses) and invalid sequences replaced by U+FFFD;
// when that lost anything, the raw bytes are kept beside it as hex.
import { type Abi, type AbiEvent, decodeAbiParameters, type Hex, hexToBytes } from 'viem';

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

export interface ChainText {
  text: string;
  /** The bytes as hex when `text` is not exactly them; null otherwise. */
  raw: Hex | null;
}

/** Safe text of raw bytes (see above). */
export function chainText(bytes: Hex): ChainText {
  const data = hexToBytes(bytes);
  let text: string;
  let lossy = false;
  try {
    text = strict.decode(data);
  } catch {
    text = lenient.decode(data);
    lossy = true;
  }
  if (text.includes('\u0000')) {
    text = text.replaceAll('\u0000', '\uFFFD');
    lossy = true;
  }
  return { text, raw: lossy ? bytes : null };
}

/** chainText32 by word: a range's fee components and comments repeat a few words thousands of times. */
const texts32 = new Map<Hex, ChainText>();

/** A bytes32 text (a comment, a component id): its bytes up to the trailing zero padding. */
export function chainText32(word: Hex): ChainText {
  let text = texts32.get(word);
  if (text === undefined) {
    text = Object.freeze(chainText(word.replace(/(00)+$/, '') as Hex));
    if (texts32.size >= 10_000) texts32.clear();
    texts32.set(word, text);
  }
  return text;
}

/**
 * The `string` arguments of an event as raw bytes: the log's data decoded with each string read as
 * `bytes` (the two share one ABI encoding), since decoding as strings already replaced what was invalid.
 */
export function eventStrings(abi: Abi, eventName: string, data: Hex): Record<string, ChainText> {
  const event = abi.find((x) => x.type === 'event' && x.name === eventName) as AbiEvent | undefined;
  const inputs = (event?.inputs ?? []).filter((i) => !i.indexed);
  const values = decodeAbiParameters(
    inputs.map((i) => (i.type === 'string' ? { ...i, type: 'bytes' } : i)),
    data,
  );
  const out: Record<string, ChainText> = {};
  inputs.forEach((input, i) => {
    if (input.type === 'string' && input.name) out[input.name] = chainText(values[i] as Hex);
  });
  return out;
}
