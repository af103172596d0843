export { startOtelWorker, type RunningOtelWorker } from './otel-worker.js';
export { Collector } from './collector.js';
export { decodeTraces } from './otlp/decode-traces.js';
export { decodeLogs } from './otlp/decode-logs.js';
export { decodeMetrics } from './otlp/decode-metrics.js';
export type { LogRecord, MetricPoint, StoredSpan } from './otlp/records.js';
