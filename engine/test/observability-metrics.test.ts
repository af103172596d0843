/**
 * The engine's invocation duration histogram, kept as plain numbers per function, reports what the OpenTelemetry
 * SDK's histogram reports for the same durations: in the collected data, in the OTLP/JSON (`MTRC`) batch and in
 * `GET /metrics`; the counters beside it are unchanged.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { Resource } from '@opentelemetry/resources';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { EngineInternals } from '../src/modules/module.js';
import { EngineMetrics } from '../src/modules/observability/engine-metrics.js';
import { toPrometheus } from '../src/modules/observability/prometheus.js';

class PullReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];
const open: EngineMetrics[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

function engineMetrics(): EngineMetrics {
  const internals = { listWorkers: () => [], getFunction: () => undefined } as unknown as EngineInternals;
  const m = new EngineMetrics({
    resource: { 'service.name': 'svc-engine' },
    internals,
    client: {} as never,
    send: () => true,
    exportIntervalMs: 3_600_000,
  });
  open.push(m);
  return m;
}

/** The same durations through the SDK's own histogram. */
async function reference(calls: [string, number][]): Promise<ResourceMetrics> {
  const reader = new PullReader();
  const provider = new MeterProvider({ resource: new Resource({ 'service.name': 'svc-engine' }), readers: [reader] });
  const histogram = provider.getMeter('svc-engine').createHistogram('svc.invocations.duration', {
    description: 'Invocation duration in milliseconds',
    unit: 'ms',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  for (const [fn, ms] of calls) histogram.record(ms, { function: fn });
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return resourceMetrics;
}

function histogramOf(rm: ResourceMetrics): unknown {
  const metric = rm.scopeMetrics
    .flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === 'svc.invocations.duration');
  if (metric === undefined) return undefined;
  const { name, description, unit } = metric.descriptor;
  const points = metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }));
  points.sort((a, b) => String(a.attributes['function']).localeCompare(String(b.attributes['function'])));
  return {
    name,
    description,
    unit,
    dataPointType: metric.dataPointType,
    temporality: metric.aggregationTemporality,
    points,
  };
}

/** The OTLP/JSON histogram of a batch, times left out. */
function jsonHistogram(rm: ResourceMetrics): unknown {
  const body = JSON.parse(Buffer.from(JsonMetricsSerializer.serializeRequest(rm)!).toString('utf8')) as {
    resourceMetrics: { scopeMetrics: { metrics: { name: string; histogram?: { dataPoints: object[] } }[] }[] }[];
  };
  const metric = body.resourceMetrics[0]!.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.histogram);
  const points = metric!.histogram!.dataPoints.map((p) => {
    const { startTimeUnixNano: _s, timeUnixNano: _t, ...rest } = p as Record<string, unknown>;
    return JSON.stringify(rest);
  });
  return { ...metric, histogram: { ...metric!.histogram, dataPoints: points.sort() } };
}

const durations = fc.array(
  fc.tuple(
    fc.constantFrom('a::one', 'b::two', 'c::three'),
    fc.oneof(fc.constantFrom(0, 1, 2, 5, 30000, 30001), fc.double({ min: 0, max: 40000, noNaN: true })),
  ),
  { minLength: 1, maxLength: 60 },
);

describe('engine invocation metrics', () => {
  it('report the duration histogram the OpenTelemetry SDK reports for the same durations', async () => {
    await fc.assert(
      fc.asyncProperty(durations, async (calls) => {
        const m = engineMetrics();
        for (const [fn, ms] of calls) m.settled(fn, ms, false);
        const ours = await m.collect();
        const theirs = await reference(calls);
        expect(histogramOf(ours)).toEqual(histogramOf(theirs));
        expect(jsonHistogram(ours)).toEqual(jsonHistogram(theirs));
        const promLines = (rm: ResourceMetrics): string[] =>
          toPrometheus(rm)
            .split('\n')
            .filter((l) => l.includes('svc_invocations_duration'))
            .sort();
        expect(promLines(ours)).toEqual(promLines(theirs));
        await m.close();
      }),
      { numRuns: 30 },
    );
  });

  it('count invocations and errors per function beside it', async () => {
    const m = engineMetrics();
    m.settled('a::one', 3, false);
    m.settled('a::one', 7, true);
    m.settled('b::two', 1, false);
    const text = await m.prometheus();
    expect(text).toContain('svc_invocations_total{function="a::one"} 2');
    expect(text).toContain('svc_invocations_total{function="b::two"} 1');
    expect(text).toContain('svc_invocations_errors_total{function="a::one"} 1');
    expect(text).toContain('svc_invocations_duration_bucket{function="a::one",le="5"} 1');
    expect(text).toContain('svc_invocations_duration_bucket{function="a::one",le="10"} 2');
    expect(text).toContain('svc_invocations_duration_count{function="a::one"} 2');
    expect(text).toContain('svc_invocations_duration_sum{function="a::one"} 10');
    // the histogram sits after the counters, as the SDK listed it
    expect(text.indexOf('svc_invocations_errors_total')).toBeLessThan(text.indexOf('svc_invocations_duration'));
  });
});
