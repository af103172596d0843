// svc-otel's ingest of the engine's span batches in isolation (no sockets): batches of 512 spans written by the
// engine's SpanBatch, fed to Collector.ingest with memory_max_spans 10,000 full (so every span also evicts one).
// Prints CPU and wall µs per span, and the garbage collections during the measured loop (count and pause ms, minor
// = scavenges, major = mark-compacts). Run after `npm run build`.
//   node [--expose-gc] scripts/bench/otel-ingest-micro.mjs [batches (400)]
// Helper (exports no `run`): the steady figure to compare two builds of svc-otel's decoder and span store.
import { dirname, join } from 'node:path';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { engineSpanBodies } from './lib/engine-span-batches.mjs';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { Collector } = await import(join(ROOT, 'workers/observability/dist/collector.js'));
const { observabilityConfigSchema } = await import(join(ROOT, 'workers/observability/dist/config.js'));
const config = observabilityConfigSchema.parse({ exporter: 'memory', memory_max_spans: 10000, metrics_enabled: true });
const c = new Collector(config, pino({ level: 'silent' }));
// the engine sends each batch as the JSON text of its `otel::ingest` payload; svc-otel's connection parses it
const bodies = await engineSpanBodies();
const N = Number(process.argv[2] ?? 400);
const gcs = [];
const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
observer.observe({ entryTypes: ['gc'] });
const t0 = process.cpuUsage();
const w0 = performance.now();
for (let i = 0; i < N; i++) c.ingest('SVCS', bodies[i % bodies.length]);
const cpu = process.cpuUsage(t0);
const w1 = performance.now();
const wall = w1 - w0;
await new Promise((resolve) => setTimeout(resolve, 50)); // gc entries are delivered after the loop
observer.disconnect();
if (c.spans.size !== Math.min(N * 512, 10000)) {
  throw new Error(`the store holds ${c.spans.size} spans after ${N} batches: svc-otel refused the batches`);
}
const during = gcs.filter((e) => e.startTime >= w0 && e.startTime <= w1);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const gc = (kind) => {
  const of = during.filter((e) => e.detail.kind === kind);
  return `${of.length} (${of.reduce((ms, e) => ms + e.duration, 0).toFixed(1)} ms)`;
};
console.log(
  `${N} batches × 512: ${((cpu.user + cpu.system) / (N * 512)).toFixed(2)} µs CPU per span, ${((wall * 1000) / (N * 512)).toFixed(2)} µs wall; stored ${c.spans.size}; ` +
    `gc minor ${gc(constants.NODE_PERFORMANCE_GC_MINOR)}, major ${gc(constants.NODE_PERFORMANCE_GC_MAJOR)}, ` +
    `heap used ${mib(process.memoryUsage().heapUsed)}` +
    // with --expose-gc: what the collector keeps (its full store) once the garbage is collected
    (globalThis.gc === undefined ? '' : `, ${(globalThis.gc(), mib(process.memoryUsage().heapUsed))} after a full gc`),
);
