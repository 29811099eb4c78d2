// `launchpad watch`: the live event feed (GET /v1/events, through the typed client's iterator) printed
// one readable line an event on a terminal, or as JSON lines for other programs.
import { type LaunchpadEvent, streamEvents } from './client/index.ts';

export interface WatchInput {
  baseUrl: string;
  apiKey: string;
  chainId?: number;
  types?: string[];
  tokenAddress?: string;
  confirmations?: number;
  /** JSON lines ({id, event, data}) instead of readable lines. */
  json: boolean;
  write: (line: string) => void;
  signal?: AbortSignal;
}

const short = (hex: string) => `${hex.slice(0, 6)}…${hex.slice(-4)}`;

/** One readable line of an event: where, what, and the figures a person looks for. */
export function describeEvent(e: LaunchpadEvent): string {
  const d = e.data;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the record's shape depends on the type
  const r = d.record as any;
  const where = `[${d.chain_id} #${d.block_number}]`;
  let what: string;
  switch (d.type) {
    case 'launch':
      what = `${r.token.name} (${r.token.symbol}) ${d.token_address} by ${short(r.launch.creator_address)}`;
      break;
    case 'trade':
      what = `${r.side} ${short(d.token_address)} in ${r.amount_in_raw} out ${r.amount_out_raw} by ${short(r.trader)}`;
      break;
    case 'announcement':
      what = `${short(d.token_address)}: ${r.description}`;
      break;
    case 'fee_credit':
      what = `${r.component} ${r.amount_raw} to ${short(r.recipient)} (${short(d.token_address)})`;
      break;
    default:
      what = `${short(d.token_address)} is now ${r.token?.name} (${r.token?.symbol})`;
  }
  const kind = e.event === 'removed' ? `removed ${d.type}`.padEnd(13) : d.type.padEnd(13);
  return `${where} ${kind}${what}  tx ${short(d.transaction_hash)}${e.event === 'removed' ? '  (reorg)' : ''}`;
}

/** Prints events until `signal` aborts (or the stream cannot go on: a revoked key, a bad filter). */
export async function watch(input: WatchInput): Promise<void> {
  for await (const e of streamEvents({
    baseUrl: input.baseUrl,
    apiKey: input.apiKey,
    chainId: input.chainId,
    types: input.types,
    tokenAddress: input.tokenAddress,
    confirmations: input.confirmations,
    signal: input.signal,
  }))
    input.write(input.json ? JSON.stringify({ id: e.id, event: e.event, data: e.data }) : describeEvent(e));
}
