/**
 * `svc.http.requests` (a counter per route, method and status), derived from the request spans svc-http records
 * (`http.route`, `http.request.method`, `http.response.status_code`): each span counts once, so no second
 * pipeline is needed for HTTP metrics.
 */
import type { MetricPoint } from './otlp/records.js';
import type { StoredSpan } from './otlp/records.js';
import { textOf } from '@svc/sdk';

export const HTTP_REQUESTS_METRIC = 'svc.http.requests';

export class HttpRequestCounter {
  private readonly counts = new Map<string, number>();

  /** The updated counter point for a request span, or undefined for any other span. */
  count(span: StoredSpan): MetricPoint | undefined {
    const route = span.attributes['http.route'];
    const status = span.attributes['http.response.status_code'];
    if (span.kind !== 'server' || typeof route !== 'string' || status === undefined) return undefined;
    const method = textOf(span.attributes['http.request.method'] ?? '');
    const key = `${span.service}\u0000${method}\u0000${route}\u0000${textOf(status)}`;
    const value = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, value);
    return {
      name: HTTP_REQUESTS_METRIC,
      type: 'sum',
      monotonic: true,
      description: 'HTTP requests served, per route, method and status',
      unit: '{request}',
      service: span.service,
      time_ms: Date.now(),
      attributes: { route, method, status: textOf(status) },
      value,
    };
  }
}
