/**
 * `modules::observability::OtelModule`, engine side. Collection, storage, sampling of stored data, alerting and
 * the `engine::traces::*` / `engine::logs::*` query functions live in the svc-otel worker (workers/observability);
 * this module is what only the engine can do: one span and the metrics of every invocation (a lifecycle observer
 * of the hook interface, docs/hooks.md), the hand-off of workers' telemetry frames to svc-otel, `GET /metrics`, the observability
 * components of `engine::health::check`, and log records of worker arrivals and departures.
 */
import { createSampler, ENGINE_SPANS_PREFIX, setLogForwarder, Telemetry, type SvcClient } from '@svc/sdk';
import type { ObservabilityConfig } from '@svc/config';
import { sendJson } from '../../http-json.js';
import type { ComponentHealth, EngineModule, ModuleContext } from '../module.js';
import { EngineMetrics } from './engine-metrics.js';
import { INGEST_FUNCTION, TelemetryHandoff } from './handoff.js';
import { InvocationTracer } from './invocation-tracer.js';
import { SpanBatch } from './span-batch.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
import { resourceAttributes, samplingSettings } from './settings.js';

export const OBSERVABILITY_MODULE = 'modules::observability::OtelModule';
/** How often the engine's metrics are shipped to svc-otel (alerts and retention work on these points). */
export const METRICS_EXPORT_INTERVAL_MS = 1000;
const STATUS_FUNCTION = 'otel::status';

export function createObservabilityModule(config: ObservabilityConfig): EngineModule {
  return new ObservabilityModule(config);
}

class ObservabilityModule implements EngineModule {
  readonly name = OBSERVABILITY_MODULE;
  private ctx: ModuleContext | undefined;
  private client: SvcClient | undefined;
  private telemetry: Telemetry | undefined;
  private metrics: EngineMetrics | undefined;
  private handoff: TelemetryHandoff | undefined;
  private tracer: InvocationTracer | undefined;
  private readonly uninstall: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly config: ObservabilityConfig) {}

  async start(ctx: ModuleContext): Promise<void> {
    this.ctx = ctx;
    if (!this.config.enabled) return; // engine::health::check keeps reporting the components as disabled
    const client = await ctx.connect('svc-engine-otel');
    this.client = client;
    const handoff = new TelemetryHandoff(
      client,
      ctx.logger,
      () => ctx.engine.getFunction(INGEST_FUNCTION) !== undefined,
    );
    this.handoff = handoff;
    const send = handoff.local.bind(handoff);
    const resource = resourceAttributes(this.config);
    this.telemetry = new Telemetry({
      sink: send,
      serviceName: this.config.service_name,
      resource,
      sampling: samplingSettings(this.config),
      logBatchSize: this.config.logs_batch_size,
    });
    if (this.config.metrics_enabled) {
      const metrics = new EngineMetrics({
        resource: { ...resource, 'service.name': this.config.service_name },
        internals: ctx.engine,
        client,
        send,
        exportIntervalMs: METRICS_EXPORT_INTERVAL_MS,
      });
      this.metrics = metrics;
      ctx.engine.setHttpRoute('/metrics', (_req, res) => {
        metrics.prometheus().then(
          (text) => {
            res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
            res.end(text);
          },
          (err: unknown) => sendJson(res, 500, { error: String(err) }),
        );
      });
    }
    ctx.engine.setTelemetrySink((frame) => handoff.accept(frame));
    const spans = new SpanBatch({ send: (json) => handoff.localPayload(ENGINE_SPANS_PREFIX, json), resource });
    const sampling = samplingSettings(this.config);
    const keepsAll = sampling.defaultRatio >= 1 && sampling.rules.length === 0 && sampling.maxTracesPerSecond <= 0;
    const tracing = {
      sampler: createSampler(sampling),
      keepAll: keepsAll ? { parentBased: sampling.parentBased } : undefined,
      spans,
      defaultService: this.config.service_name,
      workerName: (workerId: string) => ctx.engine.workerName(workerId),
    };
    const tracer = new InvocationTracer(tracing, this.metrics);
    this.tracer = tracer;
    this.uninstall.push(ctx.hooks.observe(tracer), this.logWorkerEvents(ctx));
    const telemetry = this.telemetry;
    setLogForwarder((level, message, attributes) => {
      // a capability worker's lines relayed from its output are in the store already (it sends them itself)
      const process = attributes['process'];
      if (typeof process === 'string' && process.startsWith('svc-')) return;
      telemetry.log(level, message, attributes);
    });
    this.registerHealth(ctx);
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const engine = this.ctx?.engine;
    if (engine !== undefined && this.client !== undefined) {
      engine.setTelemetrySink(undefined);
      engine.setHttpRoute('/metrics', undefined);
      for (const name of ['otel', 'spans', 'logs', 'metrics']) engine.setHealthComponent(name, undefined);
    }
    for (const uninstall of this.uninstall.splice(0)) uninstall();
    this.tracer?.close();
    setLogForwarder(undefined);
    await this.telemetry?.shutdown().catch(() => undefined);
    await this.metrics?.close();
    await this.client?.shutdown();
  }

  private logWorkerEvents(ctx: ModuleContext): () => void {
    return ctx.hooks.observe({
      topology: (event) => {
        if (event.kind === 'functions') this.handoff?.functionsChanged();
        if (event.kind !== 'worker' || event.event === 'worker_metadata_updated') return;
        const worker = ctx.engine.getWorker(event.workerId);
        const what = event.event === 'worker_connected' ? 'worker connected' : 'worker disconnected';
        this.telemetry?.log('info', what, { worker_id: event.workerId, worker_name: worker?.name ?? event.workerId });
      },
    });
  }

  private registerHealth(ctx: ModuleContext): void {
    const engine = ctx.engine;
    engine.setHealthComponent('otel', async () => ({
      status: 'healthy',
      details: {
        exporter: this.config.exporter,
        endpoint: this.config.exporter === 'memory' ? undefined : this.config.endpoint,
        frames_forwarded: this.handoff?.forwarded ?? 0,
        frames_dropped: this.handoff?.droppedCount ?? 0,
        frames_waiting: this.handoff?.waitingCount ?? 0,
      },
    }));
    for (const part of ['spans', 'logs', 'metrics'] as const) {
      engine.setHealthComponent(part, () => this.storeHealth(part));
    }
  }

  /** What svc-otel reports about one of its stores; unhealthy when it is not connected. */
  private async storeHealth(part: 'spans' | 'logs' | 'metrics'): Promise<ComponentHealth> {
    if (part === 'metrics' && !this.config.metrics_enabled) return { status: 'disabled' };
    if (part === 'logs' && !this.config.logs_enabled) return { status: 'disabled' };
    const engine = this.ctx?.engine;
    if (engine?.getFunction(INGEST_FUNCTION) === undefined || this.client === undefined) {
      return { status: 'unhealthy', details: 'the svc-otel worker is not connected' };
    }
    const status = await this.client.trigger<Record<string, unknown>>({
      function_id: STATUS_FUNCTION,
      payload: {},
      timeoutMs: 1000,
    });
    return { status: 'healthy', details: status?.[part] };
  }
}
