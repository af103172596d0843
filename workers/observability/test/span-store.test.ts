/**
 * The span store over decoded spans and packed engine span batches: eviction of exactly the oldest spans, `trace`,
 * `newest`, `clear` and `traceCount` across both kinds, checked by hand and against a simple model of the eager
 * store (every span decoded at ingest); and `EngineSpanDecoder.pack`, which must refuse exactly what `decode`
 * refuses (same message) and keep spans that decode exactly as `decode` makes them.
 */
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SvcClient, TriggerBinding } from '@svc/sdk';
import { Collector } from '../src/collector.js';
import { observabilityConfigSchema } from '../src/config.js';
import { FAILURES_BEFORE_PAUSE, type ExportCounters } from '../src/export/export-queue.js';
import type { OtlpExportStatus } from '../src/export/otlp-export.js';
import { HttpRequestCounter } from '../src/http-requests.js';
import { EngineSpanDecoder } from '../src/otlp/decode-engine-spans.js';
import { indexBelow } from '../src/otlp/engine-line-pattern.js';
import { decodeTraces } from '../src/otlp/decode-traces.js';
import type { StoredSpan } from '../src/otlp/records.js';
import { SpanStore } from '../src/stores/span-store.js';
import { TraceTriggers } from '../src/trace-trigger.js';

const STRINGS = ['orders::create', 'worker-a', 'worker-b', 'Error', 'boom', 'at f (a.js:1:1)', 'id #7'];
const HEAD = `{"resource":{"service.namespace":"svc","n":[1,"x",null]},"scope":"svc","strings":${JSON.stringify(STRINGS)}}`;
const TRACES = ['0af7651916cd43dd8448eb211c80319c', '1'.repeat(32), 'abcdef0123456789abcdef0123456789', 'f'.repeat(32)];

/** One line of an engine span batch (docs/observability.md, "The engine's span batches"). */
interface Line {
  trace: number;
  span: string;
  parent: string | undefined;
  name: number;
  service: number;
  invocation: string;
  start: number;
  duration: number;
  status: 0 | 1 | 2;
  error: [number, number | undefined, number | undefined] | undefined;
}

const index = fc.nat({ max: STRINGS.length - 1 });
const hex16 = fc.stringMatching(/^[0-9a-f]{16}$/);
const line: fc.Arbitrary<Line> = fc.record({
  trace: fc.nat({ max: TRACES.length - 1 }),
  span: hex16,
  parent: fc.option(hex16, { nil: undefined }),
  name: index,
  service: index,
  // a trace id as an invocation id, too: only a line's first field is its trace id
  invocation: fc.constantFrom('00000000-0000-4000-8000-000000000001', 'inv-2', '#6', TRACES[1]!),
  start: fc.integer({ min: 1_700_000_000_000_000, max: 1_700_000_100_000_000 }),
  duration: fc.nat({ max: 5_000_000 }),
  status: fc.constantFrom(0 as const, 1 as const, 2 as const),
  error: fc.option(fc.tuple(index, fc.option(index, { nil: undefined }), fc.option(index, { nil: undefined })), {
    nil: undefined,
  }),
});

const opt = (i: number | undefined): string => (i === undefined ? '-' : String(i));

function batch(lines: Line[]): string {
  const text = lines.map((l) => {
    const error = l.error === undefined ? '- - -' : `${l.error[0]} ${opt(l.error[1])} ${opt(l.error[2])}`;
    const message = l.error === undefined ? '-' : opt(l.error[1]);
    return (
      `\n${TRACES[l.trace]} ${l.span} ${l.parent ?? '-'} ${l.name} ${l.service} ${l.service} ${l.invocation} ` +
      `${l.start} ${l.start + l.duration} ${l.status} ${message} ${error}`
    );
  });
  return `${HEAD}${text.join('')}`;
}

function otlpSpan(trace: number, spanId: string, name = 'sdk-span'): StoredSpan {
  const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'w' } }] };
  const span = { traceId: TRACES[trace], spanId, name, startTimeUnixNano: '1700000000000000000' };
  return decodeTraces({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] })[0]!;
}

function lineOf(trace: number, span: string): Line {
  return {
    trace,
    span,
    parent: undefined,
    name: 0,
    service: 1,
    invocation: 'inv-1',
    start: 1_700_000_000_000_000,
    duration: 250,
    status: 1,
    error: undefined,
  };
}

const ids = (spans: Iterable<StoredSpan>): string[] => [...spans].map((s) => s.span_id);

