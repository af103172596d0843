/** The trace pages' span model: the shapes `engine::traces::*` may answer with, normalised and ordered. */
import { describe, expect, it } from 'vitest';
import { attributesOf, normaliseSpan, spansFrom, summariseTraces } from '../web/src/traces/model.js';

const NS = 1_700_000_000_000 * 1e6;
const span = (id: string, parent: string | undefined, startMs: number, endMs: number, extra: object = {}) => ({
  trace_id: 't1',
  span_id: id,
  ...(parent ? { parent_span_id: parent } : {}),
  name: `op-${id}`,
  service_name: id === 'c' ? 'svc-state' : 'api',
  start_time_unix_nano: String(NS + startMs * 1e6),
  end_time_unix_nano: NS + endMs * 1e6,
  status: 'ok',
  ...extra,
});

describe('trace model', () => {
  it('normalises nanosecond times (numbers or strings), status and attribute pairs', () => {
    const s = normaliseSpan(
      span('a', undefined, 0, 12, { status: { code: 'Error', message: 'bad' }, attributes: [['k', 1]] }),
    );
    expect(s.duration).toBeCloseTo(12);
    expect(s.status).toBe('error');
    expect(s.statusMessage).toBe('bad');
    expect(s.attributes).toEqual({ k: 1 });
    expect(attributesOf([{ key: 'x', value: { stringValue: 'y' } }])).toEqual({ x: 'y' });
  });

  it('flattens a tree answer parents first, with depths, and a list answer the same way', () => {
    const tree = {
      roots: [
        { ...span('a', undefined, 0, 10), children: [{ ...span('c', 'a', 5, 9), children: [] }, span('b', 'a', 1, 4)] },
      ],
    };
    const fromTree = spansFrom(tree);
    expect(fromTree.map((s) => [s.spanId, s.depth])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 1],
    ]);
    const fromList = spansFrom({ spans: [span('c', 'a', 5, 9), span('b', 'a', 1, 4), span('a', undefined, 0, 10)] });
    expect(fromList.map((s) => s.spanId)).toEqual(['a', 'b', 'c']);
  });

  it('reads spans grouped by trace ({traces: [{trace_id, spans}]})', () => {
    const spans = spansFrom({
      traces: [{ trace_id: 't1', spans: [span('b', 'a', 1, 4), span('a', undefined, 0, 10)] }],
    });
    expect(spans.map((s) => s.spanId)).toEqual(['a', 'b']);
  });

  it('a span whose parent is not stored becomes a root; an all-zero parent id means none', () => {
    const spans = spansFrom({ spans: [span('x', 'missing', 0, 1), span('y', '0000000000000000', 2, 3)] });
    expect(spans.map((s) => s.depth)).toEqual([0, 0]);
  });

  it('shows spans whose parents form a loop once each, the loop from its earliest span', () => {
    const spans = spansFrom({
      spans: [
        span('s', 's', 0, 1),
        span('q', 'p', 3, 4),
        span('p', 'q', 2, 5),
        span('r', 'p', 6, 7),
        span('a', undefined, 8, 9),
      ],
    });
    expect(spans.map((s) => [s.spanId, s.depth])).toEqual([
      ['a', 0],
      ['s', 0],
      ['p', 0],
      ['q', 1],
      ['r', 1],
    ]);
  });

  it('orders a deep chain and a wide trace of thousands of spans', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => span(`c${i}`, i === 0 ? undefined : `c${i - 1}`, i, i + 1));
    const ordered = spansFrom({ spans: chain.reverse() });
    expect(ordered).toHaveLength(20_000);
    expect(ordered.at(-1)).toMatchObject({ spanId: 'c19999', depth: 19_999 });
    const wide = spansFrom({
      spans: Array.from({ length: 20_000 }, (_, i) => span(`w${i}`, i === 0 ? undefined : 'w0', i, i + 1)),
    });
    expect(wide.map((s) => s.depth).filter((d) => d === 1)).toHaveLength(19_999);
  });

  it('summarises traces: root, span count, services, duration, errors', () => {
    const [t] = summariseTraces(
      spansFrom({ spans: [span('a', undefined, 0, 10), span('c', 'a', 5, 9, { status: 'error' })] }),
    );
    expect(t).toMatchObject({ traceId: 't1', spans: 2, services: ['api', 'svc-state'], errors: 1 });
    expect(t?.root.spanId).toBe('a');
    expect(t?.duration).toBeCloseTo(10);
  });
});
