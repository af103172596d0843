/**
 * OTLP/HTTP export to a real receiver on loopback, built from the OpenTelemetry JS packages (it decodes the
 * OTLP/protobuf requests with the message definitions `@opentelemetry/otlp-transformer` ships): spans, metrics and
 * logs arrive with the configured resource attributes, the span with the trace id the engine stored. And bad
 * telemetry input: malformed frames, unknown prefixes and oversized batches on `/otel` and on a worker socket are
 * logged and dropped, and neither socket is affected.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { OtlpReceiver } from '../../workers/observability/test/otlp-receiver.js';
import { waitFor, type EngineProcess } from '../harness.js';
import { openRaw } from './engine-raw-client.js';
import { client, eventually, spans, startObservedEngine } from './observability-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let worker: SvcClient;
let receiver: OtlpReceiver;

const CONFIGURED = { 'service.namespace': 'e2e-ns', 'service.version': '9.9.9' };

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  engine = await startObservedEngine({
    exporter: 'both',
    logs_exporter: 'both',
    metrics_exporter: 'otlp',
    endpoint: receiver.url,
    headers: { 'x-e2e-token': 'let-me-in' },
    logs_flush_interval_ms: 200,
    service_name: 'svc-e2e',
    service_namespace: 'e2e-ns',
    service_version: '9.9.9',
  });
  worker = await client(engine.url, 'obs-export', true);
  worker.registerFunction('export::hello', (_p: unknown, ctx) => {
    ctx.logger.info('hello export');
    return 'hi';
  });
});

afterAll(async () => {
  await worker?.shutdown();
  await engine?.stop();
  await receiver?.close();
});

describe('OTLP export', () => {
  it('sends spans, metrics and logs to <endpoint>/v1/* as OTLP/protobuf with the resource attributes', async () => {
    await worker.trigger({ function_id: 'export::hello', payload: {} });
    const exported = await eventually(
      async () => receiver.spans().find((s) => s.span.name === 'export::hello'),
      15_000,
      'the span at the receiver',
    );
    expect(exported.resource).toMatchObject({
      'service.name': 'obs-export', // the engine records the call in the executor's name
      ...CONFIGURED,
    });
    // `both`: the span is kept in memory too, and it is the same span
    const [stored] = await spans(worker, { name: 'export::hello' });
    expect(stored).toBeDefined();
    expect(exported.span).toMatchObject({ traceId: stored!.trace_id, spanId: stored!.span_id, kind: 2 });

    const metric = await eventually(
      async () => receiver.metrics().find((m) => m.metric.name === 'svc.invocations.total'),
      15_000,
      'the metrics at the receiver',
    );
    expect(metric.resource).toMatchObject({ 'service.name': 'svc-e2e', ...CONFIGURED });
    const points = metric.metric.sum?.dataPoints ?? [];
    const hello = points.find((p) => p.attributes?.some((a) => a.value.stringValue === 'export::hello'));
    expect(Number(hello?.asInt ?? hello?.asDouble)).toBeGreaterThanOrEqual(1);

    const log = await eventually(
      async () => receiver.logRecords().find((l) => l.record.body?.stringValue === 'hello export'),
      15_000,
      'the log record at the receiver',
    );
    // a process started by hand has a resource of its own: its name (the engine's config is not its config)
    expect(log.resource['service.name']).toBe('obs-export');
    expect(log.record.traceId).toBe(stored!.trace_id); // logged inside the invocation's span
    const engineLog = await eventually(
      async () => receiver.logRecords().find((l) => l.record.body?.stringValue === 'worker connected'),
      15_000,
      "the engine's own log record at the receiver",
    );
    expect(engineLog.resource).toMatchObject({ 'service.name': 'svc-e2e', ...CONFIGURED });

    expect(receiver.rejected).toEqual([]);
    expect(receiver.received.every((r) => r.headers['x-e2e-token'] === 'let-me-in')).toBe(true);
    const status = await worker.trigger<{ otlp: { traces: { sent: number; failed: number; dropped: number } } }>({
      function_id: 'otel::status',
      payload: {},
    });
    expect(status.otlp.traces.sent).toBeGreaterThanOrEqual(1);
    expect(status.otlp.traces).toMatchObject({ failed: 0, dropped: 0 });
  });
});

const SPAN_ID = 'a1b2c3d4e5f60718';
const validBatch = (name: string): string =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw-otel' } }] },
        scopeSpans: [
          {
            scope: { name: 'raw' },
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: SPAN_ID,
                name,
                kind: 2,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000005000000',
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  });

const frame = (prefix: string, body: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(prefix, 'latin1'), Buffer.from(body)]);

describe('bad telemetry input', () => {
  it('drops malformed, unknown and oversized frames on /otel and keeps the socket serving', async () => {
    const ws = new WebSocket(`${engine.url}/otel`);
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const before = await worker.trigger<{ dropped_batches: number }>({ function_id: 'otel::status', payload: {} });
    ws.send(frame('XXXX', '{}'));
    ws.send(frame('OTLP', '{not json'));
    ws.send(frame('OTLP', '{"resourceSpans":"nope"}'));
    ws.send(frame('LOGS', Buffer.alloc(5 * 1024 * 1024, 0x20)));
    ws.send('a text frame is ignored');
    ws.send(frame('OT', ''));
    ws.send(frame('OTLP', validBatch('after-garbage')));
    const [span] = await eventually(
      async () => {
        const found = await spans(worker, { name: 'after-garbage' });
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the valid batch',
    );
    expect(span).toMatchObject({ service: 'raw-otel', span_id: SPAN_ID, status: 'ok', kind: 'server', duration_ms: 5 });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    const after = await worker.trigger<{ dropped_batches: number }>({ function_id: 'otel::status', payload: {} });
    expect(after.dropped_batches - before.dropped_batches).toBe(2); // bad JSON, bad shape (decoded in svc-otel)
    // the engine's own lines and svc-otel's (relayed through the engine's output) arrive in no fixed order
    const lines = [
      /telemetry frame dropped: unknown prefix \\?"XXXX\\?"/,
      /telemetry frame dropped: over 4194304 bytes/,
      /telemetry batch dropped: resourceSpans: expected an array/,
    ];
    await waitFor(() => lines.every((line) => line.test(engine.logs())), 10_000, 'the three log lines');
    ws.close();
  });

  it('drops a bad telemetry frame on a worker socket, which keeps working', async () => {
    const raw = await openRaw(engine.url);
    raw.send(frame('MTRC', '[1,2'));
    raw.send(frame('ZZZZ', 'x'));
    raw.send({
      type: 'invokefunction',
      invocation_id: '7d1f0e8e-2a39-4c0b-9a39-2f8b1c3d4e5f',
      function_id: 'export::hello',
      data: {},
    });
    const result = await raw.next((f) => f.type === 'invocationresult');
    expect(result).toMatchObject({ result: 'hi' });
    expect(raw.ws.readyState).toBe(WebSocket.OPEN);
    await raw.close();
  });
});
