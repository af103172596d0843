/** OTLP/JSON decoding (as the OpenTelemetry serializers write it) and the metric store's window values. */
import { describe, expect, it } from 'vitest';
import { decodeLogs } from '../src/otlp/decode-logs.js';
import type { MetricPoint } from '../src/otlp/records.js';
import { decodeTraces } from '../src/otlp/decode-traces.js';
import { MAX_TREE_DEPTH, traceTree } from '../src/queries/traces.js';
import { MetricStore } from '../src/stores/metric-store.js';
import { SpanStore } from '../src/stores/span-store.js';

const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'w' } }] };

describe('decodeTraces', () => {
  it('reads ids, times, kind, status, attributes and exception events', () => {
    const [span] = decodeTraces({
      resourceSpans: [
        {
          resource,
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0AF7651916CD43DD8448EB211C80319C',
                  spanId: 'b7ad6b7169203331',
                  parentSpanId: '',
                  name: 'fn',
                  kind: 3,
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000250000000',
                  status: { code: 2, message: 'bad' },
                  attributes: [{ key: 'n', value: { intValue: '7' } }],
                  events: [
                    {
                      name: 'exception',
                      timeUnixNano: '1700000000100000000',
                      attributes: [
                        { key: 'exception.message', value: { stringValue: 'boom' } },
                        { key: 'exception.stacktrace', value: { stringValue: 'Error: boom\n at x' } },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(span).toMatchObject({
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      name: 'fn',
      service: 'w',
      kind: 'client',
      status: 'error',
      status_message: 'bad',
      duration_ms: 250,
      attributes: { n: 7 },
      errors: [{ message: 'boom', stacktrace: 'Error: boom\n at x' }],
    });
    expect(span?.parent_span_id).toBeUndefined();
  });

  it('names the first bad field', () => {
    expect(() =>
      decodeTraces({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'zz', spanId: '1' }] }] }] }),
    ).toThrow(/resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId: expected 32 hex digits/);
    expect(() => decodeTraces({ resourceSpans: {} })).toThrow(/resourceSpans: expected an array/);
  });
});

describe('decodeLogs', () => {
  it('gives the log trigger payload shape', () => {
    const [record] = decodeLogs({
      resourceLogs: [
        {
          resource,
          scopeLogs: [
            {
              scope: { name: 'iii-node', version: '1' },
              logRecords: [
                {
                  timeUnixNano: '0',
                  observedTimeUnixNano: '1795285697769000000',
                  severityNumber: 13,
                  body: { stringValue: 'hello log' },
                  attributes: [
                    { key: 'log.data', value: { kvlistValue: { values: [{ key: 'a', value: { boolValue: true } }] } } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(record).toEqual({
      timestamp_unix_nano: '1795285697769000000',
      observed_timestamp_unix_nano: '1795285697769000000',
      severity_number: 13,
      severity_text: 'WARN',
      body: 'hello log',
      attributes: { 'log.data': { a: true } },
      trace_id: null,
      span_id: null,
      resource: { 'service.name': 'w' },
      service_name: 'w',
      instrumentation_scope_name: 'iii-node',
      instrumentation_scope_version: '1',
    });
  });
});

const point = (name: string, type: MetricPoint['type'], time_ms: number, value: number, sum?: number): MetricPoint => ({
  name,
  type,
  description: '',
  unit: '',
  service: 's',
  time_ms,
  attributes: { function: 'f' },
  value,
  ...(sum !== undefined ? { sum } : {}),
});

describe('MetricStore.windowValue', () => {
  it('is a counter increase, a gauge latest value, a histogram average over the window', () => {
    const store = new MetricStore(100, 3600);
    store.add(point('c', 'sum', 1000, 5));
    store.add(point('c', 'sum', 20_000, 9));
    store.add(point('g', 'gauge', 19_000, 3));
    store.add(point('g', 'gauge', 20_000, 4));
    store.add(point('h', 'histogram', 1000, 2, 10));
    store.add(point('h', 'histogram', 20_000, 4, 50));
    expect(store.windowValue('c', 10_000, 21_000).value).toBe(4);
    expect(store.windowValue('c', 60_000, 21_000).value).toBe(9); // born inside the window
    expect(store.windowValue('g', 10_000, 21_000).value).toBe(4);
    expect(store.windowValue('h', 10_000, 21_000).value).toBe(20);
    expect(store.windowValue('nope', 10_000, 21_000).value).toBeUndefined();
  });

  it('evicts beyond its count and its retention', () => {
    const store = new MetricStore(2, 10);
    for (let i = 0; i < 3; i++) store.add(point('c', 'sum', i * 1000, i));
    expect(store.size).toBe(2);
    expect(store.sweep(20_000)).toBe(2);
    expect(store.size).toBe(0);
  });
});

describe('SpanStore', () => {
  it('forgets an evicted span in its trace index too', () => {
    const store = new SpanStore(1);
    const [a] = decodeTraces({
      resourceSpans: [
        { resource, scopeSpans: [{ spans: [{ traceId: '1'.repeat(32), spanId: '1'.repeat(16), name: 'a' }] }] },
      ],
    });
    const [b] = decodeTraces({
      resourceSpans: [
        { resource, scopeSpans: [{ spans: [{ traceId: '2'.repeat(32), spanId: '2'.repeat(16), name: 'b' }] }] },
      ],
    });
    store.add(a!);
    store.add(b!);
    expect(store.trace('1'.repeat(32))).toEqual([]);
    expect(store.trace('2'.repeat(32))).toHaveLength(1);
    expect(store.traceCount).toBe(1);
  });
});

describe('engine::traces::tree', () => {
  interface Node {
    span_id: string;
    children: Node[];
  }
  interface SpanLike {
    name: string;
    parent_span_id?: string;
  }
  const shape = (n: Node): unknown => ({ [n.span_id.slice(0, 2)]: n.children.map(shape) });

  it("shows every span once when parents form a loop, cut at the loop's first span", () => {
    const traceId = '3'.repeat(32);
    const span = (id: string, parent: string): object => ({
      traceId,
      spanId: id.repeat(16),
      parentSpanId: parent.repeat(16),
      name: id,
      startTimeUnixNano: '1700000000000000000',
    });
    const store = new SpanStore(10);
    const spans = [span('a', 'a'), span('b', 'c'), span('c', 'b'), span('d', 'b'), span('e', '')];
    for (const s of decodeTraces({ resourceSpans: [{ resource, scopeSpans: [{ spans }] }] })) store.add(s);
    const tree = traceTree(store, { trace_id: traceId }) as { span_count: number; roots: Node[] };
    expect(tree.span_count).toBe(5);
    // Before, the looping spans hung from each other and no root: the tree showed `e` alone.
    expect(tree.roots.map(shape)).toEqual([{ ee: [] }, { aa: [] }, { bb: [{ cc: [] }, { dd: [] }] }]);
    expect(() => JSON.stringify(tree)).not.toThrow();
  });

  it('continues a branch deeper than MAX_TREE_DEPTH as a root of its own, so the tree can be written', () => {
    const traceId = '4'.repeat(32);
    const id = (i: number): string => (i + 1).toString(16).padStart(16, '0');
    const depth = 2 * MAX_TREE_DEPTH + 10; // a function that called itself this many times deep
    const spans = Array.from({ length: depth }, (_, i) => ({
      traceId,
      spanId: id(i),
      ...(i === 0 ? {} : { parentSpanId: id(i - 1) }),
      name: `call ${i}`,
      startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)),
    }));
    const store = new SpanStore(depth);
    for (const s of decodeTraces({ resourceSpans: [{ resource, scopeSpans: [{ spans }] }] })) store.add(s);
    const tree = traceTree(store, { trace_id: traceId }) as { span_count: number; roots: (Node & SpanLike)[] };
    // Before, the answer nested 1,034 levels (2,068 in JSON); from about 3,000 it could not be written at all.
    expect(tree.roots.map((r) => r.name)).toEqual(['call 0', `call ${MAX_TREE_DEPTH}`, `call ${2 * MAX_TREE_DEPTH}`]);
    expect(tree.roots[1]?.parent_span_id).toBe(id(MAX_TREE_DEPTH - 1));
    const depths = tree.roots.map((r) => {
      let n = 0;
      for (let node: Node | undefined = r; node !== undefined; node = node.children[0]) n++;
      return n;
    });
    expect(depths).toEqual([MAX_TREE_DEPTH, MAX_TREE_DEPTH, 10]);
    expect(() => JSON.stringify(tree)).not.toThrow();
  });
});
