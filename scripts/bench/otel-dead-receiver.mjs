// svc-otel's ingest of the engine's span batches when spans are also exported over OTLP and nothing listens at the
// endpoint (the default `exporter: both` on a machine without a collector), against `exporter: memory`: batches of
// 512 spans written by the engine's SpanBatch, fed to Collector.ingest at 80 batches/s (~40,000 spans/s) for 6 s,
// the first second not counted. Prints CPU µs per span and the export counters. Run after `npm run build`.
//   node scripts/bench/otel-dead-receiver.mjs [memory|both|otlp (both)]
// Helper (exports no `run`): the figure to compare two builds of svc-otel's export queue.
import { dirname, join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { engineSpanBodies } from './lib/engine-span-batches.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { Collector } = await import(join(ROOT, 'workers/observability/dist/collector.js'));
const { observabilityConfigSchema } = await import(join(ROOT, 'workers/observability/dist/config.js'));

const exporter = process.argv[2] ?? 'both';
const RATE_MS = 12.5;
const WARM = 80;
const MEASURED = 400;
// port 9 (discard) on loopback: nothing listens, every request is refused at once
const config = observabilityConfigSchema.parse({
  exporter,
  endpoint: 'http://127.0.0.1:9',
  export_timeout_ms: 1000,
  memory_max_spans: 10000,
});
const collector = new Collector(config, pino({ level: 'silent' }));
const bodies = await engineSpanBodies();

let n = 0;
let start;
await new Promise((resolve) => {
  const timer = setInterval(() => {
    collector.ingest('SVCS', bodies[n++ % bodies.length]);
    if (n === WARM) start = process.cpuUsage();
    if (n === WARM + MEASURED) {
      clearInterval(timer);
      resolve();
    }
  }, RATE_MS);
});
const cpu = process.cpuUsage(start);
const traces = collector.status().otlp?.traces;
console.log(
  `exporter ${exporter}: ${((cpu.user + cpu.system) / (MEASURED * 512)).toFixed(2)} µs CPU per span` +
    (traces ? `; OTLP traces sent ${traces.sent}, failed ${traces.failed}, dropped ${traces.dropped}` : ''),
);
await collector.close();