describe('SpanStore with packed engine batches', () => {
  const decoder = new EngineSpanDecoder();
  const packed = (...spans: string[]) => decoder.pack(batch(spans.map((s, i) => lineOf(i % 2, s))));

  it('evicts exactly the oldest spans across decoded spans and packed batches', () => {
    const store = new SpanStore(5);
    store.add(otlpSpan(0, 'a'.repeat(16)));
    store.addPacked(packed('b1'.repeat(8), 'b2'.repeat(8), 'b3'.repeat(8)));
    store.add(otlpSpan(1, 'c'.repeat(16)));
    expect(store.size).toBe(5);
    expect(ids(store.newest())).toEqual([
      'c'.repeat(16),
      'b3'.repeat(8),
      'b2'.repeat(8),
      'b1'.repeat(8),
      'a'.repeat(16),
    ]);

    store.add(otlpSpan(2, 'd'.repeat(16)));
    store.addPacked(packed('e1'.repeat(8)));
    // the OTLP span went, then the batch's first line
    expect(store.size).toBe(5);
    expect(ids(store.newest())).toEqual([
      'e1'.repeat(8),
      'd'.repeat(16),
      'c'.repeat(16),
      'b3'.repeat(8),
      'b2'.repeat(8),
    ]);

    store.addPacked(packed('f1'.repeat(8), 'f2'.repeat(8), 'f3'.repeat(8), 'f4'.repeat(8)));
    // the rest of the first batch (dropped once empty) and the two OTLP spans behind it went
    expect(ids(store.newest())).toEqual([
      'f4'.repeat(8),
      'f3'.repeat(8),
      'f2'.repeat(8),
      'f1'.repeat(8),
      'e1'.repeat(8),
    ]);
    expect(store.trace(TRACES[0]!).map((s) => s.span_id)).toEqual(['e1'.repeat(8), 'f1'.repeat(8), 'f3'.repeat(8)]);
  });

  it('evicts from a batch larger than the store', () => {
    const store = new SpanStore(2);
    store.addPacked(packed('a1'.repeat(8), 'a2'.repeat(8), 'a3'.repeat(8)));
    expect(store.size).toBe(2);
    expect(ids(store.newest())).toEqual(['a3'.repeat(8), 'a2'.repeat(8)]);
    expect(store.traceCount).toBe(2);
    store.addPacked(decoder.pack(HEAD)); // a batch of no span changes nothing
    expect(store.size).toBe(2);
  });

  it('finds a trace in decoded spans and packed batches alike, in arrival order', () => {
    const store = new SpanStore(100);
    store.add(otlpSpan(0, '1'.repeat(16)));
    store.addPacked(packed('2'.repeat(16), '3'.repeat(16), '4'.repeat(16)));
    store.add(otlpSpan(0, '5'.repeat(16)));
    store.add(otlpSpan(3, '6'.repeat(16)));
    const trace0 = ['1', '2', '4', '5'].map((c) => c.repeat(16));
    expect(store.trace(TRACES[0]!).map((s) => s.span_id)).toEqual(trace0);
    expect(store.trace(TRACES[0]!.toUpperCase()).map((s) => s.span_id)).toEqual(trace0);
    expect(store.trace(TRACES[1]!).map((s) => s.span_id)).toEqual(['3'.repeat(16)]);
    expect(store.trace(TRACES[3]!).map((s) => s.span_id)).toEqual(['6'.repeat(16)]);
    // only a whole trace id at a line's start counts
    expect(store.trace(TRACES[0]!.slice(0, 31))).toEqual([]);
    expect(store.trace(TRACES[0]!.slice(1))).toEqual([]);
    expect(store.trace('2'.repeat(32))).toEqual([]);
    expect(store.trace(TRACES[2]!)).toEqual([]);
    expect(store.traceCount).toBe(3);
    // the same answers once a query has decoded the batch
    expect([...store.newest()]).toHaveLength(6);
    expect(store.trace(TRACES[0]!).map((s) => s.span_id)).toEqual(trace0);
  });

  it('takes a trace id only from the first field of a line', () => {
    const store = new SpanStore(100);
    store.addPacked(decoder.pack(batch([{ ...lineOf(3, '7'.repeat(16)), invocation: TRACES[2]! }])));
    expect(store.trace(TRACES[2]!)).toEqual([]);
    expect(store.trace(TRACES[3]!).map((s) => s.span_id)).toEqual(['7'.repeat(16)]);
  });

  it('counts traces of both kinds once, and empties on clear', () => {
    const store = new SpanStore(100);
    store.add(otlpSpan(0, '1'.repeat(16)));
    store.addPacked(packed('2'.repeat(16), '3'.repeat(16), '4'.repeat(16)));
    expect(store.traceCount).toBe(2);
    store.add(otlpSpan(2, '5'.repeat(16)));
    expect(store.traceCount).toBe(3);
    expect(store.clear()).toBe(5);
    expect(store.size).toBe(0);
    expect(store.traceCount).toBe(0);
    expect([...store.newest()]).toEqual([]);
    expect(store.trace(TRACES[0]!)).toEqual([]);
    store.addPacked(packed('6'.repeat(16)));
    expect(ids(store.newest())).toEqual(['6'.repeat(16)]);
    expect(store.traceCount).toBe(1);
  });

  type Op =
    | { kind: 'otlp'; trace: number; span: string }
    | { kind: 'engine'; lines: Line[] }
    | { kind: 'newest' }
    | { kind: 'trace'; trace: number }
    | { kind: 'clear' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('otlp' as const), trace: fc.nat({ max: 3 }), span: hex16 }) },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant('engine' as const), lines: fc.array(line, { maxLength: 8 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'newest' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('trace' as const), trace: fc.nat({ max: 3 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  );

  it('answers newest(), trace(), size and traceCount exactly as a store of decoded spans', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 25 }), fc.array(op, { maxLength: 40 }), (capacity, ops) => {
        const store = new SpanStore(capacity);
        const eager = new EngineSpanDecoder();
        let model: StoredSpan[] = []; // oldest first, every span decoded at ingest
        const check = (): void => {
          expect(store.size).toBe(model.length);
          expect(store.traceCount).toBe(new Set(model.map((s) => s.trace_id)).size);
        };
        for (const o of ops) {
          if (o.kind === 'otlp') {
            const span = otlpSpan(o.trace, o.span);
            store.add(span);
            model.push(span);
          } else if (o.kind === 'engine') {
            store.addPacked(decoder.pack(batch(o.lines)));
            model.push(...eager.decode(batch(o.lines)));
          } else if (o.kind === 'newest') {
            expect([...store.newest()]).toEqual([...model].reverse());
          } else if (o.kind === 'trace') {
            expect(store.trace(TRACES[o.trace]!)).toEqual(model.filter((s) => s.trace_id === TRACES[o.trace]));
          } else {
            expect(store.clear()).toBe(model.length);
            model = [];
          }
          model = model.slice(Math.max(0, model.length - capacity));
          check();
        }
        expect([...store.newest()]).toEqual([...model].reverse());
        for (const id of TRACES) expect(store.trace(id)).toEqual(model.filter((s) => s.trace_id === id));
      }),
      { numRuns: 300 },
    );
  });
});

