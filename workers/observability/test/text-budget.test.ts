import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../src/otlp/records.js';
import { decodeMetrics } from '../src/otlp/decode-metrics.js';
import { decodeTraces } from '../src/otlp/decode-traces.js';
import {
  MAX_LOG_RECORD_CHARS,
  MAX_METRIC_POINT_CHARS,
  MAX_RESOURCE_CHARS,
  MAX_SPAN_CHARS,
  MAX_SPAN_EVENTS,
  SPAN_TRUNCATED_ATTRIBUTE,
  TRUNCATED_ATTRIBUTE,
  withinTextBudget,
} from '../src/otlp/text-budget.js';
import type { Json } from '../src/otlp/values.js';

const record = (body: Json, attributes: Record<string, Json> = {}): LogRecord => ({
  timestamp_unix_nano: '1700000000000000000',
  observed_timestamp_unix_nano: '1700000000000000000',
  severity_number: 9,
  severity_text: 'INFO',
  body,
  attributes,
  trace_id: null,
  span_id: null,
  resource: {},
  service_name: 'w',
  instrumentation_scope_name: null,
  instrumentation_scope_version: null,
});

const textLength = (v: Json): number =>
  typeof v === 'string'
    ? v.length
    : v === null || typeof v !== 'object'
      ? 0
      : Array.isArray(v)
        ? v.reduce((n: number, x) => n + textLength(x), 0)
        : Object.entries(v).reduce((n, [k, x]) => n + k.length + textLength(x), 0);

describe('withinTextBudget', () => {
  it('keeps a record that fits as it is', () => {
    const r = record({ msg: 'hello', n: 1 }, { 'http.method': 'GET' });
    expect(withinTextBudget(r)).toBe(r);
  });

  it('cuts a long body, says how much was left out, and marks the record', () => {
    const r = withinTextBudget(record('L'.repeat(5 * 1024 * 1024), { a: 'x' }));
    expect(typeof r.body).toBe('string');
    expect((r.body as string).startsWith('L'.repeat(MAX_LOG_RECORD_CHARS))).toBe(true);
    expect(r.body).toMatch(new RegExp(`… \\[${5 * 1024 * 1024 - MAX_LOG_RECORD_CHARS} more characters not kept\\]$`));
    expect(r.attributes[TRUNCATED_ATTRIBUTE]).toBe(true);
  });

  it('bounds objects of many keys and arrays of many strings, keeping keys as keys', () => {
    const many: Record<string, Json> = {};
    for (let i = 0; i < 100_000; i++) many[`key-${i}`] = `value-${i}`;
    const r = withinTextBudget(record({ many, list: Array.from({ length: 100_000 }, (_, i) => `item ${i}`) }));
    expect(textLength(r.body)).toBeLessThanOrEqual(MAX_LOG_RECORD_CHARS + 100);
    expect(r.attributes[TRUNCATED_ATTRIBUTE]).toBe(true);
    const small = withinTextBudget(record({ k: 1 }, many));
    expect(textLength(small.attributes)).toBeLessThanOrEqual(MAX_LOG_RECORD_CHARS + 100);
  });

  it('keeps a `__proto__` key as a key of a cut object', () => {
    const body = JSON.parse(`{"__proto__":"kept","big":"${'x'.repeat(MAX_LOG_RECORD_CHARS + 10)}"}`) as Json;
    const cutBody = withinTextBudget(record(body)).body as Record<string, Json>;
    expect(Object.getPrototypeOf(cutBody)).toBe(Object.prototype);
    expect(Object.keys(cutBody)).toEqual(['__proto__', 'big']);
    expect(Object.getOwnPropertyDescriptor(cutBody, '__proto__')?.value).toBe('kept');
  });
});

const hex = (n: number, seed: number): string => seed.toString(16).padStart(n, '0');

/** One OTLP/JSON span batch of `spans` (a resource of `resource` attributes). */
const traceBatch = (spans: object[], resource: object[] = []): unknown => ({
  resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ spans }] }],
});

const otlpSpan = (i: number, extra: object = {}): object => ({
  traceId: hex(32, 1),
  spanId: hex(16, i + 1),
  name: 'work',
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000001000000',
  ...extra,
});

const str = (key: string, value: string): object => ({ key, value: { stringValue: value } });

