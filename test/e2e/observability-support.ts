/** Shared set-up of the observability end-to-end tests: an engine whose config has the OtelModule (svc-otel). */
import pino from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, type EngineProcess } from '../harness.js';

export const OTEL = 'modules::observability::OtelModule';

export function otelEntry(config: Record<string, unknown> = {}): object {
  return {
    class: OTEL,
    config: { enabled: true, exporter: 'memory', logs_exporter: 'memory', metrics_exporter: 'memory', ...config },
  };
}

/** An engine with the OtelModule (plus `extra` entries); resolves once svc-otel serves queries. */
export async function startObservedEngine(
  otel: Record<string, unknown> = {},
  extra: object[] = [],
): Promise<EngineProcess> {
  const engine = await startEngine({ modules: [otelEntry(otel), ...extra] });
  const probe = await client(engine.url, 'obs-probe');
  try {
    await waitFor(
      () => probe.trigger({ function_id: 'engine::traces::list', payload: { limit: 1 } }),
      20_000,
      'svc-otel',
    );
  } finally {
    await probe.shutdown();
  }
  return engine;
}

/** Our SDK's worker, in this process, with telemetry on (handler logs go to the log store). */
export async function client(url: string, name: string, telemetry = false): Promise<SvcClient> {
  const c = registerWorker(url, { workerName: name, logger: pino({ level: 'silent' }), telemetry });
  await c.ready();
  return c;
}

export async function httpModule(): Promise<{ entry: object; base: string }> {
  const port = await freePort();
  return {
    entry: { class: 'modules::api::RestApiModule', config: { host: '127.0.0.1', port } },
    base: `http://127.0.0.1:${port}`,
  };
}

export interface SpanView {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  name: string;
  service: string;
  kind: string;
  status: string;
  start_ms: number;
  duration_ms: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  errors: { message: string; stacktrace?: string }[];
  resource: Record<string, unknown>;
}

export interface SpanNode extends SpanView {
  children: SpanNode[];
}

export async function spans(c: SvcClient, filter: Record<string, unknown> = {}): Promise<SpanView[]> {
  const out = await c.trigger<{ spans: SpanView[] }>({
    function_id: 'engine::traces::list',
    payload: { limit: 10_000, ...filter },
  });
  return out.spans;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` until it yields a value (not undefined, not false); rejects after `timeoutMs`. */
export async function eventually<T>(
  cond: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const value = await waitFor(cond, timeoutMs, what);
  return value as T;
}
