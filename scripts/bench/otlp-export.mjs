// OTLP export benchmark (svc-otel's collector in this process, from dist): the cost of ingesting span batches
// (OTLP/JSON, 50 spans each, as the engine sends them) with spans kept in memory only, against memory plus OTLP
// export; and how many spans a second the OpenTelemetry protobuf exporter delivers to a loopback OTLP/HTTP
// receiver (which answers 200 without decoding) when the queue is kept fed without overflowing. The ingest cost
// is the synchronous part; serialising and sending happen after, on the same event loop, in the throughput row.
// Run by scripts/bench/run.mjs (`node scripts/bench/run.mjs otlp-export` after `npm run build`).
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { round2 } from './lib/net.mjs';

const SPANS_PER_BATCH = 50;
const COST_BATCHES = Number(process.env.BENCH_OTLP_BATCHES ?? 400);
const TPUT_MS = Number(process.env.BENCH_OTLP_MS ?? 4000);

function spanBatch(i) {
  const traceId = randomBytes(16).toString('hex');
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = [];
  for (let k = 0; k < SPANS_PER_BATCH; k++) {
    spans.push({
      traceId,
      spanId: randomBytes(8).toString('hex'),
      name: `bench::fn${k % 10}`,
      kind: 2,
      startTimeUnixNano: String(start + BigInt(k) * 1000n),
      endTimeUnixNano: String(start + BigInt(k) * 1000n + 250_000n),
      attributes: [{ key: 'svc.invocation_id', value: { stringValue: `inv-${i}-${k}` } }],
      status: { code: 1 },
    });
  }
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'bench' } },
            { key: 'service.namespace', value: { stringValue: 'bench-ns' } },
            { key: 'service.version', value: { stringValue: '1.0.0' } },
          ],
        },
        scopeSpans: [{ scope: { name: 'svc' }, spans }],
      },
    ],
  });
}

async function receiver() {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

export async function run({ log }) {
  const { Collector } = await import('../../workers/observability/dist/collector.js');
  const { observabilityConfigSchema } = await import('../../workers/observability/dist/config.js');
  const logger = pino({ level: 'silent' });
  const rx = await receiver();
  const config = (exporter) =>
    observabilityConfigSchema.parse({ enabled: true, exporter, endpoint: rx.url, memory_max_spans: 10_000 });
  const batches = Array.from({ length: COST_BATCHES }, (_, i) => spanBatch(i));

  // ingest cost: decode + store (+ rebuild and queue for export), synchronous in svc-otel's event loop
  const cost = {};
  for (const exporter of ['memory', 'both', 'memory', 'both']) {
    const collector = new Collector(config(exporter), logger);
    const t0 = process.hrtime.bigint();
    for (const b of batches) collector.ingest('OTLP', b);
    const us = Number(process.hrtime.bigint() - t0) / 1000 / (COST_BATCHES * SPANS_PER_BATCH);
    cost[exporter] = Math.min(cost[exporter] ?? Infinity, us);
    await collector.close();
  }
  log(`ingest µs/span: memory ${round2(cost.memory)}, memory + otlp ${round2(cost.both)}`);

  // delivered spans per second: feed while the queue has room, count what the exporter got through
  const collector = new Collector(config('otlp'), logger);
  const status = () => collector.status().otlp.traces;
  let i = 0;
  const end = Date.now() + TPUT_MS;
  const sent0 = status().sent;
  const t0 = Date.now();
  while (Date.now() < end) {
    while (status().queued < 2048 - SPANS_PER_BATCH) collector.ingest('OTLP', batches[i++ % batches.length]);
    await new Promise((r) => setTimeout(r, 2));
  }
  const sent = status().sent - sent0;
  const seconds = (Date.now() - t0) / 1000;
  const { dropped, failed } = status();
  await collector.close();
  await rx.close();
  const tput = Math.round(sent / seconds);
  log(
    `exported ${sent} spans in ${round2(seconds)} s (${rx.requests()} requests); dropped ${dropped}, failed ${failed}`,
  );
  return [
    { name: 'svc-otel ingest, 50-span batches, memory', value: round2(cost.memory), unit: 'µs/span' },
    {
      name: 'svc-otel ingest, 50-span batches, memory + OTLP export',
      value: round2(cost.both),
      unit: 'µs/span',
      floor: round2(cost.memory),
      ratio: round2(cost.both / cost.memory),
    },
    { name: 'OTLP/protobuf span export to a loopback receiver', value: tput, unit: 'spans/s' },
  ];
}
