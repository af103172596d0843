// The engine's per-invocation tracing cost in isolation (no sockets): the observability module's lifecycle
// observer driven directly, N invocations started and settled in groups of 256 (like the benchmark's
// outstanding calls), spans shipped to a sink that keeps only their byte count. Prints CPU µs per invocation.
//   node scripts/bench/observability-micro.mjs [invocations (200000)]
// Helper (exports no `run`): the steady figure to compare two builds of engine/src/modules/observability.
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { createSampler } = await import(join(ROOT, 'sdk/dist/index.js'));
const { SpanBatch } = await import(join(ROOT, 'engine/dist/modules/observability/span-batch.js'));
const { InvocationTracer } = await import(join(ROOT, 'engine/dist/modules/observability/invocation-tracer.js'));
const { EngineMetrics } = await import(join(ROOT, 'engine/dist/modules/observability/engine-metrics.js'));

const N = Number(process.argv[2] ?? 200_000);
let bytes = 0;
let frames = 0;
const sink = (_prefix, body) => {
  bytes += body.length;
  frames++;
  return true;
};
const spans = new SpanBatch({
  send: (body) => sink('OTLP', body),
  resource: { 'service.namespace': 'svc', 'service.version': '0.1.0' },
});
const sampling = { defaultRatio: 1, parentBased: true, rules: [], maxTracesPerSecond: 0 };
const metrics = new EngineMetrics({
  resource: { 'service.name': 'svc-engine' },
  internals: { listWorkers: () => [], getFunction: () => undefined },
  client: {},
  send: sink,
  exportIntervalMs: 1000,
});
// as the module builds it for ratio 1 with no rules or rate limit (BENCH_SAMPLER=1: every decision by the sampler)
const keepAll = process.env.BENCH_SAMPLER === '1' ? undefined : { parentBased: sampling.parentBased };
const tracer = new InvocationTracer(
  { sampler: createSampler(sampling), keepAll, spans, defaultService: 'svc-engine' },
  metrics,
);

async function round(n) {
  for (let i = 0; i < n; i += 256) {
    const ids = [];
    for (let j = 0; j < 256; j++) {
      const invocationId = `inv-${i + j}-0000-0000-000000000000`;
      ids.push(invocationId);
      tracer.invocationStarted({
        invocationId,
        functionId: 'bench::echo',
        callerWorkerId: 'caller',
        executorWorkerId: 'executor',
        executorWorkerName: 'bench-executor',
        traceId: undefined,
        traceparent: undefined,
        baggage: undefined,
      });
    }
    for (const invocationId of ids) {
      tracer.invocationSettled({
        invocationId,
        functionId: 'bench::echo',
        callerWorkerId: 'caller',
        executorWorkerId: 'executor',
        traceId: undefined,
        durationMs: 0.2,
        outcome: 'ok',
        error: undefined,
      });
    }
    await new Promise((r) => setImmediate(r)); // timers (batch flushes) get their turn, as on a live engine
  }
  spans.flush();
}

await round(20_000); // warm-up
bytes = 0;
frames = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await round(N);
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
console.log(
  `${N} invocations: ${((cpu.user + cpu.system) / N).toFixed(2)} µs CPU each, ${((wall * 1000) / N).toFixed(2)} µs wall; ` +
    `${frames} frames, ${(bytes / N).toFixed(0)} bytes per span`,
);
tracer.close();
await metrics.close();
