/**
 * The engine's invocation spans, written without OpenTelemetry span objects as engine span batches and read by
 * svc-otel, are stored exactly as the OTLP/JSON the OpenTelemetry SDK (through the SDK's `Telemetry`) sends for
 * the same invocations: same resource per service, scope, name, kind, attributes, parent, status and `exception`
 * event, for arbitrary names, services, invocation ids and error texts. Ids and times are the only fields that
 * differ (fresh ids, another clock reading); a malformed batch is refused naming the line and field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSampler, recordSpanError, SpanKind, SpanStatusCode, Telemetry, type SamplingSettings } from '@svc/sdk';
import type { InvocationSettled, InvocationStarted } from '../../engine/src/modules/module.js';
import { InvocationTracer } from '../../engine/src/modules/observability/invocation-tracer.js';
import { SpanBatch } from '../../engine/src/modules/observability/span-batch.js';
import { EngineSpanDecoder } from '../../workers/observability/src/otlp/decode-engine-spans.js';
import { decodeTraces } from '../../workers/observability/src/otlp/decode-traces.js';
import type { StoredSpan } from '../../workers/observability/src/otlp/records.js';

const RESOURCE = { 'service.namespace': 'svc', 'service.version': '1.2.3' };
const ALL: SamplingSettings = { defaultRatio: 1, parentBased: true, rules: [], maxTracesPerSecond: 0 };
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Call {
  functionId: string;
  service: string;
  parent: boolean;
  outcome: 'ok' | 'error' | 'cancelled';
  message: string;
  stack: string | undefined;
  code: string | undefined;
}

/** The stored spans, ids and times replaced, sorted by invocation id. */
function normalised(spans: StoredSpan[]): unknown[] {
  const id = (s: StoredSpan): string => s.attributes['svc.invocation_id'] as string;
  return [...spans]
    .sort((a, b) => (id(a) < id(b) ? -1 : 1))
    .map((s) => ({
      ...s,
      trace_id: hex(s.trace_id, 32),
      span_id: hex(s.span_id, 16),
      start_time_unix_nano: nanos(s.start_time_unix_nano),
      end_time_unix_nano: nanos(s.end_time_unix_nano),
      start_ms: nanos(`${s.start_ms}000000`),
      duration_ms: '<duration>',
      events: s.events.map((e) => ({ ...e, time_unix_nano: nanos(e.time_unix_nano) })),
    }));
}

function hex(v: unknown, length: number): string {
  expect(v).toMatch(new RegExp(`^[0-9a-f]{${length}}$`));
  return `<${length} hex>`;
}

function nanos(v: unknown): string {
  expect(v).toMatch(/^\d{19}$/);
  expect(Math.abs(Number(v) / 1e6 - Date.now())).toBeLessThan(60_000);
  return '<nanos>';
}

/** What svc-otel stores of what the OpenTelemetry SDK sends for `calls`. */
async function reference(calls: Call[]): Promise<StoredSpan[]> {
  const bodies: string[] = [];
  const telemetry = new Telemetry({
    sink: (_prefix, body) => bodies.push(Buffer.from(body).toString('utf8')) > 0,
    serviceName: 'svc-engine',
    resource: RESOURCE,
    sampling: ALL,
  });
  calls.forEach((c, i) => {
    const span = telemetry.startSpan(c.functionId, {
      parent: c.parent ? PARENT : undefined,
      kind: SpanKind.SERVER,
      service: c.service,
      attributes: { 'svc.invocation_id': invocationId(i) },
    });
    if (c.outcome === 'error') recordSpanError(span, c.message, c.stack, c.code);
    else if (c.outcome === 'cancelled') recordSpanError(span, 'cancelled by the caller', undefined, 'cancelled');
    else span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  });
  await telemetry.shutdown();
  return bodies.flatMap((body) => decodeTraces(JSON.parse(body)));
}

/** The batch in the JSON text of an `otel::ingest` payload, as svc-otel's connection parses it. */
function bodyOf(json: string): string {
  const payload = JSON.parse(json) as { prefix: string; body: string };
  expect(payload.prefix).toBe('SVCS');
  return payload.body;
}

/** The engine's tracer's batches for `calls`. */
function ours(calls: Call[]): string[] {
  const bodies: string[] = [];
  const spans = new SpanBatch({ send: (json) => bodies.push(bodyOf(json)) > 0, resource: RESOURCE, maxBatchSpans: 7 });
  const tracer = new InvocationTracer({ sampler: createSampler(ALL), spans, defaultService: 'svc-engine' }, undefined);
  calls.forEach((c, i) => {
    const traceparent = tracer.invocationStarted(started(c, i));
    expect(traceparent).toMatch(c.parent ? /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/ : /-01$/);
    tracer.invocationSettled(settled(c, i));
  });
  tracer.close();
  return bodies;
}

/** UUIDs, and now and then an id no engine makes (written through the batch's string table). */
function invocationId(i: number): string {
  const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return i % 5 === 4 ? `#${uuid} "odd"\n` : uuid;
}

function started(c: Call, i: number): InvocationStarted {
  return {
    invocationId: invocationId(i),
    functionId: c.functionId,
    callerWorkerId: 'caller',
    executorWorkerId: 'executor',
    executorWorkerName: c.service,
    traceId: undefined,
    traceparent: c.parent ? PARENT : undefined,
    baggage: undefined,
  };
}

function settled(c: Call, i: number): InvocationSettled {
  const error =
    c.outcome === 'error'
      ? { code: c.code as string, message: c.message, ...(c.stack !== undefined ? { stacktrace: c.stack } : {}) }
      : undefined;
  return {
    invocationId: invocationId(i),
    functionId: c.functionId,
    callerWorkerId: 'caller',
    executorWorkerId: 'executor',
    traceId: undefined,
    durationMs: 0.25,
    outcome: c.outcome === 'ok' ? 'ok' : c.outcome === 'cancelled' ? 'cancelled' : (c.code as string),
    error,
  };
}

