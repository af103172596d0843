/**
 * OTLP export end to end inside svc-otel: batches made by the OpenTelemetry SDK and serialised as OTLP/JSON (as the
 * engine and every SDK process send them) go through the collector to a loopback OTLP/HTTP receiver that decodes
 * the protobuf with the OpenTelemetry message definitions; spans, metrics and logs arrive with the producer's
 * resource attributes, scope, names, ids and values. And the drop policy: a full queue, a failing receiver and a
 * receiver that never answers cost dropped items, counted, never a blocked ingest.
 */
import { Writable } from 'node:stream';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { JsonLogsSerializer, JsonMetricsSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Resource } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Collector } from '../src/collector.js';
import { observabilityConfigSchema, type ObservabilityConfig } from '../src/config.js';
import { ExportQueue, FAILURES_BEFORE_PAUSE, RateLimitedWarn } from '../src/export/export-queue.js';
import type { OtlpExportStatus } from '../src/export/otlp-export.js';
import { OtlpReceiver } from './otlp-receiver.js';

const LINKED_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const LINKED_SPAN = '00f067aa0ba902b7';
const RESOURCE = { 'service.name': 'orders', 'service.version': '2.3.4', 'service.namespace': 'shop' };

class PullReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Spans recorded with the SDK's tracer (a parent, a child with an exception), as one OTLP/JSON batch. */
function traceBatch(): { text: string; traceId: string; parentId: string; childId: string } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: new Resource(RESOURCE) });
  provider.addSpanProcessor(new SimpleSpanProcessor(exporter));
  const tracer = provider.getTracer('orders-scope', '1.0.1');
  const parent = tracer.startSpan('POST /orders', { kind: SpanKind.SERVER, attributes: { 'http.route': '/orders' } });
  const child = tracer.startSpan(
    'orders::create',
    {
      attributes: { 'svc.invocation_id': 'inv-1', retries: 2 },
      links: [{ context: { traceId: LINKED_TRACE, spanId: LINKED_SPAN, traceFlags: 1 }, attributes: { why: 'batch' } }],
    },
    trace.setSpan(context.active(), parent),
  );
  child.recordException(new Error('no stock'));
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'no stock' });
  child.end();
  parent.end();
  const spans = exporter.getFinishedSpans();
  return {
    text: new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)),
    traceId: parent.spanContext().traceId,
    parentId: parent.spanContext().spanId,
    childId: child.spanContext().spanId,
  };
}

function logBatch(traceId: string, spanId: string): string {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ resource: new Resource(RESOURCE) });
  provider.addLogRecordProcessor(new SimpleLogRecordProcessor(exporter));
  const ctx = trace.setSpanContext(context.active(), { traceId, spanId, traceFlags: 1 });
  const logger = provider.getLogger('orders-log', '0.9.0');
  logger.emit({ severityNumber: SeverityNumber.INFO, body: 'order placed', attributes: { order: 7 }, context: ctx });
  logger.emit({ severityNumber: SeverityNumber.DEBUG, body: 'below the level' });
  return new TextDecoder().decode(JsonLogsSerializer.serializeRequest(exporter.getFinishedLogRecords()));
}

async function metricBatch(): Promise<string> {
  const reader = new PullReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  const provider = new MeterProvider({ resource: new Resource(RESOURCE), readers: [reader] });
  const meter = provider.getMeter('orders-meter', '3.0.0');
  meter.createCounter('orders.placed').add(3, { region: 'eu' });
  meter.createUpDownCounter('orders.open').add(-2);
  meter.createGauge('orders.temperature').record(21.5);
  const h = meter.createHistogram('orders.latency', { unit: 'ms', advice: { explicitBucketBoundaries: [10, 100] } });
  h.record(5);
  h.record(50);
  h.record(500);
  const { resourceMetrics } = await reader.collect();
  return new TextDecoder().decode(JsonMetricsSerializer.serializeRequest(resourceMetrics));
}