describe('spans within their budget', () => {
  it('keeps a span that fits as the exporter sent it, with no mark', () => {
    const [span] = decodeTraces(traceBatch([otlpSpan(0, { attributes: [str('http.route', '/orders')] })]));
    expect(span?.attributes).toEqual({ 'http.route': '/orders' });
  });

  it('cuts a request body put on a span (iii-sdk sets no limit) and marks the span', () => {
    const body = 'B'.repeat(1024 * 1024);
    const [span] = decodeTraces(traceBatch([otlpSpan(0, { attributes: [str('a', 'kept'), str('body', body)] })]));
    expect(span?.attributes.a).toBe('kept');
    expect(span?.attributes.body).toMatch(/^B+… \[\d+ more characters not kept\]$/);
    expect(textLength(span?.attributes as Json)).toBeLessThanOrEqual(MAX_SPAN_CHARS + 100);
    expect(span?.attributes[SPAN_TRUNCATED_ATTRIBUTE]).toBe(true);
  });

  it('keeps at most 128 events and links, and reads its errors from the events kept', () => {
    const exception = {
      name: 'exception',
      timeUnixNano: '1700000000000500000',
      attributes: [str('exception.message', 'boom')],
    };
    const events = Array.from({ length: 10_000 }, () => exception);
    const links = Array.from({ length: 10_000 }, (_, i) => ({ traceId: hex(32, 2), spanId: hex(16, i + 1) }));
    const [span] = decodeTraces(traceBatch([otlpSpan(0, { events, links })]));
    expect(span?.events).toHaveLength(MAX_SPAN_EVENTS);
    expect(span?.links).toHaveLength(MAX_SPAN_EVENTS);
    expect(span?.errors).toHaveLength(MAX_SPAN_EVENTS);
    expect(span?.errors[0]?.message).toBe('boom');
    expect(span?.attributes[SPAN_TRUNCATED_ATTRIBUTE]).toBe(true);
  });

  it('leaves out the events past its text budget, cutting the one that reaches it', () => {
    const stack = `Error: boom\n${'    at handler (/app/worker.js:1:1)\n'.repeat(1000)}`;
    const exception = {
      name: 'exception',
      timeUnixNano: '1700000000000500000',
      attributes: [str('exception.message', 'boom'), str('exception.stacktrace', stack)],
    };
    const [span] = decodeTraces(traceBatch([otlpSpan(0, { events: [exception, exception, exception] })]));
    expect(span?.events).toHaveLength(1);
    expect(span?.errors[0]?.message).toBe('boom');
    expect(span?.errors[0]?.stacktrace).toMatch(/^Error: boom\n {4}at handler[^]*… \[\d+ more characters not kept\]$/);
    expect(textLength(span?.events[0]?.attributes as Json)).toBeLessThanOrEqual(MAX_SPAN_CHARS + 100);
  });

  it('cuts a resource once for every span of its batch', () => {
    const resource = [str('service.name', 'big'), str('process.command_args', 'x'.repeat(1024 * 1024))];
    const spans = decodeTraces(traceBatch([otlpSpan(0), otlpSpan(1)], resource));
    expect(spans[0]?.service).toBe('big');
    expect(textLength(spans[0]?.resource as Json)).toBeLessThanOrEqual(MAX_RESOURCE_CHARS + 100);
    expect(spans[1]?.resource).toBe(spans[0]?.resource);
  });

  it('keeps an attribute named __proto__ as an attribute, not as the prototype', () => {
    const [span] = decodeTraces(
      traceBatch([
        otlpSpan(0, {
          attributes: [{ key: '__proto__', value: { kvlistValue: { values: [str('polluted', 'yes')] } } }],
        }),
      ]),
    );
    expect(Object.getPrototypeOf(span?.attributes)).toBe(Object.prototype);
    expect('polluted' in (span?.attributes ?? {})).toBe(false);
    expect(Object.keys(span?.attributes ?? {})).toEqual(['__proto__']);
  });
});

describe('metric points within their budget', () => {
  const gauge = (attributes: object[], buckets = 0): unknown => ({
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            metrics: [
              { name: 'g', gauge: { dataPoints: [{ timeUnixNano: '1700000000000000000', asDouble: 1, attributes }] } },
              ...(buckets === 0
                ? []
                : [
                    {
                      name: 'h',
                      histogram: {
                        dataPoints: [
                          { timeUnixNano: '1', count: 1, bucketCounts: Array(buckets).fill(0), explicitBounds: [] },
                        ],
                      },
                    },
                  ]),
            ],
          },
        ],
      },
    ],
  });

  it('cuts the attributes of a point past its budget', () => {
    const [point] = decodeMetrics(gauge([str('route', '/a'), str('id', 'i'.repeat(100_000))]));
    expect(point?.attributes.route).toBe('/a');
    expect(textLength(point?.attributes as Json)).toBeLessThanOrEqual(MAX_METRIC_POINT_CHARS + 100);
    expect(point?.value).toBe(1);
  });

  it('refuses a histogram point of more buckets than any producer uses, naming where', () => {
    expect(() => decodeMetrics(gauge([], 1_000_000))).toThrow(
      /histogram\[0\]\.bucketCounts: expected at most 4096 buckets/,
    );
  });
});
