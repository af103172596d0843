// The engine's work per call with no sockets: the core routing a caller's invoke to an executor and relaying the
// result, from the frame text to the text it would write (decode, route, raw forwarding with the caller id and,
// with tracing, the span's traceparent spliced in), with and without the observability module's tracer and
// metrics. N calls in groups of 256 outstanding; prints CPU µs per call for each, interleaved, best of 3.
//   [BENCH_PAYLOAD_BYTES=100] node scripts/bench/engine-core-micro.mjs [calls (200000)]
// Helper (exports no `run`): the steady figure for a change to the engine's per-call path or to what tracing
// adds to it (sockets, the executor and svc-otel excluded).
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { setImmediate } from 'node:timers';
import { fileURLToPath } from 'node:url';
import pino from 'pino';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { decodeFrame, createSampler } = await import(join(ROOT, 'sdk/dist/index.js'));
const { EngineCore } = await import(join(ROOT, 'engine/dist/core/engine-core.js'));
const { forwardableText } = await import(join(ROOT, 'engine/dist/transport/raw-frame.js'));
const { SpanBatch } = await import(join(ROOT, 'engine/dist/modules/observability/span-batch.js'));
const { InvocationTracer } = await import(join(ROOT, 'engine/dist/modules/observability/invocation-tracer.js'));
const { EngineMetrics } = await import(join(ROOT, 'engine/dist/modules/observability/engine-metrics.js'));

const N = Number(process.argv[2] ?? 200_000);
let written = 0;

/** A connection that forwards and relays text as the WebSocket transport does, and keeps only a byte count. */
class TextConnection {
  kind = 'memory';
  sharesObjects = false;
  features = new Set(['cancel']);
  remoteAddress = undefined;
  last = '';
  send(message) {
    this.last = JSON.stringify(message);
    written += this.last.length;
    return true;
  }
  forwardInvoke(raw, data, callerWorkerId, trace) {
    const text = forwardableText(raw, data, callerWorkerId, trace);
    if (text === undefined) return 'declined';
    this.last = text;
    written += text.length;
    return 'sent';
  }
  relayResult(raw) {
    if (typeof raw !== 'string') return 'declined';
    written += raw.length;
    return 'sent';
  }
  close() {}
  terminate() {}
}

function engine(tracing) {
  const core = new EngineCore({ logger: pino({ level: 'silent' }) });
  let stop = () => undefined;
  if (tracing) {
    const spans = new SpanBatch({
      send: (body) => (written += body.length) > 0,
      resource: { 'service.namespace': 'svc' },
    });
    const metrics = new EngineMetrics({
      resource: { 'service.name': 'svc-engine' },
      internals: { listWorkers: () => [], getFunction: () => undefined },
      client: {},
      send: () => true,
      exportIntervalMs: 60_000,
    });
    const sampling = { defaultRatio: 1, parentBased: true, rules: [], maxTracesPerSecond: 0 };
    const tracer = new InvocationTracer(
      { sampler: createSampler(sampling), keepAll: { parentBased: true }, spans, defaultService: 'svc-engine' },
      metrics,
    );
    const remove = core.hooks.observe(tracer);
    stop = () => {
      remove();
      tracer.close();
      void metrics.close();
    };
  }
  const execConn = new TextConnection();
  const exec = core.attach(execConn);
  const caller = core.attach(new TextConnection());
  core.receive(exec, { type: 'registerfunction', id: 'bench::echo' });
  return { core, exec, execConn, caller, stop };
}

const data = JSON.stringify({ s: 'x'.repeat(Math.max(0, Number(process.env.BENCH_PAYLOAD_BYTES ?? 100) - 8)) });

async function round(e, n) {
  const ids = new Array(256);
  const results = new Array(256);
  for (let i = 0; i < n; i += 256) {
    for (let j = 0; j < 256; j++) {
      const id = randomUUID();
      ids[j] = id;
      const text = `{"type":"invokefunction","invocation_id":"${id}","function_id":"bench::echo","data":${data},"timeout_ms":30000}`;
      const d = decodeFrame(text);
      e.core.receive(e.caller, d.message, text);
      results[j] = `{"type":"invocationresult","invocation_id":"${id}","function_id":"bench::echo","result":${data}}`;
    }
    for (let j = 0; j < 256; j++) {
      const text = results[j];
      const d = decodeFrame(text);
      e.core.receive(e.exec, d.message, text);
    }
    await new Promise((r) => setImmediate(r));
  }
}

async function measure(tracing) {
  const e = engine(tracing);
  await round(e, 20_000);
  const cpu0 = process.cpuUsage();
  await round(e, N);
  const cpu = process.cpuUsage(cpu0);
  e.stop();
  return (cpu.user + cpu.system) / N;
}

const best = { off: Infinity, on: Infinity };
for (let r = 0; r < 3; r++) {
  best.off = Math.min(best.off, await measure(false));
  best.on = Math.min(best.on, await measure(true));
}
console.log(
  `${N} calls: engine core ${best.off.toFixed(2)} µs CPU per call without tracing, ${best.on.toFixed(2)} with ` +
    `(+${(best.on - best.off).toFixed(2)}); ${Math.round(written / 1e6)} MB written`,
);
