// What the engine reports as it works (RPC calls, limiter decisions, replays, failed simulations,
// database connections opened), for metrics. The layers call these functions; by default they do
// nothing, and a server that serves /metrics installs a sink (src/http/metrics.ts). One sink per
// process, as metrics are.
export interface TelemetrySink {
  rpc(chainId: number | undefined, method: string, seconds: number, outcome: 'ok' | 'error'): void;
  limiter(decision: 'admitted' | 'refused', policy: string): void;
  replay(operation: string): void;
  simulationFailed(chainId: number, code: string): void;
  /** An event stream opened (+1) or closed (-1). */
  streams(delta: number): void;
  /** An event written to a stream (`event`: its SSE event name). */
  eventSent(event: string): void;
  /** A stream the gateway ended: `slow_client`, `key_invalid` or `shutdown`. */
  streamEnded(reason: string): void;
  /** A webhook attempt's outcome: `delivered`, `retry` (failed, tried again later) or `failed` (gave up). */
  webhookDelivery(outcome: string): void;
  /** A pin (launch image or metadata document): `ok` or `error`, and how long it took. */
  pin(outcome: 'ok' | 'error', seconds: number): void;
  /** A connection to PostgreSQL opened (each costs the server a process and cold caches). */
  databaseConnected(): void;
}

const none: TelemetrySink = {
  rpc() {},
  limiter() {},
  replay() {},
  simulationFailed() {},
  streams() {},
  eventSent() {},
  streamEnded() {},
  webhookDelivery() {},
  pin() {},
  databaseConnected() {},
};
let sink: TelemetrySink = none;

/** Installs the process's telemetry sink (or removes it with undefined). */
export function setTelemetry(next: TelemetrySink | undefined): void {
  sink = next ?? none;
}

export const telemetry: TelemetrySink = {
  rpc: (...a) => sink.rpc(...a),
  limiter: (...a) => sink.limiter(...a),
  replay: (...a) => sink.replay(...a),
  simulationFailed: (...a) => sink.simulationFailed(...a),
  streams: (...a) => sink.streams(...a),
  eventSent: (...a) => sink.eventSent(...a),
  streamEnded: (...a) => sink.streamEnded(...a),
  webhookDelivery: (...a) => sink.webhookDelivery(...a),
  pin: (...a) => sink.pin(...a),
  databaseConnected: () => sink.databaseConnected(),
};
