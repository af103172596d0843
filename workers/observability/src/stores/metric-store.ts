/**
 * Metric points in memory: at most `metrics_max_count`, none older than `metrics_retention_seconds`. `windowValue`
 * is what alerts and rollups read: a counter's increase over the window, a gauge's latest value, a histogram's
 * average over the window (summed over every attribute set of the metric).
 */
import type { MetricPoint } from '../otlp/records.js';
import { BoundedLog } from './bounded-log.js';

export interface WindowValue {
  value: number | undefined;
  /** Points of the metric inside the window. */
  points: number;
}

export class MetricStore {
  private readonly log: BoundedLog<MetricPoint>;

  constructor(maxCount: number, retentionSeconds: number) {
    this.log = new BoundedLog(maxCount, (p) => p.time_ms, retentionSeconds * 1000);
  }

  get size(): number {
    return this.log.size;
  }

  get capacity(): number {
    return this.log.capacity;
  }

  add(point: MetricPoint): void {
    this.log.push(point);
  }

  sweep(nowMs: number): number {
    return this.log.sweep(nowMs);
  }

  values(): IterableIterator<MetricPoint> {
    return this.log.values();
  }

  names(): string[] {
    return [...new Set([...this.log.values()].map((p) => p.name))].sort();
  }

  windowValue(name: string, windowMs: number, nowMs: number): WindowValue {
    const from = nowMs - windowMs;
    const series = new Map<string, { before?: MetricPoint; first?: MetricPoint; last?: MetricPoint; n: number }>();
    let type: MetricPoint['type'] | undefined;
    for (const p of this.log.values()) {
      if (p.name !== name) continue;
      type = p.type;
      const key = `${p.service}|${JSON.stringify(p.attributes)}`;
      const s = series.get(key) ?? { n: 0 };
      if (p.time_ms < from) s.before = p;
      else {
        s.first ??= p;
        s.last = p;
        s.n++;
      }
      series.set(key, s);
    }
    const inWindow = [...series.values()].filter((s) => s.last !== undefined);
    const points = inWindow.reduce((n, s) => n + s.n, 0);
    if (type === undefined || inWindow.length === 0) return { value: undefined, points };
    if (type === 'gauge') return { value: inWindow.reduce((v, s) => v + (s.last?.value ?? 0), 0), points };
    if (type === 'histogram') {
      let count = 0;
      let sum = 0;
      for (const s of inWindow) {
        count += (s.last?.value ?? 0) - (s.before?.value ?? 0);
        sum += (s.last?.sum ?? 0) - (s.before?.sum ?? 0);
      }
      return { value: count > 0 ? sum / count : 0, points };
    }
    // cumulative sums: the increase since the last point before the window (0 for a series born inside it)
    return { value: inWindow.reduce((v, s) => v + (s.last?.value ?? 0) - (s.before?.value ?? 0), 0), points };
  }

  clear(): number {
    return this.log.clear();
  }
}
