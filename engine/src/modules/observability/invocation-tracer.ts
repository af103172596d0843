/**
 * The engine's lifecycle observer of invocations (docs/hooks.md): one span per invocation (named after the
 * function, recorded in the name of the worker that runs it, kind SERVER, parented by the caller's traceparent)
 * whose context is what the executor receives (the observer returns it from `invocationStarted`), so a nested
 * call made from the handler hangs under it; and the invocation metrics. The sampler is the one the SDK and the
 * workers share (rules, ratio by trace id, parent-based, rate limit); a sampled span is a plain `SpanRecord`
 * until its line is written into its batch (span-lines.ts, span-batch.ts), which is all this hot path needs of a span.
 */
import { ROOT_CONTEXT, SpanKind, trace, type Attributes, type Context } from '@opentelemetry/api';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base';
import { InFlightMap, parseTraceparent, SERVICE_ATTRIBUTE } from '@svc/sdk';
import type { InvocationSettled, InvocationStarted, LifecycleObserver } from '../module.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { SpanBatch } from './span-batch.js';
import { IdPool, SpanRecord } from './span-record.js';
import { WallClock } from './wall-clock.js';

/** Functions whose calls get no span: the telemetry path itself and the engine's own introspection. */
export function isTracedFunction(functionId: string): boolean {
  if (functionId.startsWith('otel::')) return false;
  return !functionId.startsWith('engine::') || functionId === 'engine::queue::enqueue';
}

/** Settle outcomes that are not the executor's error: the message recorded on the span. */
const ENDED_BY: Record<string, string> = {
  cancelled: 'cancelled by the caller',
  caller_disconnected: 'the caller disconnected',
};
const NO_LINKS: never[] = [];
/** At most this many services get a resource of their own; further ones are recorded under the default one. */
const MAX_SERVICES = 256;

export interface InvocationTracerOptions {
  sampler: Sampler;
  /**
   * Set when the sampling settings keep every trace (ratio 1, no rules, no rate limit): the decision is then
   * made here without the sampler (and the context objects it takes), following a parent's flag when
   * `parentBased`. Undefined: every decision is the sampler's.
   */
  keepAll?: { parentBased: boolean };
  spans: SpanBatch;
  /** The engine's service name (`service_name`): the resource of services past the bound. */
  defaultService: string;
  /**
   * The worker's reported name now, for a span started before it was known (a worker's first calls can be routed
   * before its `engine::workers::register` is handled, while its name is still its id).
   */
  workerName?: (workerId: string) => string | undefined;
}

export class InvocationTracer implements LifecycleObserver {
  private readonly traced = new Map<string, boolean>();
  /** The span of each sampled invocation in flight, by invocation id (started and ended by the hooks below). */
  private readonly spans = new InFlightMap<string, SpanRecord>();
  /** Per service: the attributes the sampler sees (its rules match the span's service) and its resource. */
  private readonly services = new Map<string, { attributes: Attributes; resource: string }>();
  private readonly ids = new IdPool();
  private readonly clock = new WallClock();

  constructor(
    private readonly tracing: InvocationTracerOptions | undefined,
    private readonly metrics: EngineMetrics | undefined,
  ) {}

  invocationStarted(event: InvocationStarted): string | undefined {
    const tracing = this.tracing;
    if (tracing === undefined || !this.isTraced(event.functionId)) return undefined;
    const startMs = this.clock.now();
    const service = this.service(event.executorWorkerName);
    const parent = event.traceparent === undefined ? undefined : parseTraceparent(event.traceparent);
    const ids = this.ids;
    ids.next(parent?.traceId);
    const keepAll = tracing.keepAll;
    const sampled =
      keepAll === undefined
        ? this.sample(tracing.sampler, parent, ids.currentTraceId(), event.functionId, service.attributes)
        : parent === undefined || !keepAll.parentBased || (parseInt(parent.flags, 16) & 1) === 1;
    const traceparent = ids.traceparent(sampled);
    if (!sampled) return traceparent;
    const span = new SpanRecord(
      traceparent,
      parent?.spanId,
      event.functionId,
      event.executorWorkerName,
      service.resource,
      event.invocationId,
      startMs,
    );
    this.spans.set(event.invocationId, span);
    return traceparent;
  }

  invocationSettled(event: InvocationSettled): void {
    // calls answered before routing (middleware, actions, no provider) have no span and are not invocations
    if (event.invocationId === undefined) return;
    const failed = event.outcome !== 'ok';
    const span = this.spans.get(event.invocationId);
    // a span is only ever started for a traced function
    if (this.metrics !== undefined && (span !== undefined || this.isTraced(event.functionId))) {
      this.metrics.settled(event.functionId, event.durationMs, failed);
    }
    if (span === undefined) return;
    this.spans.delete(event.invocationId);
    if (span.service === event.executorWorkerId) this.renameService(span, event.executorWorkerId);
    // the core's duration is measured from just before this span started, on the same clock
    span.endMs = event.durationMs > 0 ? span.startMs + event.durationMs : this.clock.now();
    if (event.error !== undefined) {
      span.error(event.error.message, event.error.stacktrace, event.error.code);
    } else if (failed) {
      span.error(ENDED_BY[event.outcome] ?? event.outcome, undefined, event.outcome);
    } else {
      span.ok();
    }
    this.tracing!.spans.add(span);
  }

  /** Ends the spans still open (the module is closing) and ships every pending span. */
  close(): void {
    const now = this.clock.now();
    for (const span of this.spans.values()) {
      span.endMs = now;
      this.tracing?.spans.add(span);
    }
    this.spans.clear();
    this.tracing?.spans.close();
  }

  private sample(
    sampler: Sampler,
    parent: { traceId: string; spanId: string; flags: string } | undefined,
    traceId: string,
    name: string,
    attributes: Attributes,
  ): boolean {
    const context = parent === undefined ? ROOT_CONTEXT : remoteContext(parent.traceId, parent.spanId, parent.flags);
    const result = sampler.shouldSample(context, traceId, name, SpanKind.SERVER, attributes, NO_LINKS);
    return result.decision === SamplingDecision.RECORD_AND_SAMPLED;
  }

  private isTraced(functionId: string): boolean {
    let traced = this.traced.get(functionId);
    if (traced === undefined) {
      traced = isTracedFunction(functionId);
      if (this.traced.size < 10_000) this.traced.set(functionId, traced);
    }
    return traced;
  }

  private renameService(span: SpanRecord, workerId: string): void {
    const name = this.tracing!.workerName?.(workerId);
    if (name === undefined || name === workerId) return;
    span.service = name;
    span.resourceService = this.service(name).resource;
  }

  private service(name: string): { attributes: Attributes; resource: string } {
    let service = this.services.get(name);
    if (service === undefined) {
      const resource = this.services.size < MAX_SERVICES ? name : this.tracing!.defaultService;
      service = { attributes: { [SERVICE_ATTRIBUTE]: name }, resource };
      if (this.services.size < 10_000) this.services.set(name, service);
    }
    return service;
  }
}

function remoteContext(traceId: string, spanId: string, flags: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true });
}
