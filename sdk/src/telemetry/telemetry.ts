/**
 * A process's spans and log records, made with the OpenTelemetry JS SDK and shipped as OTLP/JSON frames through a
 * `FrameSink` (docs/protocol.md, 1.7). One tracer provider per service name (the OTLP resource carries the service), so
 * the engine can record a span in the name of the worker that ran the call. Off unless created: a worker without
 * telemetry pays nothing.
 *
 * Ownership: owns its providers and their batch timers; `shutdown()` flushes what is buffered and is idempotent.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { SeverityNumber, type LogAttributes } from '@opentelemetry/api-logs';
import { Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, BatchSpanProcessor, type Sampler, type Tracer } from '@opentelemetry/sdk-trace-base';
import { SPAN_ATTRIBUTE_CHARS } from '../constants.js';
import { parseTraceparent } from '../trace-context.js';
import { FrameLogExporter, FrameSpanExporter, type FrameSink } from './otlp-frames.js';
import { createSampler, SERVICE_ATTRIBUTE, type SamplingSettings } from './sampler.js';

export interface TelemetryOptions {
  sink: FrameSink;
  /** The default service name (the worker's name). */
  serviceName: string;
  /** Resource attributes added to every service (e.g. `service.namespace`, `service.version`). */
  resource?: Attributes;
  sampling?: SamplingSettings;
  /** Span batch delay, ms (default 100, like iii-sdk). */
  spanDelayMs?: number;
  logBatchSize?: number;
  logDelayMs?: number;
  /** At most this many per-service providers; further services are recorded under `serviceName`. */
  maxServices?: number;
}

/** The instrumentation scope of records made here (their process already printed them through pino). */
export const SDK_SCOPE = 'svc-sdk';
/** Characters of a log record's message sent (svc-otel keeps 64 Ki characters of a record's text). */
export const LOG_MESSAGE_CHARS = 64 * 1024;

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const SEVERITY: Record<LogLevel, SeverityNumber> = {
  trace: SeverityNumber.TRACE,
  debug: SeverityNumber.DEBUG,
  info: SeverityNumber.INFO,
  warn: SeverityNumber.WARN,
  error: SeverityNumber.ERROR,
};

export interface StartSpanOptions {
  /** The W3C traceparent of the parent (a remote span); a new trace when absent or invalid. */
  parent?: string;
  kind?: SpanKind;
  /** Record the span under this service instead of the default one. */
  service?: string;
  attributes?: Attributes;
  startTimeMs?: number;
}

/** The W3C traceparent of `span` (flags `01` when sampled, `00` otherwise). */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? '01' : '00'}`;
}

/** A remote parent context for `traceparent`; the root context when it is absent or invalid. */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  const tp = parseTraceparent(traceparent);
  if (tp === undefined) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: tp.traceId,
    spanId: tp.spanId,
    traceFlags: parseInt(tp.flags, 16) & 1,
    isRemote: true,
  });
}

/** Records an error on a span the way OTel does (an `exception` event with message and stack) and marks it failed. */
export function recordSpanError(span: Span, message: string, stack?: string, code?: string): void {
  span.recordException({ name: code ?? 'Error', message, ...(stack !== undefined ? { stack } : {}) });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export class Telemetry {
  private readonly tracers = new Map<string, Tracer>();
  private readonly providers: BasicTracerProvider[] = [];
  private readonly logs: LoggerProvider;
  private readonly sampler: Sampler;
  private readonly spanExporter: FrameSpanExporter;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: TelemetryOptions) {
    this.sampler = createSampler(options.sampling);
    this.spanExporter = new FrameSpanExporter(options.sink);
    this.logs = new LoggerProvider({
      resource: this.resource(options.serviceName),
      logRecordLimits: { attributeValueLengthLimit: SPAN_ATTRIBUTE_CHARS },
    });
    this.logs.addLogRecordProcessor(
      new BatchLogRecordProcessor(new FrameLogExporter(options.sink), {
        maxExportBatchSize: options.logBatchSize ?? 100,
        scheduledDelayMillis: options.logDelayMs ?? 100,
      }),
    );
  }

  get serviceName(): string {
    return this.options.serviceName;
  }

  startSpan(name: string, options: StartSpanOptions = {}): Span {
    const service = options.service ?? this.options.serviceName;
    const tracer = this.tracer(service);
    const attributes = options.attributes ?? {};
    attributes[SERVICE_ATTRIBUTE] = service;
    return tracer.startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes, startTime: options.startTimeMs },
      contextFromTraceparent(options.parent),
    );
  }

  /** One log record, tied to the span `traceparent` names (when given). */
  log(level: LogLevel, message: string, attributes?: LogAttributes, traceparent?: string): void {
    this.logs.getLogger(SDK_SCOPE).emit({
      severityNumber: SEVERITY[level],
      severityText: level.toUpperCase(),
      body:
        message.length <= LOG_MESSAGE_CHARS
          ? message
          : `${message.slice(0, LOG_MESSAGE_CHARS)}… [${message.length - LOG_MESSAGE_CHARS} more characters not kept]`,
      attributes,
      context: contextFromTraceparent(traceparent),
    });
  }

  async flush(): Promise<void> {
    await Promise.all([...this.providers.map((p) => p.forceFlush()), this.logs.forceFlush()]);
  }

  shutdown(): Promise<void> {
    this.closing ??= Promise.all([...this.providers.map((p) => p.shutdown()), this.logs.shutdown()]).then(
      () => undefined,
    );
    return this.closing;
  }

  private tracer(service: string): Tracer {
    let tracer = this.tracers.get(service);
    if (tracer !== undefined) return tracer;
    if (this.tracers.size >= (this.options.maxServices ?? 256)) return this.tracer(this.options.serviceName);
    const provider = new BasicTracerProvider({
      resource: this.resource(service),
      sampler: this.sampler,
      // A span keeps at most SPAN_ATTRIBUTE_CHARS of each string attribute: a handler that puts a request body on
      // its span would otherwise make every one of the 10,000 spans svc-otel keeps as large as that body.
      spanLimits: { attributeValueLengthLimit: SPAN_ATTRIBUTE_CHARS },
      spanProcessors: [
        new BatchSpanProcessor(this.spanExporter, { scheduledDelayMillis: this.options.spanDelayMs ?? 100 }),
      ],
    });
    this.providers.push(provider);
    tracer = provider.getTracer('svc');
    this.tracers.set(service, tracer);
    return tracer;
  }

  private resource(service: string): Resource {
    return new Resource({ ...this.options.resource, 'service.name': service });
  }
}

export { SpanKind, SpanStatusCode, type Span };
