// Engine span batches as svc-otel receives them: `count` batches of 512 ordinary spans (one function, one worker,
// status ok) written by the engine's own SpanBatch, each the `body` of its `otel::ingest` payload as svc-otel's
// connection parses it. For the svc-otel benchmarks (otel-ingest-micro.mjs, otel-dead-receiver.mjs); needs the
// engine built (`npm run build`).
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export async function engineSpanBodies(count = 40) {
  const { SpanBatch } = await import(join(ROOT, 'engine/dist/modules/observability/span-batch.js'));
  const { SpanRecord, IdPool } = await import(join(ROOT, 'engine/dist/modules/observability/span-record.js'));
  const bodies = [];
  const batch = new SpanBatch({
    send: (json) => bodies.push(JSON.parse(json).body) > 0,
    resource: { 'service.namespace': 'svc' },
  });
  const ids = new IdPool();
  const now = Date.now();
  for (let i = 0; i < 512 * count; i++) {
    const s = new SpanRecord(
      `00-${ids.traceId()}-${ids.spanId()}-01`,
      undefined,
      'bench::echo',
      'executor',
      'executor',
      randomUUID(),
      now + i / 100,
    );
    s.endMs = s.startMs + 0.2;
    s.ok();
    batch.add(s);
  }
  batch.flush();
  return bodies;
}