describe('indexBelow (the index fields of a line as the engine writes it)', () => {
  it('matches exactly the indexes of a table of n strings, written without leading zeros', () => {
    for (const n of [0, 1, 2, 9, 10, 11, 19, 20, 99, 100, 101, 250, 999, 1000, 1001, 1234, 10_000, 65_536]) {
      const pattern = new RegExp(`^${indexBelow(n)}$`);
      const probes = [0, 1, 5, 9, 10, 11, 19, 20, 99, 100, 101, 249, 250, 999, 1000, 1001, 1233, 1234, 9999, 10_000];
      for (const i of [...probes, n - 2, n - 1, n, n + 1, n + 10]) {
        if (i < 0) continue;
        expect(pattern.test(String(i)), `${i} with n = ${n}`).toBe(i < n);
      }
      for (const text of ['', '-1', '00', '01', '007', '1.0', '1e0', ' 1', '+1']) {
        expect(pattern.test(text), `'${text}' with n = ${n}`).toBe(false);
      }
    }
  });
});

describe('EngineSpanDecoder.pack', () => {
  const outcome = (f: () => StoredSpan[]): { spans: StoredSpan[] } | { error: string } => {
    try {
      return { spans: f() };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  /** What a store holding the packed batch gives back, oldest first. */
  const unpacked = (text: string): StoredSpan[] => {
    const store = new SpanStore(10_000);
    store.addPacked(new EngineSpanDecoder().pack(text));
    return [...store.newest()].reverse();
  };

  /** Mostly one of `valid`, now and then one of `invalid` (some of them accepted by decode all the same). */
  const field = (valid: string[], invalid: string[]): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...valid) },
      { weight: 1, arbitrary: fc.constantFrom(...invalid) },
    );
  const anyIndex = field(['0', '6'], ['7', '01', '-1', '1.0', '', 'x', '1e0', '-0', '00000000000000000001']);
  const optIndex = field(['-', '0', '6'], ['7', '', 'x', '-1', '--']);
  const micros = field(['1700000000000000', '0'], ['01', '17.5', '1e3', '9007199254740993', '-1', '', '+1']);
  /** A line of 13 to 15 fields, each mostly valid (values either side of what each field accepts). */
  const anyLine: fc.Arbitrary<string> = fc
    .tuple(
      field([TRACES[0]!], ['0AF7651916CD43DD8448EB211C80319C', 'abc', '']),
      field(['b7ad6b7169203331'], ['b7a', 'B7AD6B7169203331']),
      field(['-', 'b7ad6b7169203331'], ['--', 'xyz', '']),
      anyIndex,
      anyIndex,
      anyIndex,
      field(['inv-1', '#1', '-'], ['#9', '#', '#01', '', '#-0']),
      micros,
      micros,
      field(['0', '1', '2'], ['3', '', '11', '/']),
      optIndex,
      optIndex,
      optIndex,
      optIndex,
      fc.constantFrom(0, 0, 0, 0, 0, 1, 2),
    )
    .map((f) => {
      const fields = f.slice(0, 14) as string[];
      const shape = f[14];
      return (shape === 1 ? fields.slice(0, 13) : shape === 2 ? [...fields, 'extra'] : fields).join(' ');
    });

  it('refuses what decode refuses, with the same message, and keeps what it keeps as decode makes it', () => {
    const alphabet = fc.constantFrom(
      ' ',
      '\n',
      '-',
      '#',
      '0',
      '1',
      '6',
      '9',
      'a',
      'f',
      'g',
      'A',
      'e',
      '.',
      '+',
      'x',
      '',
    );
    const text = fc
      .tuple(
        fc.array(
          fc.oneof(
            line.map((l) => batch([l]).slice(HEAD.length)),
            anyLine.map((l) => `\n${l}`),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), alphabet), { maxLength: 3 }),
      )
      .map(([lines, edits]) => {
        let text = `${HEAD}${lines.join('')}`;
        for (const [at, cut, insert] of edits) {
          const p = HEAD.length + (at % (text.length - HEAD.length + 1));
          text = text.slice(0, p) + insert + text.slice(p + cut);
        }
        return text;
      });
    fc.assert(
      fc.property(text, (text) => {
        expect(outcome(() => unpacked(text))).toEqual(outcome(() => new EngineSpanDecoder().decode(text)));
      }),
      { numRuns: 4000 },
    );
  });

  it('refuses a malformed batch naming the line and field', () => {
    const ok = `${TRACES[0]} b7ad6b7169203331 - 0 1 1 id-1 1700000000000000 1700000000000250 1 - - - -`;
    const cases: [string, string][] = [
      ['not json', 'head: expected a JSON object'],
      [`${HEAD}\n${ok.replace('0af7', 'XXXX')}`, 'line 1 traceId: expected 32 lowercase hex digits'],
      [
        `${HEAD}\n${ok}\n${ok.replace(' 0 1 1 ', ' 0 1 9 ')}`,
        'line 2 resourceService: expected an index into strings (0-6)',
      ],
      [`${HEAD}\n${ok.replace(' 1 - - - -', ' 3 - - - -')}`, 'line 1 status: expected 0, 1 or 2'],
      [`${HEAD}\n${ok.replace('1700000000000250', '01')}`, 'line 1 end: expected whole microseconds'],
      [`${HEAD}\n${ok.replace('- - - -', '- 1 2 99')}`, 'line 1 exceptionStack: expected an index into strings (0-6)'],
      [`${HEAD}\n${ok} extra`, 'line 1: expected 14 space-separated fields'],
      [`${HEAD}\n`, 'line 1: expected 14 space-separated fields'],
    ];
    for (const [text, message] of cases) expect(() => new EngineSpanDecoder().pack(text), text).toThrow(message);
    // what the engine never writes but decode accepts is kept too
    const odd = ok.replace(' 0 1 1 ', ' 0 01 1 ').replace('1700000000000250', '17000000000003e2');
    expect(unpacked(`${HEAD}\n${odd}`)).toEqual(new EngineSpanDecoder().decode(`${HEAD}\n${odd}`));
  });
});

