/**
 * `engine::metrics::list {name?, start_time?, end_time?, limit?}` (points grouped per metric, newest last) and
 * `engine::rollups::list {metric?}` (each metric's value over the last minute, 5 minutes and hour: a counter's
 * increase, a gauge's latest value, a histogram's average).
 */
import { globMatcher } from '@svc/sdk';
import type { MetricPoint } from '../otlp/records.js';
import type { MetricStore } from '../stores/metric-store.js';
import { inputOf, num, str } from './input.js';

export const ROLLUP_WINDOWS_SECONDS = [60, 300, 3600];

export function listMetrics(store: MetricStore, payload: unknown): unknown {
  const fn = 'engine::metrics::list';
  const input = inputOf(fn, payload);
  const nameText = str(fn, input, 'name') ?? str(fn, input, 'metric');
  const name = nameText === undefined ? undefined : globMatcher(nameText);
  const from = num(fn, input, 'start_time');
  const to = num(fn, input, 'end_time');
  const limit = num(fn, input, 'limit') ?? 1000;
  const groups = new Map<
    string,
    { name: string; type: string; unit: string; description: string; points: unknown[] }
  >();
  for (const p of store.values()) {
    if (name !== undefined && !name(p.name)) continue;
    if ((from !== undefined && p.time_ms < from) || (to !== undefined && p.time_ms > to)) continue;
    const g = groups.get(p.name) ?? {
      name: p.name,
      type: p.type,
      unit: p.unit,
      description: p.description,
      points: [],
    };
    g.points.push(pointView(p));
    groups.set(p.name, g);
  }
  const metrics = [...groups.values()].map((g) => ({ ...g, points: g.points.slice(-limit) }));
  return { metrics: metrics.sort((a, b) => a.name.localeCompare(b.name)) };
}

function pointView(p: MetricPoint): unknown {
  const view: Record<string, unknown> = {
    time_ms: p.time_ms,
    service: p.service,
    attributes: p.attributes,
    value: p.value,
  };
  if (p.type === 'histogram') {
    view.sum = p.sum;
    view.bucket_counts = p.bucket_counts;
    view.explicit_bounds = p.explicit_bounds;
  }
  return view;
}

export function listRollups(store: MetricStore, payload: unknown, nowMs = Date.now()): unknown {
  const fn = 'engine::rollups::list';
  const only = str(fn, inputOf(fn, payload), 'metric');
  const names = only === undefined ? store.names() : [only];
  const rollups = names.flatMap((metric) =>
    ROLLUP_WINDOWS_SECONDS.map((window_seconds) => {
      const w = store.windowValue(metric, window_seconds * 1000, nowMs);
      return { metric, window_seconds, value: w.value ?? null, points: w.points };
    }),
  );
  return { rollups };
}
