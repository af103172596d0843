/**
 * `@svc/sdk`: everything of `@svc/sdk/core` (the wire-level parts), plus the WebSocket client, capability workers,
 * telemetry and data channels.
 */
export * from './core.js';
export * from './types.js';
export { WsTransport, type WsTransportOptions } from './connection/ws-transport.js';
export { backoffDelay, DEFAULT_RECONNECTION } from './connection/backoff.js';
export { registerWorker, createClient } from './worker.js';
export { runCapabilityWorker, type CapabilityWorker, type RunningCapabilityWorker } from './capability-worker.js';
export { createLogger } from './logger.js';
export {
  Telemetry,
  SDK_SCOPE,
  SpanKind,
  SpanStatusCode,
  contextFromTraceparent,
  recordSpanError,
  traceparentOf,
  type LogLevel,
  type Span,
  type StartSpanOptions,
  type TelemetryOptions,
} from './telemetry/telemetry.js';
export {
  ENGINE_SPANS_PREFIX,
  FrameLogExporter,
  FrameSpanExporter,
  TELEMETRY_PREFIXES,
  telemetryFrame,
  type FrameSink,
  type IngestPrefix,
  type TelemetryPrefix,
} from './telemetry/otlp-frames.js';
export { globMatcher, globMatches, type GlobMatcher } from './glob.js';
export {
  createSampler,
  RuleSampler,
  SERVICE_ATTRIBUTE,
  type SamplingRuleSettings,
  type SamplingSettings,
} from './telemetry/sampler.js';
export * from './channels/index.js';
