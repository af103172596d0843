/**
 * The engine's invocation spans, written without OpenTelemetry span objects, say exactly what the OpenTelemetry
 * SDK (through the SDK's `Telemetry`) says for the same invocations: same resource per service, scope, name,
 * kind, attributes, parent, status and `exception` event, for arbitrary names, services and error texts. Ids and
 * times are the only fields that differ (fresh ids, another clock reading).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSampler, recordSpanError, SpanKind, SpanStatusCode, Telemetry, type SamplingSettings } from '@svc/sdk';
import type { InvocationSettled, InvocationStarted } from '../src/modules/module.js';
import { InvocationTracer } from '../src/modules/observability/invocation-tracer.js';
import { SpanBatch } from '../src/modules/observability/span-batch.js';

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

type Json = Record<string, unknown>;

/** Every span of the bodies as `{resource, scope, span}`, ids and times replaced, sorted by invocation id. */
function flatten(bodies: string[]): Json[] {
  const out: Json[] = [];
  for (const body of bodies) {
    for (const rs of (JSON.parse(body) as { resourceSpans: Json[] }).resourceSpans) {
      for (const ss of rs['scopeSpans'] as Json[]) {
        for (const span of ss['spans'] as Json[]) {
          out.push({ resource: rs['resource'], scope: ss['scope'], span: normalise(span) });
        }
      }
    }
  }
  const id = (s: Json): string =>
    ((s['span'] as Json)['attributes'] as { key: string; value: { stringValue: string } }[])[0]!.value.stringValue;
  return out.sort((a, b) => (id(a) < id(b) ? -1 : 1));
}

function normalise(span: Json): Json {
  const s: Json = { ...span, traceId: hex(span['traceId'], 32), spanId: hex(span['spanId'], 16) };
  s['startTimeUnixNano'] = nanos(span['startTimeUnixNano']);
  s['endTimeUnixNano'] = nanos(span['endTimeUnixNano']);
  s['events'] = (span['events'] as Json[]).map((e) => ({ ...e, timeUnixNano: nanos(e['timeUnixNano']) }));
  return s;
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

/** What the OpenTelemetry SDK sends for `calls`. */
async function reference(calls: Call[]): Promise<string[]> {
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
  return bodies;
}

/** What the engine's tracer sends for `calls`. */
function ours(calls: Call[]): string[] {
  const bodies: string[] = [];
  const spans = new SpanBatch({ send: (body) => bodies.push(body) > 0, resource: RESOURCE, maxBatchSpans: 7 });
  const tracer = new InvocationTracer({ sampler: createSampler(ALL), spans, defaultService: 'svc-engine' }, undefined);
  calls.forEach((c, i) => {
    const traceparent = tracer.invocationStarted(started(c, i));
    expect(traceparent).toMatch(c.parent ? /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/ : /-01$/);
    tracer.invocationSettled(settled(c, i));
  });
  tracer.close();
  return bodies;
}

function invocationId(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
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

describe('engine invocation spans', () => {
  it('say what the OpenTelemetry SDK says for the same invocations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), async (calls) => {
        expect(flatten(ours(calls))).toEqual(flatten(await reference(calls)));
      }),
      { numRuns: 40 },
    );
  });

  it('follow the sampler: an unsampled trace gets flags 00 and no span', () => {
    const bodies: string[] = [];
    const spans = new SpanBatch({ send: (body) => bodies.push(body) > 0, resource: RESOURCE });
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
    expect(flatten(bodies)).toHaveLength(1);
  });
});
