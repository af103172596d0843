/**
 * Sampling and limits of the observability module, end to end: ordered sampling rules on the operation, the
 * global rate limit of new traces per second, `memory_max_spans` (the oldest spans are evicted),
 * `logs_max_count` and `logs_retention_seconds`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import type { EngineProcess } from '../harness.js';
import { client, eventually, sleep, spans, startObservedEngine } from './observability-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const MAX_SPANS = 40;
const PER_SECOND = 5;

let engine: EngineProcess;
let worker: SvcClient;

beforeAll(async () => {
  engine = await startObservedEngine({
    memory_max_spans: MAX_SPANS,
    logs_max_count: 5,
    logs_retention_seconds: 2,
    sampling: {
      default: 1,
      rules: [
        { operation: 'drop::*', rate: 0 },
        { operation: 'keep::?', rate: 1 },
      ],
      rate_limit: { max_traces_per_second: PER_SECOND },
    },
  });
  worker = await client(engine.url, 'obs-limits');
  for (const id of ['drop::a', 'keep::a', 'keep::b', 'burst::a']) worker.registerFunction(id, () => ({ ok: id }));
});

afterAll(async () => {
  await worker?.shutdown();
  await engine?.stop();
});

describe('sampling', () => {
  it('keeps the traces of operations whose first matching rule says 1, and none whose rule says 0', async () => {
    await worker.trigger({ function_id: 'drop::a', payload: {} });
    await sleep(1100); // a fresh rate-limit window
    await worker.trigger({ function_id: 'keep::a', payload: {} });
    await eventually(async () => (await spans(worker, { name: 'keep::a' })).length === 1, 10_000, 'keep::a');
    await sleep(500); // the batch that would carry drop::a has long been exported
    expect(await spans(worker, { name: 'drop::a' })).toEqual([]);
    const rules = await worker.trigger<{ rules: unknown[]; rate_limit: unknown }>({
      function_id: 'engine::sampling::rules',
      payload: {},
    });
    expect(rules.rules).toEqual([
      { operation: 'drop::*', rate: 0 },
      { operation: 'keep::?', rate: 1 },
    ]);
    expect(rules.rate_limit).toEqual({ max_traces_per_second: PER_SECOND });
  });

  it('caps new traces per second at rate_limit.max_traces_per_second', async () => {
    await sleep(1100);
    const started = Date.now();
    await Promise.all(Array.from({ length: 30 }, () => worker.trigger({ function_id: 'burst::a', payload: {} })));
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1; // windows the burst may have touched
    await sleep(1000);
    const kept = await spans(worker, { name: 'burst::a' });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(PER_SECOND * seconds);
    expect(kept.length).toBeLessThan(30);
  });
});

describe('limits', () => {
  it('keeps at most memory_max_spans spans, evicting the oldest', async () => {
    for (let i = 0; i < MAX_SPANS + 10; i++) {
      if (i % PER_SECOND === 0) await sleep(1050); // stay under the rate limit
      await worker.trigger({ function_id: 'keep::b', payload: { i } });
    }
    const all = await eventually(
      async () => {
        const s = await spans(worker, { name: 'keep::b' });
        return s.length === MAX_SPANS ? s : undefined;
      },
      10_000,
      'a full store',
    );
    expect(await spans(worker, { name: 'keep::a' })).toEqual([]); // the oldest span went first
    const status = await worker.trigger<{ spans: { count: number; max: number } }>({
      function_id: 'otel::status',
      payload: {},
    });
    expect(status.spans).toMatchObject({ count: MAX_SPANS, max: MAX_SPANS });
    expect(all).toHaveLength(MAX_SPANS);
  });

  it('keeps at most logs_max_count records and drops those older than logs_retention_seconds', async () => {
    for (let i = 0; i < 8; i++) {
      await worker.trigger({ function_id: 'engine::log::info', payload: { message: `m${i}`, service_name: 'limits' } });
    }
    const logs = await worker.trigger<{ logs: { body: string }[]; total: number }>({
      function_id: 'engine::logs::list',
      payload: { service: 'limits' },
    });
    expect(logs.logs.map((l) => l.body)).toEqual(['m7', 'm6', 'm5', 'm4', 'm3'].slice(0, logs.total));
    expect(logs.total).toBeLessThanOrEqual(5);
    await eventually(
      async () => {
        const later = await worker.trigger<{ total: number }>({
          function_id: 'engine::logs::list',
          payload: { service: 'limits' },
        });
        return later.total === 0;
      },
      6_000,
      'retention to evict the records',
    );
  });
});

describe('log record size', () => {
  it('keeps at most 64 Ki characters of a record, saying so, so that large logs cannot exhaust svc-otel', async () => {
    const message = `big ${'L'.repeat(2 * 1024 * 1024)}`;
    await worker.trigger({ function_id: 'engine::log::info', payload: { message, service_name: 'big-logger' } });
    const found = await worker.trigger<{ logs: { body: string; attributes: Record<string, unknown> }[] }>({
      function_id: 'engine::logs::list',
      payload: { service: 'big-logger' },
    });
    const [record] = found.logs;
    // Before, each record kept all of it: 800 of 5 MiB ran svc-otel out of heap, losing every trace and log.
    expect(record?.body.length).toBeLessThan(64 * 1024 + 100);
    expect(record?.body).toMatch(/^big L+… \[\d+ more characters not kept\]$/);
    expect(record?.attributes['svc.log.truncated']).toBe(true);
  });
});

describe('span size', () => {
  it('keeps at most 16 Ki characters of an exported span, saying so, so that large spans cannot exhaust svc-otel', async () => {
    const hex = (n: number): string =>
      Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    const traceId = hex(32);
    const span = {
      traceId,
      spanId: hex(16),
      name: 'upload',
      startTimeUnixNano: `${Date.now()}000000`,
      endTimeUnixNano: `${Date.now() + 1}000000`,
      attributes: [
        { key: 'http.route', value: { stringValue: '/upload' } },
        { key: 'request.body', value: { stringValue: 'B'.repeat(1024 * 1024) } },
      ],
    };
    const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'big-spans' } }] };
    const body = JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] });
    // what an exporter's OTLP frame becomes (iii-sdk puts no limit on attributes)
    await worker.trigger({ function_id: 'otel::ingest', payload: { prefix: 'OTLP', body } });
    const [stored] = await eventually(
      async () => {
        const found = await spans(worker, { trace_id: traceId });
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the span',
    );
    // Before, each span kept all of it: four thousand of 1 MiB ran svc-otel out of heap (it keeps 10,000).
    expect(stored?.attributes['http.route']).toBe('/upload');
    expect(String(stored?.attributes['request.body']).length).toBeLessThan(16 * 1024 + 100);
    expect(stored?.attributes['request.body']).toMatch(/^B+… \[\d+ more characters not kept\]$/);
    expect(stored?.attributes['svc.span.truncated']).toBe(true);
  });

  it("keeps 8,192 characters of a worker's error message and stack on the engine's span", async () => {
    const message = `failed: ${'E'.repeat(200_000)}`;
    worker.registerFunction('big::fail', () => {
      throw new Error(message);
    });
    const failed = await eventually(
      async () => {
        await worker.trigger({ function_id: 'big::fail', payload: {} }).catch(() => undefined);
        const found = await spans(worker, { name: 'big::fail', status: 'error' });
        return found.length > 0 ? found : undefined;
      },
      10_000,
      "the failed call's span",
    );
    const [stored] = failed;
    expect(stored?.errors[0]?.message).toBe(message.slice(0, 8192));
    expect(stored?.errors[0]?.stacktrace?.length).toBeLessThanOrEqual(8192);
    // Before, the span kept all 200,000 characters of it (status, event and error), in each of thousands.
    expect(JSON.stringify(stored).length).toBeLessThan(6 * 8192);
  });
});

describe('query patterns', () => {
  it('answers a pattern that would backtrack without end as a regular expression, and keeps answering', async () => {
    const service = 'a'.repeat(60);
    await worker.trigger({ function_id: 'engine::log::info', payload: { message: 'long', service_name: service } });
    // As `^(.*a){25}.*!$` this tries every way of placing 25 `a`s in 60: svc-otel would never answer again.
    const hostile = `${'*a'.repeat(25)}!`;
    const none = await worker.trigger<{ total: number }>({
      function_id: 'engine::logs::list',
      payload: { service: hostile },
      timeoutMs: 10_000,
    });
    expect(none.total).toBe(0);
    const traces = await worker.trigger<{ total: number }>({
      function_id: 'engine::traces::list',
      payload: { name: hostile, service: hostile },
      timeoutMs: 10_000,
    });
    expect(traces.total).toBe(0);
    const found = await worker.trigger<{ logs: { body: string }[] }>({
      function_id: 'engine::logs::list',
      payload: { service: `${'*a'.repeat(25)}*` },
      timeoutMs: 10_000,
    });
    expect(found.logs.map((l) => l.body)).toEqual(['long']);
  });
});
