/**
 * OTLP/JSON telemetry frames (docs/protocol.md, "1.7 Telemetry frames"): a 4-byte ASCII prefix (`OTLP` spans, `LOGS`
 * log records, `MTRC` metrics) followed by the OTLP/JSON request body, serialised by OpenTelemetry's own JSON
 * serializers. The exporters below hand each batch to a `FrameSink` (a worker's socket, or the engine's in-process
 * hand-off). The serializers (with the OTLP transformer's protobuf and metrics machinery) are loaded at the first
 * batch, not when a worker starts.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type * as OtlpTransformer from '@opentelemetry/otlp-transformer';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

export type TelemetryPrefix = 'OTLP' | 'LOGS' | 'MTRC';
export const TELEMETRY_PREFIXES: readonly TelemetryPrefix[] = ['OTLP', 'LOGS', 'MTRC'];
/**
 * The engine's own invocation spans, handed to svc-otel's `otel::ingest` as a compact text rather than OTLP/JSON
 * (docs/observability.md, "The engine's span batches"). Never a socket frame: sockets carry the three above.
 */
export const ENGINE_SPANS_PREFIX = 'SVCS';
/** What `otel::ingest` takes: the socket frames' prefixes and the engine's span batches. */
export type IngestPrefix = TelemetryPrefix | typeof ENGINE_SPANS_PREFIX;

/** Takes one serialised batch; returns false when it could not be handed on (dropped). */
export type FrameSink = (prefix: TelemetryPrefix, body: Uint8Array) => boolean;

/** `prefix` + `body` as one binary frame. */
export function telemetryFrame(prefix: TelemetryPrefix, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(prefix, 'latin1'), body]);
}

let serializers: Promise<typeof OtlpTransformer> | undefined;

/** `prefix`'s batch, serialised once the OTLP transformer is loaded, to `sink`; `done` gets the outcome. */
function exportBatch(
  sink: FrameSink,
  prefix: TelemetryPrefix,
  serialize: (otlp: typeof OtlpTransformer) => Uint8Array | undefined,
  done: (result: ExportResult) => void,
): void {
  serializers ??= import('@opentelemetry/otlp-transformer');
  serializers
    .then((otlp) => deliver(sink, prefix, serialize(otlp)))
    .catch((error: unknown): ExportResult => ({ code: ExportResultCode.FAILED, error: error as Error }))
    .then(done, () => undefined);
}

function deliver(sink: FrameSink, prefix: TelemetryPrefix, body: Uint8Array | undefined): ExportResult {
  if (body === undefined || !sink(prefix, body)) {
    return { code: ExportResultCode.FAILED, error: new Error(`${prefix} batch not delivered`) };
  }
  return { code: ExportResultCode.SUCCESS };
}

export class FrameSpanExporter implements SpanExporter {
  constructor(private readonly sink: FrameSink) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    exportBatch(this.sink, 'OTLP', (otlp) => otlp.JsonTraceSerializer.serializeRequest(spans), done);
  }

  async shutdown(): Promise<void> {}
}

export class FrameLogExporter implements LogRecordExporter {
  constructor(private readonly sink: FrameSink) {}

  export(logs: ReadableLogRecord[], done: (result: ExportResult) => void): void {
    exportBatch(this.sink, 'LOGS', (otlp) => otlp.JsonLogsSerializer.serializeRequest(logs), done);
  }

  async shutdown(): Promise<void> {}
}
