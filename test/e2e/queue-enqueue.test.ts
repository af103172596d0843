/**
 * svc-queue end to end: a real engine, a real svc-queue process, workers on our SDK and on the real iii-sdk.
 * TriggerAction.Enqueue from both clients; retries into dead letters, then redrive and discard through the admin
 * functions; topic subscribers (`durable:subscriber` and `queue`) with a condition function.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { registerWorker as iiiRegisterWorker, TriggerAction as IIITriggerAction, type IIIClient } from 'iii-sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { builtinMemory, client, sleep, startedQueue } from './queue-support.js';

const RUN = randomUUID().slice(0, 8);
const Q = `e2e-${RUN}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let engine: EngineProcess;
let queue: Child;
let worker: SvcClient;
let caller: SvcClient;
const received: Record<string, unknown>[] = [];
let failuresLeft = new Map<string, number>();

beforeAll(async () => {
  engine = await startEngine();
  queue = await startedQueue(engine.url, { adapter: builtinMemory({ max_attempts: 3, backoff_ms: 100 }) });
  worker = client(engine.url, 'queue-e2e-worker');
  worker.registerFunction(`qe2e::record`, (payload: Record<string, unknown>) => {
    received.push(payload);
    return { ok: true };
  });
  worker.registerFunction(`qe2e::flaky`, (payload: { key: string }) => {
    const left = failuresLeft.get(payload.key) ?? Infinity;
    failuresLeft.set(payload.key, left - 1);
    if (left > 0) throw new Error(`flaky ${payload.key} refuses`);
    received.push(payload);
    return null;
  });
  worker.registerFunction(`qe2e::trace`, (payload: Record<string, unknown>, ctx) => {
    received.push({ ...payload, traceparent: ctx.traceparent, metadata: ctx.metadata });
    return null;
  });
  worker.registerFunction(`qe2e::only-even`, (payload: { n: number }) => payload.n % 2 === 0);
  await worker.ready();
  caller = client(engine.url, 'queue-e2e-caller');
  await caller.ready();
});

afterAll(async () => {
  await caller?.shutdown();
  await worker?.shutdown();
  await queue?.stop();
  await engine?.stop();
});

const call = <T>(function_id: string, payload: unknown) => caller.trigger<T>({ function_id, payload });

describe('svc-queue: TriggerAction.Enqueue', () => {
  it('our SDK: resolves {messageReceiptId} and the function then runs from the queue', async () => {
    const r = await caller.trigger<{ messageReceiptId: string }>({
      function_id: 'qe2e::record',
      payload: { from: 'svc-sdk', run: RUN },
      action: TriggerAction.Enqueue({ queue: Q }),
    });
    expect(r.messageReceiptId).toMatch(UUID);
    await waitFor(() => received.some((p) => p.from === 'svc-sdk'), 5000, 'the enqueued call to run');
  });

  it('the real iii-sdk client: Enqueue resolves {messageReceiptId} and the function runs', async () => {
    process.env.OTEL_ENABLED = 'false';
    const iii: IIIClient = iiiRegisterWorker(engine.url, {
      otel: { enabled: false },
      workerName: 'iii-caller',
    });
    try {
      const r = (await iii.trigger({
        function_id: 'qe2e::record',
        payload: { from: 'iii-sdk', run: RUN },
        action: IIITriggerAction.Enqueue({ queue: Q }),
      })) as { messageReceiptId: string };
      expect(r.messageReceiptId).toMatch(UUID);
      await waitFor(() => received.some((p) => p.from === 'iii-sdk'), 5000, 'the iii-sdk enqueued call to run');
    } finally {
      await iii.shutdown();
    }
  });

  it("carries the caller's trace and the job's identity into the queued call", async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const r = await caller.trigger<{ messageReceiptId: string }>({
      function_id: 'qe2e::trace',
      payload: { tag: 'traced' },
      action: TriggerAction.Enqueue({ queue: Q }),
      traceparent: `00-${traceId}-${'b'.repeat(16)}-01`,
    });
    const got = await waitFor(() => received.find((p) => p.tag === 'traced'), 5000, 'the traced call');
    expect(String(got?.traceparent)).toContain(traceId);
    // the job's identity rides along as invocation metadata, for idempotent handlers
    expect(got?.metadata).toEqual({ queue: Q, messageReceiptId: r.messageReceiptId, attempt: 1, maxAttempts: 3 });
  });

  it('many enqueues at once: each caller gets its own receipt and each call runs once', async () => {
    const n = 200;
    const receipts = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        caller.trigger<{ messageReceiptId: string }>({
          function_id: 'qe2e::record',
          payload: { burst: RUN, i, text: 'x'.repeat(i * 50) },
          action: TriggerAction.Enqueue({ queue: Q }),
        }),
      ),
    );
    expect(new Set(receipts.map((r) => r.messageReceiptId)).size).toBe(n);
    await waitFor(() => received.filter((p) => p.burst === RUN).length >= n, 10_000, 'every burst call to run');
    const ran = received.filter((p) => p.burst === RUN);
    expect(ran.map((p) => p.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(ran.every((p) => p.text === 'x'.repeat(Number(p.i) * 50))).toBe(true);
  });

  it('engine::queue::enqueue_batch answers each job in order, refusing a malformed one alone', async () => {
    const job = (tag: string) => ({
      queue: Q,
      function_id: 'qe2e::record',
      data: { tag },
      messageReceiptId: randomUUID(),
      traceparent: null,
      baggage: null,
    });
    const [good1, good2] = [job('batch-1'), job('batch-2')];
    const { results } = await call<{ results: unknown[] }>('engine::queue::enqueue_batch', {
      jobs: [good1, { ...job('bad'), function_id: '' }, good2],
    });
    expect(results).toEqual([
      { messageReceiptId: good1.messageReceiptId },
      { error: { code: 'invalid_arguments', message: expect.stringContaining('function_id') } },
      { messageReceiptId: good2.messageReceiptId },
    ]);
    await waitFor(
      () => received.some((p) => p.tag === 'batch-1') && received.some((p) => p.tag === 'batch-2'),
      5000,
      'both good jobs to run',
    );
  });

  it('refuses data nested deeper than 128 levels with invalid_arguments, in every enqueue function', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 129; i++) deep = [deep];
    const refusal = async (functionId: string, data: unknown): Promise<unknown> =>
      call(functionId, data).then(
        () => 'accepted',
        (err: Error & { code?: string }) => ({ code: err.code, message: err.message }),
      );
    expect(await refusal('queue::enqueue', { queue: Q, function_id: 'qe2e::record', data: deep })).toEqual({
      code: 'invalid_arguments',
      message: "invalid_arguments: queue::enqueue: 'data' is nested deeper than 128 levels",
    });
    expect(await refusal('queue::publish', { topic: Q, data: deep })).toMatchObject({
      message: expect.stringContaining("queue::publish: 'data' is nested deeper than 128 levels"),
    });
    const fromEngine = { queue: Q, function_id: 'qe2e::record', data: deep, messageReceiptId: randomUUID() };
    expect(await refusal('engine::queue::enqueue', fromEngine)).toMatchObject({
      message: expect.stringContaining("engine::queue::enqueue: 'data' is nested deeper than 128 levels"),
    });
  });

  it('retries a failing function with backoff and succeeds on a later attempt', async () => {
    failuresLeft.set('twice', 2);
    await caller.trigger({
      function_id: 'qe2e::flaky',
      payload: { key: 'twice' },
      action: TriggerAction.Enqueue({ queue: Q }),
    });
    await waitFor(() => received.some((p) => p.key === 'twice'), 5000, 'third attempt to succeed');
  });
});

describe('svc-queue: dead letters through the admin functions', () => {
  const DLQ = `dlq-${RUN}`;
  let deadId = '';

  it('after max_attempts the job is a dead letter once, with its last error and attempt count', async () => {
    failuresLeft = new Map([
      ['dead-1', Infinity],
      ['dead-2', Infinity],
    ]);
    const r1 = await caller.trigger<{ messageReceiptId: string }>({
      function_id: 'qe2e::flaky',
      payload: { key: 'dead-1' },
      action: TriggerAction.Enqueue({ queue: DLQ }),
    });
    await caller.trigger({
      function_id: 'qe2e::flaky',
      payload: { key: 'dead-2' },
      action: TriggerAction.Enqueue({ queue: DLQ }),
    });
    deadId = r1.messageReceiptId;
    // attempts at 0, 100, 300 ms
    await waitFor(
      async () => (await call<{ dead: number }>('queue::topic_stats', { topic: DLQ })).dead === 2,
      5000,
      '2 dead letters',
    );
    const topics = await call<{ topics: { queue: string; dead: number }[] }>('queue::list_topics', {});
    expect(topics.topics.find((t) => t.queue === DLQ)).toMatchObject({
      dead: 2,
      waiting: 0,
      delayed: 0,
      completed: 0,
      failed: 2,
    });
    const page = await call<{ total: number; messages: Record<string, unknown>[] }>('queue::dlq_messages', {
      topic: DLQ,
      limit: 1,
    });
    expect(page.total).toBe(2);
    expect(page.messages).toHaveLength(1);
    const all = await call<{ messages: Record<string, unknown>[] }>('queue::dlq_messages', { topic: DLQ });
    const dead1 = all.messages.find((m) => m.id === deadId);
    expect(dead1).toMatchObject({ function_id: 'qe2e::flaky', attempts: 3 });
    expect((dead1!.error as { message: string }).message).toContain('flaky dead-1 refuses');
  });

  it('redrive_message puts one back and it runs; discard_message removes the other for good', async () => {
    failuresLeft.set('dead-1', 0);
    const r = await call('queue::redrive_message', { queue: DLQ, message_id: deadId });
    expect(r).toMatchObject({ queue: DLQ, message_id: deadId, redriven: true });
    await waitFor(() => received.some((p) => p.key === 'dead-1'), 5000, 'redriven job to run');
    const left = await call<{ messages: { id: string }[] }>('queue::dlq_messages', { topic: DLQ });
    expect(left.messages).toHaveLength(1);
    const other = left.messages[0]!.id;
    expect(await call('queue::discard_message', { queue: DLQ, message_id: other })).toMatchObject({ discarded: true });
    // the discarded dead letter stays counted as failed; the redriven one completed (counted once its result is in)
    const completed = async () => (await call<{ completed: number }>('queue::topic_stats', { queue: DLQ })).completed;
    await waitFor(async () => (await completed()) === 1, 5000, 'the redriven job counted as completed');
    expect(await call('queue::topic_stats', { queue: DLQ })).toMatchObject({
      dead: 0,
      waiting: 0,
      delayed: 0,
      completed: 1,
      failed: 2,
    });
    await expect(call('queue::discard_message', { queue: DLQ, message_id: other })).rejects.toThrow(/no dead letter/);
  });

  it('queue::redrive moves every dead letter back', async () => {
    failuresLeft = new Map([
      ['all-1', 3],
      ['all-2', 3],
    ]);
    for (const key of ['all-1', 'all-2'])
      await caller.trigger({
        function_id: 'qe2e::flaky',
        payload: { key },
        action: TriggerAction.Enqueue({ queue: DLQ }),
      });
    await waitFor(async () => (await call<{ dead: number }>('queue::topic_stats', { topic: DLQ })).dead === 2, 5000);
    expect(await call('queue::redrive', { queue: DLQ })).toEqual({ queue: DLQ, redriven: 2 });
    await waitFor(() => received.filter((p) => String(p.key).startsWith('all-')).length === 2, 5000, 'both to run');
  });
});

describe('svc-queue: topic subscribers', () => {
  it('publish fans out to every durable:subscriber and queue subscriber; a condition filters; ids dedupe', async () => {
    const topic = `orders-${RUN}`;
    const got: { who: string; n: number }[] = [];
    worker.registerFunction(`qe2e::sub-a`, (p: { n: number }) => void got.push({ who: 'a', n: p.n }));
    worker.registerFunction(`qe2e::sub-b`, (p: { n: number }) => void got.push({ who: 'b', n: p.n }));
    const t1 = worker.registerTrigger({ type: 'durable:subscriber', function_id: 'qe2e::sub-a', config: { topic } });
    const t2 = worker.registerTrigger({
      type: 'queue',
      function_id: 'qe2e::sub-b',
      config: { queue: topic, condition_function_id: 'qe2e::only-even' },
    });
    await sleep(200); // the engine hands the bindings to svc-queue
    for (const n of [1, 2, 3, 4]) await call('queue::publish', { topic, data: { n }, id: `pub-${RUN}-${n}` });
    await call('queue::publish', { topic, data: { n: 4 }, id: `pub-${RUN}-4` }); // a producer's retry: no-op
    await waitFor(() => got.length === 6, 5000, '4 deliveries to a and 2 to b');
    await sleep(200);
    expect(
      got
        .filter((g) => g.who === 'a')
        .map((g) => g.n)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(
      got
        .filter((g) => g.who === 'b')
        .map((g) => g.n)
        .sort(),
    ).toEqual([2, 4]);
    t1.unregister();
    t2.unregister();
  });

  it('an iii-sdk worker subscribes with durable:subscriber and receives published messages', async () => {
    process.env.OTEL_ENABLED = 'false';
    const iii: IIIClient = iiiRegisterWorker(engine.url, { otel: { enabled: false }, workerName: 'iii-sub' });
    const topic = `iii-topic-${RUN}`;
    const got: unknown[] = [];
    try {
      iii.registerFunction('qe2e::iii-sub', async (data: unknown) => {
        got.push(data);
        return null;
      });
      iii.registerTrigger({ type: 'durable:subscriber', function_id: 'qe2e::iii-sub', config: { topic } });
      await waitFor(
        async () =>
          (await call<{ message_ids: string[] }>('queue::publish', { topic, data: { hi: 1 } })).message_ids.length > 0,
        5000,
        'the iii-sdk subscription to reach svc-queue',
      );
      await waitFor(() => got.length >= 1, 5000, 'the message to arrive');
      expect(got[0]).toMatchObject({ hi: 1 });
    } finally {
      await iii.shutdown();
    }
  });

  it('publish without a topic is refused', async () => {
    await expect(call('queue::publish', { data: 1 })).rejects.toThrow(/topic/);
  });
});