describe('Collector and engine span batches', () => {
  const config = (exporter: 'memory' | 'otlp' | 'both') =>
    observabilityConfigSchema.parse({
      exporter,
      logs_exporter: 'both', // logs go out over OTLP: spans still need not be decoded at ingest
      endpoint: 'http://127.0.0.1:9',
      export_timeout_ms: 200,
    });
  const text = batch([lineOf(0, '1'.repeat(16)), lineOf(1, '2'.repeat(16))]);
  const closing: Collector[] = [];
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((c) => c.close()));
  });

  it('keeps a batch packed when nothing needs its spans, and decodes it for trace triggers', () => {
    const decode = vi.spyOn(EngineSpanDecoder.prototype, 'decode');
    const pack = vi.spyOn(EngineSpanDecoder.prototype, 'pack');
    try {
      const collector = new Collector(config('memory'), pino({ level: 'silent' }));
      closing.push(collector);
      collector.ingest('SVCS', text);
      expect([decode.mock.calls.length, pack.mock.calls.length]).toEqual([0, 1]);
      expect(collector.spans.size).toBe(2);
      expect(collector.spans.trace(TRACES[1]!).map((s) => s.span_id)).toEqual(['2'.repeat(16)]);

      let registerTrigger: ((binding: TriggerBinding) => void) | undefined;
      const client = {
        registerTriggerType: (_type: unknown, handlers: { registerTrigger: (b: TriggerBinding) => void }) => {
          registerTrigger = handlers.registerTrigger;
        },
      } as unknown as SvcClient;
      const triggers = new TraceTriggers(client, pino({ level: 'silent' }));
      collector.traceTriggers = triggers;
      triggers.register();
      collector.ingest('SVCS', text);
      expect(decode.mock.calls.length).toBe(0); // no binding yet
      registerTrigger!({ id: 't1', trigger_type: 'trace', function_id: 'f::g', config: {} } as TriggerBinding);
      collector.ingest('SVCS', text);
      expect([decode.mock.calls.length, pack.mock.calls.length]).toEqual([1, 2]);
      expect(collector.spans.size).toBe(6);
      expect(collector.spans.traceCount).toBe(2);
      triggers.close();
    } finally {
      decode.mockRestore();
      pack.mockRestore();
    }
  });

  it('still drops a malformed batch and counts it', () => {
    const collector = new Collector(config('memory'), pino({ level: 'silent' }));
    closing.push(collector);
    collector.ingest('SVCS', text.replace(' 1 1 inv-1', ' 1 9 inv-1'));
    expect(collector.dropped).toBe(1);
    expect(collector.spans.size).toBe(0);
  });

  it('decodes a batch whose spans go out over OTLP', async () => {
    const decode = vi.spyOn(EngineSpanDecoder.prototype, 'decode');
    const collector = new Collector(config('otlp'), pino({ level: 'silent' }));
    try {
      collector.ingest('SVCS', text);
      expect(decode.mock.calls.length).toBe(1);
      expect(collector.spans.size).toBe(0);
    } finally {
      decode.mockRestore();
      await collector.close();
    }
  });

  it('keeps a batch packed while the OTLP receiver is down, counting its spans dropped for export', async () => {
    const decode = vi.spyOn(EngineSpanDecoder.prototype, 'decode');
    const collector = new Collector(config('both'), pino({ level: 'silent' }));
    const full = batch(
      Array.from({ length: 512 }, (_, i) => lineOf(i % TRACES.length, (i + 1).toString(16).padStart(16, '0'))),
    );
    const traces = (): ExportCounters => (collector.status() as { otlp: OtlpExportStatus }).otlp.traces!;
    try {
      // a full batch goes out at once; nothing listens on the endpoint, so each export fails
      for (let i = 1; i <= FAILURES_BEFORE_PAUSE; i++) {
        collector.ingest('SVCS', full);
        await vi.waitFor(() => expect(traces().failed).toBe(512 * i), { timeout: 5000 });
      }
      expect(decode.mock.calls.length).toBe(FAILURES_BEFORE_PAUSE);
      expect(traces().paused_until).not.toBeNull();
      collector.ingest('SVCS', full);
      expect(decode.mock.calls.length).toBe(FAILURES_BEFORE_PAUSE); // not decoded: it would only be dropped
      expect(traces()).toMatchObject({ failed: 512 * FAILURES_BEFORE_PAUSE, dropped: 512 });
      expect(collector.spans.size).toBe(512 * (FAILURES_BEFORE_PAUSE + 1)); // memory keeps every span
    } finally {
      decode.mockRestore();
      await collector.close();
    }
  });

  it('engine spans never count as HTTP requests (the collector does not offer them)', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const counter = new HttpRequestCounter();
        for (const s of new EngineSpanDecoder().decode(batch(lines))) expect(counter.count(s)).toBeUndefined();
      }),
    );
  });
});