const call: fc.Arbitrary<Call> = fc.record({
  functionId: fc.oneof(fc.constant('orders::create'), fc.string({ minLength: 1 })),
  service: fc.constantFrom('worker-a', 'worker-b', 'wörker "c"\n'),
  parent: fc.boolean(),
  outcome: fc.constantFrom('ok' as const, 'error' as const, 'cancelled' as const),
  message: fc.string(),
  stack: fc.option(fc.string(), { nil: undefined }),
  code: fc.constantFrom('invocation_failed', 'invocation_timeout', 'my "code"'),
});

const decoded = (bodies: string[]): StoredSpan[] => {
  const decoder = new EngineSpanDecoder();
  return bodies.flatMap((body) => decoder.decode(body));
};

describe('engine invocation spans', () => {
  it('are stored as what the OpenTelemetry SDK sends for the same invocations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), async (calls) => {
        const stored = decoded(ours(calls));
        expect(normalised(stored)).toEqual(normalised(await reference(calls)));
        for (const s of stored) expect(s.duration_ms).toBe(0.25);
      }),
      { numRuns: 40 },
    );
  });

  it('share one resource object per service across batches', () => {
    const calls = ['a', 'b', 'a', 'a'].map((service): Call => ({
      functionId: 'f::g',
      service,
      parent: false,
      outcome: 'ok',
      message: '',
      stack: undefined,
      code: undefined,
    }));
    const stored = decoded(ours(calls));
    expect(stored.map((s) => s.service)).toEqual(['a', 'b', 'a', 'a']);
    expect(stored[0]!.resource).toBe(stored[2]!.resource);
    expect(stored[0]!.resource).not.toBe(stored[1]!.resource);
  });

  it('follow the sampler: an unsampled trace gets flags 00 and no span', () => {
    const bodies: string[] = [];
    const spans = new SpanBatch({ send: (json) => bodies.push(bodyOf(json)) > 0, resource: RESOURCE });
    const none: SamplingSettings = { defaultRatio: 0, parentBased: true, rules: [], maxTracesPerSecond: 0 };
    const tracer = new InvocationTracer({ sampler: createSampler(none), spans, defaultService: 'e' }, undefined);
    const c: Call = {
      functionId: 'a::b',
      service: 'w',
      parent: false,
      outcome: 'ok',
      message: '',
      stack: undefined,
      code: undefined,
    };
    expect(tracer.invocationStarted(started(c, 0))).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    tracer.invocationSettled(settled(c, 0));
    // a sampled parent is followed (parent-based) even at ratio 0
    expect(tracer.invocationStarted(started({ ...c, parent: true }, 1))).toMatch(/-01$/);
    tracer.invocationSettled(settled({ ...c, parent: true }, 1));
    tracer.close();
    expect(decoded(bodies)).toHaveLength(1);
  });

  it('keep-all sampling decides without the sampler exactly as the sampler does', () => {
    const c: Call = {
      functionId: 'a::b',
      service: 'w',
      parent: false,
      outcome: 'ok',
      message: '',
      stack: undefined,
      code: undefined,
    };
    const parents = [undefined, PARENT, PARENT.replace(/-01$/, '-00')];
    for (const parentBased of [true, false]) {
      const settings: SamplingSettings = { defaultRatio: 1, parentBased, rules: [], maxTracesPerSecond: 0 };
      const flags = (keepAll: boolean): string[] => {
        const spans = new SpanBatch({ send: () => true, resource: RESOURCE });
        const tracer = new InvocationTracer(
          {
            sampler: createSampler(settings),
            keepAll: keepAll ? { parentBased } : undefined,
            spans,
            defaultService: 'e',
          },
          undefined,
        );
        return parents.map((traceparent, i) => tracer.invocationStarted({ ...started(c, i), traceparent })!.slice(-2));
      };
      expect(flags(true), `parentBased ${parentBased}`).toEqual(flags(false));
      expect(flags(true)).toEqual(parentBased ? ['01', '01', '00'] : ['01', '01', '01']);
    }
  });

  it('a malformed batch is refused, naming the line and field', () => {
    const head = '{"resource":{},"scope":"svc","strings":["f","w"]}';
    const line = (fields: string) => `${head}\n${fields}`;
    const ok =
      '0af7651916cd43dd8448eb211c80319c b7ad6b7169203331 - 0 1 1 id-1 1700000000000000 1700000000000250 1 - - - -';
    expect(decoded([line(ok)])).toHaveLength(1);
    const cases: [string, RegExp][] = [
      ['not json', /^head: expected a JSON object$/],
      [line(ok.replace('0af7', 'XXXX')), /^line 1 traceId: expected 32 lowercase hex digits$/],
      [line(ok.replace(' 0 1 1 ', ' 0 7 1 ')), /^line 1 service: expected an index into strings \(0-1\)$/],
      [line(ok.replace(' 1 - - - -', ' 3 - - - -')), /^line 1 status: expected 0, 1 or 2$/],
      [line(ok.replace('1700000000000250', '17.5')), /^line 1 end: expected whole microseconds$/],
      [line(`${ok} extra`), /^line 1: expected 14 space-separated fields$/],
      [`${line(ok)}\n${ok.replace('b7ad', 'b7a')}`, /^line 2 spanId: expected 16 lowercase hex digits$/],
      ['{"resource":{},"strings":[1]}', /^head.strings: expected an array of strings$/],
    ];
    for (const [body, message] of cases) expect(() => decoded([body]), body).toThrow(message);
  });
});
