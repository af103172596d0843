/**
 * The functions svc-otel provides (docs/observability.md, "Query functions"): the query functions, `engine::log::*`,
 * `engine::sampling::rules`, `engine::alerts::*`, `engine::rollups::list`, and the internal `otel::ingest` and
 * `otel::status` the engine uses. One table of small named handlers.
 */
import type { ObservabilityConfig } from './config.js';
import { ENGINE_SPANS_PREFIX, TELEMETRY_PREFIXES, type IngestPrefix, type SvcClient } from '@svc/sdk';
import type { Alerts } from './alerts.js';
import type { Collector } from './collector.js';
import { engineLog, LOG_LEVELS } from './engine-log.js';
import { inputOf, invalid, str } from './queries/input.js';
import { clearLogs, listLogs } from './queries/logs.js';
import { listMetrics, listRollups } from './queries/metrics.js';
import { clearTraces, groupTraces, listTraces, traceTree } from './queries/traces.js';

export interface OtelServices {
  collector: Collector;
  alerts: Alerts;
  config: ObservabilityConfig;
}

type Handler = (s: OtelServices, payload: unknown) => unknown;

const FUNCTIONS: Record<string, { handler: Handler; description: string; internal?: boolean }> = {
  'otel::ingest': { handler: ingest, description: 'Take one telemetry batch', internal: true },
  'otel::status': { handler: (s) => s.collector.status(), description: 'Store sizes and counters', internal: true },
  'engine::traces::list': { handler: (s, p) => listTraces(s.collector.spans, p), description: 'List spans' },
  'engine::traces::tree': { handler: (s, p) => traceTree(s.collector.spans, p), description: 'One trace as a tree' },
  'engine::traces::group_by': { handler: (s, p) => groupTraces(s.collector.spans, p), description: 'Group spans' },
  'engine::traces::clear': { handler: (s) => clearTraces(s.collector.spans), description: 'Delete stored spans' },
  'engine::logs::list': { handler: (s, p) => listLogs(s.collector.logs, p), description: 'List log records' },
  'engine::logs::clear': { handler: (s) => clearLogs(s.collector.logs), description: 'Delete stored log records' },
  'engine::metrics::list': { handler: (s, p) => listMetrics(s.collector.metrics, p), description: 'Metric points' },
  'engine::rollups::list': { handler: (s, p) => listRollups(s.collector.metrics, p), description: 'Metric rollups' },
  'engine::sampling::rules': { handler: (s) => samplingRules(s.config), description: 'The sampling configuration' },
  'engine::alerts::list': { handler: (s) => s.alerts.list(), description: 'Alert rules and their state' },
  'engine::alerts::evaluate': { handler: (s) => s.alerts.evaluate(), description: 'Evaluate alert rules now' },
};

const INGEST_PREFIXES: readonly string[] = [...TELEMETRY_PREFIXES, ENGINE_SPANS_PREFIX];

function ingest(s: OtelServices, payload: unknown): void {
  const fn = 'otel::ingest';
  const input = inputOf(fn, payload);
  const prefix = str(fn, input, 'prefix');
  const body = str(fn, input, 'body');
  if (prefix === undefined || !INGEST_PREFIXES.includes(prefix) || body === undefined) {
    throw invalid(fn, `expected {prefix: ${INGEST_PREFIXES.join('|')}, body: string}`);
  }
  s.collector.ingest(prefix as IngestPrefix, body);
}

function samplingRules(config: ObservabilityConfig): unknown {
  const s = config.sampling;
  return {
    sampling_ratio: config.sampling_ratio,
    default: s?.default ?? config.sampling_ratio,
    parent_based: s?.parent_based ?? true,
    rules: s?.rules ?? [],
    rate_limit: s === undefined ? null : s.rate_limit,
  };
}

export function registerOtelFunctions(client: SvcClient, services: OtelServices): void {
  for (const [id, { handler, description, internal }] of Object.entries(FUNCTIONS)) {
    client.registerFunction(id, (payload: unknown) => handler(services, payload), {
      description,
      ...(internal ? { metadata: { internal: true } } : {}),
    });
  }
  for (const level of LOG_LEVELS) {
    client.registerFunction(
      `engine::log::${level}`,
      (payload: unknown) => engineLog(services.collector, level, payload),
      {
        description: `Store a log record at level ${level}`,
      },
    );
  }
}
