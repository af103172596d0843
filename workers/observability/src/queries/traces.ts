/**
 * `engine::traces::{list, tree, group_by, clear}` over the span store. Filters (all optional, combined with AND):
 * `trace_id`, `service`, `name` (`*`/`?` patterns allowed), `status` (`ok`/`error`/`unset`), `min_duration_ms`,
 * `max_duration_ms`, `start_time`/`end_time` (ms since the epoch, on the span's start), `attributes` ({key: value}).
 */
import { globMatcher, textOf, type GlobMatcher } from '@svc/sdk';
import type { StoredSpan } from '../otlp/records.js';
import type { SpanStore } from '../stores/span-store.js';
import { attrFilter, inputOf, invalid, num, page, str, type Input } from './input.js';

type SpanFilter = (s: StoredSpan) => boolean;

function pattern(value: string | undefined): GlobMatcher | undefined {
  return value === undefined ? undefined : globMatcher(value);
}

export function spanFilter(fn: string, input: Input): SpanFilter {
  const traceId = str(fn, input, 'trace_id')?.toLowerCase();
  const service = pattern(str(fn, input, 'service') ?? str(fn, input, 'service_name'));
  const name = pattern(str(fn, input, 'name') ?? str(fn, input, 'span_name'));
  const status = str(fn, input, 'status')?.toLowerCase();
  if (status !== undefined && !['ok', 'error', 'unset'].includes(status)) {
    throw invalid(fn, `status must be one of ok, error, unset (got ${JSON.stringify(status)})`);
  }
  const minMs = num(fn, input, 'min_duration_ms');
  const maxMs = num(fn, input, 'max_duration_ms');
  const from = num(fn, input, 'start_time');
  const to = num(fn, input, 'end_time');
  const attrs = attrFilter(fn, input);
  return (s) =>
    (traceId === undefined || s.trace_id === traceId) &&
    (service === undefined || service(s.service)) &&
    (name === undefined || name(s.name)) &&
    (status === undefined || s.status === status) &&
    (minMs === undefined || s.duration_ms >= minMs) &&
    (maxMs === undefined || s.duration_ms <= maxMs) &&
    (from === undefined || s.start_ms >= from) &&
    (to === undefined || s.start_ms <= to) &&
    attrs.every(([k, v]) => k in s.attributes && textOf(s.attributes[k]) === v);
}

export function listTraces(store: SpanStore, payload: unknown): unknown {
  const fn = 'engine::traces::list';
  const input = inputOf(fn, payload);
  const filter = spanFilter(fn, input);
  const { offset, limit } = page(fn, input);
  const source = input.trace_id !== undefined ? store.trace(textOf(input.trace_id)) : store.newest();
  const matched = [...source].filter(filter);
  if (input.trace_id !== undefined) matched.sort((a, b) => b.start_ms - a.start_ms);
  return { spans: matched.slice(offset, offset + limit), total: matched.length };
}

export interface SpanNode extends StoredSpan {
  children: SpanNode[];
}

/**
 * Spans whose parents form a loop (a span its own parent, or two spans each the other's: only a broken or hostile
 * exporter sends them) are reachable from no root. Each loop is cut at its first span in store order, which becomes
 * a root, so the tree still shows every span of the trace once.
 */
function breakCycles(nodes: Map<string, SpanNode>, roots: SpanNode[]): void {
  const reached = new Set<SpanNode>();
  const reach = (from: SpanNode): void => {
    const stack = [from];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      reached.add(node);
      stack.push(...node.children);
    }
  };
  roots.forEach(reach);
  if (reached.size === nodes.size) return;
  for (const node of nodes.values()) {
    if (reached.has(node)) continue;
    const parent = nodes.get(node.parent_span_id as string) as SpanNode;
    parent.children.splice(parent.children.indexOf(node), 1);
    roots.push(node);
    reach(node);
  }
}

/**
 * The deepest a branch of the tree nests (spans below the root): a function that calls itself thousands of times
 * deep makes a trace whose tree, nested as it is, no JSON writer can write (it overflowed the stack from about
 * 3,000 levels, and the answer was a serialisation error). Below this depth a branch continues as a root of its own.
 */
export const MAX_TREE_DEPTH = 512;

/** Each span at `MAX_TREE_DEPTH` hands its children on as roots (which the walk then reaches, and cuts again). */
function capDepth(roots: SpanNode[]): void {
  const stack: [SpanNode, number][] = roots.map((r) => [r, 1]);
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    if (depth < MAX_TREE_DEPTH) {
      for (const child of node.children) stack.push([child, depth + 1]);
    } else if (node.children.length > 0) {
      for (const child of node.children) {
        roots.push(child);
        stack.push([child, 1]);
      }
      node.children = [];
    }
  }
}

/** The spans of one trace as a tree: parents before children, siblings by start time. */
export function traceTree(store: SpanStore, payload: unknown): unknown {
  const fn = 'engine::traces::tree';
  const traceId = str(fn, inputOf(fn, payload), 'trace_id');
  if (traceId === undefined) throw invalid(fn, 'trace_id is required');
  const spans = store.trace(traceId);
  const nodes = new Map<string, SpanNode>(spans.map((s) => [s.span_id, { ...s, children: [] }]));
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent_span_id === undefined ? undefined : nodes.get(node.parent_span_id);
    if (parent === undefined) roots.push(node);
    else parent.children.push(node);
  }
  breakCycles(nodes, roots);
  capDepth(roots);
  const byStart = (a: SpanNode, b: SpanNode): number =>
    a.start_time_unix_nano === b.start_time_unix_nano
      ? 0
      : BigInt(a.start_time_unix_nano) < BigInt(b.start_time_unix_nano)
        ? -1
        : 1;
  for (const node of nodes.values()) node.children.sort(byStart);
  roots.sort(byStart);
  return { trace_id: traceId.toLowerCase(), span_count: spans.length, roots };
}

const GROUP_KEYS: Record<string, (s: StoredSpan) => string> = {
  service: (s) => s.service,
  name: (s) => s.name,
  status: (s) => s.status,
  trace_id: (s) => s.trace_id,
  kind: (s) => s.kind,
};

/** Counts, errors and durations per `by` (`service`, `name`, `status`, `trace_id`, `kind`), after the filters. */
export function groupTraces(store: SpanStore, payload: unknown): unknown {
  const fn = 'engine::traces::group_by';
  const input = inputOf(fn, payload);
  const by = str(fn, input, 'by') ?? str(fn, input, 'group_by') ?? 'service';
  const key = GROUP_KEYS[by];
  if (key === undefined) throw invalid(fn, `by must be one of ${Object.keys(GROUP_KEYS).join(', ')}`);
  const filter = spanFilter(fn, input);
  const groups = new Map<string, { key: string; count: number; errors: number; total_ms: number; max_ms: number }>();
  for (const s of store.newest()) {
    if (!filter(s)) continue;
    const k = key(s);
    const g = groups.get(k) ?? { key: k, count: 0, errors: 0, total_ms: 0, max_ms: 0 };
    g.count++;
    if (s.status === 'error') g.errors++;
    g.total_ms += s.duration_ms;
    g.max_ms = Math.max(g.max_ms, s.duration_ms);
    groups.set(k, g);
  }
  const out = [...groups.values()].map((g) => ({
    key: g.key,
    count: g.count,
    errors: g.errors,
    avg_duration_ms: g.total_ms / g.count,
    max_duration_ms: g.max_ms,
  }));
  return { by, groups: out.sort((a, b) => b.count - a.count) };
}

export function clearTraces(store: SpanStore): unknown {
  return { cleared: store.clear() };
}
