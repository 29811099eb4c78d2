// Per-operation, per-source and service-wide ceilings (spec: Limits → Per-operation ceilings, Per-source
// and service-wide ceilings). Ceilings count requests; a refused ceiling is `quota_exceeded`.
import type { Operation } from '../catalog.ts';
import type { WindowName } from './windows.ts';

/** Who a ceiling counts: the key, a value of the request within or across keys, the source IP, or all. */
export type Subject =
  'key' | 'key+creator' | 'key+token' | 'key+actor' | 'wallet' | 'chain+caller' | 'source' | 'service';

export interface Ceiling {
  name: string;
  operations: readonly Operation[];
  subject: Subject;
  window: WindowName;
  limit: number;
  /** Only when the request needs live chain data (configuration with suites or quotes). */
  liveConfigOnly?: boolean;
}

export interface ConcurrencyCap {
  name: string;
  operations: readonly Operation[];
  subject: 'key' | 'service';
  /** A number, or `streams`: the key's plan (`streams`) per key, the EVENTS_MAX_STREAMS setting service-wide. */
  limit: number | 'streams';
  liveConfigOnly?: boolean;
}

const LAUNCH = ['launch_prepare'] as const;
const DOCUMENT = ['metadata_document_prepare'] as const;
const ACTOR = [
  'announcement_prepare',
  'metadata_onchain_prepare',
  'metadata_document_prepare',
  'metadata_legacy_prepare',
] as const;
const FEE = ['fee_claim_prepare'] as const;
const HOLDERS = ['holder_snapshot'] as const;
/** Every operation that prepares live transactions. */
const LIVE_PREPARE = [
  'launch_prepare',
  'swap_prepare',
  'vesting_claim_prepare',
  'dividend_claim_prepare',
  'fee_claim_prepare',
  'metadata_document_prepare',
  'metadata_onchain_prepare',
  'metadata_legacy_prepare',
  'announcement_prepare',
] as const;

export const CEILINGS: readonly Ceiling[] = [
  { name: 'launch-key-minute', operations: LAUNCH, subject: 'key', window: 'minute', limit: 3 },
  { name: 'launch-key-day', operations: LAUNCH, subject: 'key', window: 'day', limit: 100 },
  { name: 'launch-creator-minute', operations: LAUNCH, subject: 'key+creator', window: 'minute', limit: 1 },
  { name: 'launch-creator-day', operations: LAUNCH, subject: 'key+creator', window: 'day', limit: 25 },
  { name: 'document-key-minute', operations: DOCUMENT, subject: 'key', window: 'minute', limit: 10 },
  { name: 'document-key-day', operations: DOCUMENT, subject: 'key', window: 'day', limit: 100 },
  { name: 'document-token-minute', operations: DOCUMENT, subject: 'key+token', window: 'minute', limit: 2 },
  { name: 'document-token-day', operations: DOCUMENT, subject: 'key+token', window: 'day', limit: 25 },
  {
    name: 'swap-quote-wallet-minute',
    operations: ['swap_quote'],
    subject: 'wallet',
    window: 'minute',
    limit: 60,
  },
  {
    name: 'swap-prepare-wallet-minute',
    operations: ['swap_prepare'],
    subject: 'wallet',
    window: 'minute',
    limit: 30,
  },
  { name: 'fee-claim-key-minute', operations: FEE, subject: 'key', window: 'minute', limit: 20 },
  { name: 'fee-claim-caller-minute', operations: FEE, subject: 'chain+caller', window: 'minute', limit: 10 },
  { name: 'actor-minute', operations: ACTOR, subject: 'key+actor', window: 'minute', limit: 20 },
  // Per source and service-wide.
  {
    name: 'live-config-source-minute',
    operations: ['config'],
    subject: 'source',
    window: 'minute',
    limit: 15,
    liveConfigOnly: true,
  },
  {
    name: 'live-config-service-minute',
    operations: ['config'],
    subject: 'service',
    window: 'minute',
    limit: 120,
    liveConfigOnly: true,
  },
  { name: 'holders-source-minute', operations: HOLDERS, subject: 'source', window: 'minute', limit: 60 },
  { name: 'holders-service-minute', operations: HOLDERS, subject: 'service', window: 'minute', limit: 300 },
  { name: 'launch-source-minute', operations: LAUNCH, subject: 'source', window: 'minute', limit: 6 },
  { name: 'launch-source-day', operations: LAUNCH, subject: 'source', window: 'day', limit: 200 },
  { name: 'launch-service-minute', operations: LAUNCH, subject: 'service', window: 'minute', limit: 60 },
  { name: 'launch-service-day', operations: LAUNCH, subject: 'service', window: 'day', limit: 2_000 },
  { name: 'pinning-source-minute', operations: DOCUMENT, subject: 'source', window: 'minute', limit: 20 },
  { name: 'pinning-source-day', operations: DOCUMENT, subject: 'source', window: 'day', limit: 500 },
  { name: 'pinning-service-minute', operations: DOCUMENT, subject: 'service', window: 'minute', limit: 120 },
  { name: 'pinning-service-day', operations: DOCUMENT, subject: 'service', window: 'day', limit: 5_000 },
  {
    name: 'prepare-source-minute',
    operations: LIVE_PREPARE,
    subject: 'source',
    window: 'minute',
    limit: 120,
  },
  {
    name: 'prepare-service-minute',
    operations: LIVE_PREPARE,
    subject: 'service',
    window: 'minute',
    limit: 1_000,
  },
];

export const CONCURRENCY: readonly ConcurrencyCap[] = [
  { name: 'holders-key-inflight', operations: HOLDERS, subject: 'key', limit: 2 },
  { name: 'holders-service-inflight', operations: HOLDERS, subject: 'service', limit: 20 },
  {
    name: 'live-config-inflight',
    operations: ['config'],
    subject: 'service',
    limit: 10,
    liveConfigOnly: true,
  },
  { name: 'prepare-inflight', operations: LIVE_PREPARE, subject: 'service', limit: 50 },
  // Event streams: held for as long as a stream is open.
  { name: 'events-key-streams', operations: ['events'], subject: 'key', limit: 'streams' },
  { name: 'events-service-streams', operations: ['events'], subject: 'service', limit: 'streams' },
];

/** Uncached key lookups, per source (spec: Per-source ceilings); checked before the database is asked. */
export const KEY_LOOKUP_CEILING = { name: 'key-lookup-source-minute', window: 'minute', limit: 60 } as const;