function config(endpoint: string, extra: Partial<ObservabilityConfig> = {}): ObservabilityConfig {
  return observabilityConfigSchema.parse({
    enabled: true,
    exporter: 'both',
    logs_exporter: 'both',
    metrics_exporter: 'otlp',
    endpoint,
    headers: { 'x-api-key': 'secret-1' },
    logs_flush_interval_ms: 50,
    logs_console_output: false,
    ...extra,
  });
}

/** A pino logger whose lines the test can read. */
function capturingLogger(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return {
    logger: pino({ level: 'debug' }, stream),
    lines: () =>
      lines
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function until<T>(f: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let receiver: OtlpReceiver;
let collector: Collector | undefined;

beforeEach(async () => {
  receiver = await OtlpReceiver.start();
});

afterEach(async () => {
  await collector?.close();
  collector = undefined;
  await receiver.close();
});

describe('OTLP export through the OpenTelemetry exporters', () => {
  it('delivers spans with their resource, scope, names, ids, parent, status and events', async () => {
    collector = new Collector(config(receiver.url), pino({ level: 'silent' }));
    const batch = traceBatch();
    collector.ingest('OTLP', batch.text);
    const got = await until(() => (receiver.spans().length === 2 ? receiver.spans() : undefined), 'two spans');
    expect(receiver.rejected).toEqual([]);
    const request = receiver.received.find((r) => r.path === '/v1/traces');
    expect(request?.contentType).toBe('application/x-protobuf');
    expect(request?.headers['x-api-key']).toBe('secret-1');
    for (const { resource, scope } of got) {
      expect(resource).toMatchObject(RESOURCE);
      expect(scope).toMatchObject({ name: 'orders-scope', version: '1.0.1' });
    }
    const parent = got.find((g) => g.span.name === 'POST /orders')?.span;
    const child = got.find((g) => g.span.name === 'orders::create')?.span;
    expect(parent).toMatchObject({ traceId: batch.traceId, spanId: batch.parentId, kind: 2 });
    expect(parent?.parentSpanId ?? '').toBe('');
    expect(child).toMatchObject({
      traceId: batch.traceId,
      spanId: batch.childId,
      parentSpanId: batch.parentId,
      kind: 1,
      status: { code: 2, message: 'no stock' },
    });
    expect(child?.events?.[0]?.name).toBe('exception');
    expect(child?.links).toMatchObject([
      { traceId: LINKED_TRACE, spanId: LINKED_SPAN, attributes: [{ key: 'why', value: { stringValue: 'batch' } }] },
    ]);
    const childAttrs = Object.fromEntries((child?.attributes ?? []).map((kv) => [kv.key, kv.value]));
    expect(childAttrs).toMatchObject({ 'svc.invocation_id': { stringValue: 'inv-1' }, retries: { intValue: '2' } });
    // the original batch's times, to the nanosecond
    const sent = JSON.parse(batch.text) as {
      resourceSpans: { scopeSpans: { spans: { startTimeUnixNano: string }[] }[] }[];
    };
    const starts = sent.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => String(s.startTimeUnixNano)).sort();
    expect(got.map((g) => g.span.startTimeUnixNano).sort()).toEqual(starts);
    // `both`: kept in memory as well
    expect(collector.spans.size).toBe(2);
  });

  it('delivers the log records that pass the level, with body, attributes, trace and span ids', async () => {
    collector = new Collector(config(receiver.url), pino({ level: 'silent' }));
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spanId = 'b7ad6b7169203331';
    collector.ingest('LOGS', logBatch(traceId, spanId));
    const [got] = await until(() => (receiver.logRecords().length > 0 ? receiver.logRecords() : undefined), 'logs');
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.logRecords()).toHaveLength(1); // the debug record is below `level: info`
    expect(got?.resource).toMatchObject(RESOURCE);
    expect(got?.scope).toMatchObject({ name: 'orders-log', version: '0.9.0' });
    expect(got?.record).toMatchObject({
      severityNumber: 9,
      body: { stringValue: 'order placed' },
      traceId,
      spanId,
    });
    expect(got?.record.attributes).toEqual([{ key: 'order', value: { intValue: '7' } }]);
  });

  it('delivers engine::log records made in svc-otel under their service name', async () => {
    collector = new Collector(config(receiver.url), pino({ level: 'silent' }));
    const now = `${BigInt(Date.now()) * 1_000_000n}`;
    const record = {
      timestamp_unix_nano: now,
      observed_timestamp_unix_nano: now,
      severity_number: 13,
      severity_text: 'WARN',
      body: 'disk almost full',
      attributes: {},
      trace_id: null,
      span_id: null,
      resource: { 'service.name': 'billing' },
      service_name: 'billing',
      instrumentation_scope_name: null,
      instrumentation_scope_version: null,
    };
    collector.add(record);
    collector.add({ ...record, resource: { 'service.name': 'billing' }, body: 'second' });
    await until(() => receiver.logRecords().length === 2, 'two records');
    expect(receiver.logRecords().map((l) => l.resource)).toEqual([
      { 'service.name': 'billing' },
      { 'service.name': 'billing' },
    ]);
    // equal resources share one resourceLogs entry
    expect(receiver.at('/v1/logs')[0]?.resourceLogs).toHaveLength(1);
  });

  it('delivers sums, gauges and histograms with their resource, scope, values and temporality', async () => {
    collector = new Collector(config(receiver.url), pino({ level: 'silent' }));
    collector.ingest('MTRC', await metricBatch());
    const got = await until(() => (receiver.metrics().length >= 4 ? receiver.metrics() : undefined), 'metrics');
    for (const { resource, scope } of got) {
      expect(resource).toMatchObject(RESOURCE);
      expect(scope).toMatchObject({ name: 'orders-meter', version: '3.0.0' });
    }
    const byName = Object.fromEntries(got.map((g) => [g.metric.name, g.metric]));
    expect(byName['orders.placed']?.sum).toMatchObject({ isMonotonic: true, aggregationTemporality: 2 });
    expect(byName['orders.placed']?.sum?.dataPoints[0]).toMatchObject({
      asDouble: 3,
      attributes: [{ key: 'region', value: { stringValue: 'eu' } }],
    });
    expect(byName['orders.open']?.sum?.isMonotonic ?? false).toBe(false);
    expect(byName['orders.open']?.sum?.dataPoints[0]?.asDouble).toBe(-2);
    expect(byName['orders.temperature']?.gauge?.dataPoints[0]?.asDouble).toBe(21.5);
    expect(byName['orders.latency']?.unit).toBe('ms');
    expect(byName['orders.latency']?.histogram?.dataPoints[0]).toMatchObject({
      count: '3',
      sum: 555,
      bucketCounts: ['1', '1', '1'],
      explicitBounds: [10, 100],
    });
    // kept in memory too (metrics are always stored)
    expect(collector.metrics.size).toBeGreaterThanOrEqual(4);
  });

  it('sends nothing for a signal whose exporter is memory', async () => {
    collector = new Collector(
      config(receiver.url, { exporter: 'memory', logs_exporter: 'memory', metrics_exporter: 'memory' }),
      pino({ level: 'silent' }),
    );
    collector.ingest('OTLP', traceBatch().text);
    collector.ingest('MTRC', await metricBatch());
    await collector.close();
    expect(receiver.received).toEqual([]);
    expect((collector.status() as { otlp: unknown }).otlp).toBeNull();
  });

  it('flushes what is queued when closed', async () => {
    collector = new Collector(config(receiver.url), pino({ level: 'silent' }));
    collector.ingest('OTLP', traceBatch().text);
    await collector.close(); // before the span batch delay is up
    expect(receiver.spans()).toHaveLength(2);
  });
});

describe('drop policy', () => {
  it('counts and logs the batches a failing receiver refuses, and ingest carries on', async () => {
    receiver.mode = 'unavailable';
    const { logger, lines } = capturingLogger();
    collector = new Collector(config(receiver.url, { export_timeout_ms: 300 }), logger);
    collector.ingest('OTLP', traceBatch().text);
    const status = (): OtlpExportStatus => (collector?.status() as { otlp: OtlpExportStatus }).otlp;
    await until(() => (status().traces?.failed ?? 0) === 2, 'the failed spans');
    expect(status().traces).toMatchObject({ sent: 0, failed: 2, dropped: 0, queued: 0 });
    expect(collector.spans.size).toBe(2); // memory is not affected
    expect(lines().some((l) => /OTLP export of traces failed/.test(String(l.msg)))).toBe(true);
  });

  it('gives up on a receiver that never answers after export_timeout_ms', async () => {
    receiver.mode = 'none';
    collector = new Collector(config(receiver.url, { export_timeout_ms: 200 }), pino({ level: 'silent' }));
    collector.ingest('OTLP', traceBatch().text);
    const status = (): OtlpExportStatus => (collector?.status() as { otlp: OtlpExportStatus }).otlp;
    await until(() => (status().traces?.failed ?? 0) === 2, 'the timed-out spans', 8000);
  });

  it('drops what does not fit in the queue, counted, one export at a time', async () => {
    const { logger, lines } = capturingLogger();
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const queue = new ExportQueue<number>(
      (batch) => {
        batches.push(batch);
        return new Promise<void>((r) => (release = r));
      },
      { signal: 'traces', maxQueueSize: 4, maxBatchSize: 2, delayMs: 10_000, timeoutMs: 5000 },
      logger,
    );
    queue.add([1, 2]); // a full batch goes at once
    await until(() => batches.length === 1, 'the first export');
    queue.add([3, 4, 5, 6, 7]); // the export is in flight: 4 fit, 1 is dropped
    expect(queue.counters).toMatchObject({ dropped: 1, queued: 4 });
    expect(batches).toHaveLength(1); // no second export while one is in flight
    release();
    await until(() => batches.length === 2, 'the second export');
    release();
    await until(() => batches.length === 3, 'the third export');
    release();
    await until(() => queue.counters.sent === 6, 'all sent');
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(lines().filter((l) => /export queue is full/.test(String(l.msg)))).toHaveLength(1);
    await queue.close();
  });

  it('leaves a receiver alone for a pause after failures in a row, then tries it again; a success ends it', async () => {
    const { logger, lines } = capturingLogger();
    let fail = true;
    let exports = 0;
    const queue = new ExportQueue<number>(
      () => {
        exports++;
        return fail ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve();
      },
      {
        signal: 'traces',
        maxQueueSize: 8,
        maxBatchSize: 1,
        delayMs: 10_000,
        timeoutMs: 1000,
        pauseMs: { first: 150, longest: 300 },
      },
      logger,
    );
    queue.add([1, 2, 3, 4, 5]); // one export per item: the third failure in a row pauses and drops the rest
    await until(() => queue.counters.paused_until !== null, 'the pause');
    expect(exports).toBe(FAILURES_BEFORE_PAUSE);
    expect(queue.counters).toMatchObject({ failed: 3, dropped: 2, queued: 0 });
    expect(queue.accepting).toBe(false);
    queue.add([6, 7]); // refused while paused: counted, never exported
    expect(queue.counters.dropped).toBe(4);
    expect(lines().some((l) => /failed 3 exports in a row; nothing is sent for 0.15 s/.test(String(l.msg)))).toBe(true);

    await until(() => queue.accepting, 'the end of the pause', 2000);
    const firstPauseEnded = Date.now();
    queue.add([8]); // one more failure is enough: paused again, for twice as long
    await until(() => queue.counters.paused_until !== null, 'the second pause');
    expect(queue.counters.paused_until! - firstPauseEnded).toBeGreaterThanOrEqual(250);
    expect(exports).toBe(4);

    fail = false;
    await until(() => queue.accepting, 'the end of the second pause', 2000);
    queue.add([9, 10]);
    await until(() => queue.counters.sent === 2, 'the exports after the receiver came back');
    expect(queue.counters.paused_until).toBeNull();
    await queue.close();
  });

  it('logs the first problems, then at most once a minute with what it kept quiet', () => {
    const { logger, lines } = capturingLogger();
    const warn = new RateLimitedWarn(logger);
    for (let i = 0; i < 100; i++) warn.warn({ i }, 'problem', 1_000 + i);
    expect(lines()).toHaveLength(5);
    warn.warn({ i: 100 }, 'problem', 70_000);
    expect(lines()).toHaveLength(6);
    expect(lines()[5]).toMatchObject({ i: 100, suppressed: 95 });
  });
});
