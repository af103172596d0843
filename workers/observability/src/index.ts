export { startOtelWorker, type RunningOtelWorker } from './otel-worker.js';
export { Collector } from './collector.js';
export { decodeTraces, type StoredSpan } from './otlp/decode-traces.js';
export { decodeLogs, type LogRecord } from './otlp/decode-logs.js';
export { decodeMetrics, type MetricPoint } from './otlp/decode-metrics.js';
