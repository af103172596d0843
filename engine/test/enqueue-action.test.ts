/**
 * The `enqueue` action handler (built-in module): over in-memory connections, a call made with
 * `action: enqueue` goes to the `engine::queue::enqueue` provider and the caller gets the engine-owned receipt.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createEnqueueModule,
  ENQUEUE_BATCH_FUNCTION_ID,
  MAX_BATCH_JOBS,
  MAX_BATCH_TEXT,
  NO_QUEUE_PROVIDER_MESSAGE,
} from '../src/modules/enqueue/index.js';
import { moduleTestBed } from './module-context.js';

async function setup() {
  const bed = moduleTestBed();
  const module = createEnqueueModule();
  await module.start(bed.ctx);
  const caller = bed.connect();
  const enqueue = (functionId: string, data: unknown, queue = 'jobs'): string => {
    const id = randomUUID();
    bed.core.receive(caller.worker, {
      type: 'invokefunction',
      invocation_id: id,
      function_id: functionId,
      data,
      action: { type: 'enqueue', queue },
    });
    return id;
  };
  return { ...bed, module, caller, enqueue };
}

describe('enqueue action handler', () => {
  it('answers enqueue_error with the how-to message when no queue provider is connected', async () => {
    const { caller, enqueue } = await setup();
    enqueue('f', {});
    expect(caller.conn.of('invocationresult')[0]?.error).toEqual({
      code: 'enqueue_error',
      message: NO_QUEUE_PROVIDER_MESSAGE,
    });
  });

  it('goes through engine::queue::enqueue and returns the engine-owned receipt', async () => {
    const { core, connect, caller, enqueue } = await setup();
    const queue = connect();
    core.receive(queue.worker, { type: 'registerfunction', id: 'engine::queue::enqueue' });
    const id = enqueue('jobs::run', { n: 1 });
    const [call] = queue.conn.of('invokefunction');
    const data = call!.data as { messageReceiptId: string };
    expect(data).toMatchObject({ queue: 'jobs', function_id: 'jobs::run', data: { n: 1 }, traceparent: null });
    core.receive(queue.worker, {
      type: 'invocationresult',
      invocation_id: call!.invocation_id!,
      function_id: 'engine::queue::enqueue',
      result: { whatever: 1 },
    });
    expect(caller.conn.of('invocationresult')[0]).toMatchObject({
      invocation_id: id,
      result: { messageReceiptId: data.messageReceiptId },
    });
  });

  it('maps a provider failure to enqueue_error', async () => {
    const { core, connect, caller, enqueue } = await setup();
    const queue = connect();
    core.receive(queue.worker, { type: 'registerfunction', id: 'engine::queue::enqueue' });
    enqueue('jobs::run', {});
    const [call] = queue.conn.of('invokefunction');
    core.receive(queue.worker, {
      type: 'invocationresult',
      invocation_id: call!.invocation_id!,
      function_id: 'engine::queue::enqueue',
      error: { code: 'x', message: 'disk full' },
    });
    expect(caller.conn.of('invocationresult')[0]?.error).toEqual({ code: 'enqueue_error', message: 'disk full' });
  });

  it('leaves the action unhandled once the module is closed', async () => {
    const { module, caller, enqueue } = await setup();
    await module.close();
    enqueue('f', {});
    expect(caller.conn.of('invocationresult')[0]?.error?.code).toBe('action_unsupported');
  });
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A provider of both the single and the batched hand-over, as svc-queue registers them. */
async function batchSetup() {
  const bed = await setup();
  const queue = bed.connect();
  bed.core.receive(queue.worker, { type: 'registerfunction', id: 'engine::queue::enqueue' });
  bed.core.receive(queue.worker, { type: 'registerfunction', id: ENQUEUE_BATCH_FUNCTION_ID });
  const answer = (invocationId: string, outcome: { result?: unknown; error?: { code: string; message: string } }) =>
    bed.core.receive(queue.worker, {
      type: 'invocationresult',
      invocation_id: invocationId,
      function_id: ENQUEUE_BATCH_FUNCTION_ID,
      ...outcome,
    });
  return { ...bed, queue, answer };
}

type Job = { queue: string; function_id: string; data: unknown; messageReceiptId: string };

describe('enqueue action handler, batched hand-over', () => {
  it("hands a turn's enqueues to the provider in one call and answers each caller with its own outcome", async () => {
    const { caller, queue, enqueue, answer } = await batchSetup();
    const ids = [enqueue('a::run', { n: 1 }), enqueue('b::run', { n: 2 }, 'other'), enqueue('c::run', null)];
    expect(queue.conn.of('invokefunction')).toHaveLength(0); // sent at the end of the turn
    await turn();
    const calls = queue.conn.of('invokefunction');
    expect(calls.map((c) => c.function_id)).toEqual([ENQUEUE_BATCH_FUNCTION_ID]);
    const { jobs } = calls[0]!.data as { jobs: Job[] };
    expect(jobs).toMatchObject([
      { queue: 'jobs', function_id: 'a::run', data: { n: 1 }, traceparent: null, baggage: null },
      { queue: 'other', function_id: 'b::run', data: { n: 2 } },
      { queue: 'jobs', function_id: 'c::run', data: null },
    ]);
    expect(new Set(jobs.map((j) => j.messageReceiptId)).size).toBe(3);
    answer(calls[0]!.invocation_id!, {
      result: {
        results: [
          { messageReceiptId: jobs[0]!.messageReceiptId },
          { error: { code: 'queue_store_failed', message: 'disk full' } },
          { messageReceiptId: jobs[2]!.messageReceiptId },
        ],
      },
    });
    const byId = new Map(caller.conn.of('invocationresult').map((r) => [r.invocation_id, r]));
    expect(byId.get(ids[0]!)).toMatchObject({ result: { messageReceiptId: jobs[0]!.messageReceiptId } });
    expect(byId.get(ids[1]!)?.error).toEqual({ code: 'enqueue_error', message: 'disk full' });
    expect(byId.get(ids[2]!)).toMatchObject({ result: { messageReceiptId: jobs[2]!.messageReceiptId } });
  });

  it('a failed batch call fails each of its callers with enqueue_error; a job without an outcome fails too', async () => {
    const { caller, queue, enqueue, answer } = await batchSetup();
    const first = [enqueue('f', 1), enqueue('f', 2)];
    await turn();
    answer(queue.conn.of('invokefunction')[0]!.invocation_id!, { error: { code: 'x', message: 'provider gone' } });
    const second = [enqueue('f', 3), enqueue('f', 4)];
    await turn();
    const call = queue.conn.of('invokefunction')[1]!;
    const { jobs } = call.data as { jobs: Job[] };
    answer(call.invocation_id!, { result: { results: [{ messageReceiptId: jobs[0]!.messageReceiptId }] } });
    const byId = new Map(caller.conn.of('invocationresult').map((r) => [r.invocation_id, r]));
    for (const id of first) expect(byId.get(id)?.error).toEqual({ code: 'enqueue_error', message: 'provider gone' });
    expect(byId.get(second[0]!)?.result).toEqual({ messageReceiptId: jobs[0]!.messageReceiptId });
    expect(byId.get(second[1]!)?.error).toEqual({
      code: 'enqueue_error',
      message: 'the queue provider gave no outcome for this job',
    });
  });

  it(`splits a turn into calls of at most ${MAX_BATCH_JOBS} jobs, and groups them by the caller's deadline`, async () => {
    const { core, caller, queue } = await batchSetup();
    const send = (timeout_ms: number | undefined) =>
      core.receive(caller.worker, {
        type: 'invokefunction',
        invocation_id: randomUUID(),
        function_id: 'f',
        data: {},
        action: { type: 'enqueue', queue: 'jobs' },
        ...(timeout_ms === undefined ? {} : { timeout_ms }),
      });
    for (let i = 0; i < MAX_BATCH_JOBS + 3; i++) send(undefined);
    send(500);
    await turn();
    const sizes = queue.conn.of('invokefunction').map((c) => (c.data as { jobs: unknown[] }).jobs.length);
    expect(sizes).toEqual([MAX_BATCH_JOBS, 3, 1]);
  });

  it(`keeps each call under ${MAX_BATCH_TEXT} characters of JSON; a larger job goes alone`, async () => {
    const { queue, enqueue } = await batchSetup();
    const third = 'x'.repeat(MAX_BATCH_TEXT / 3);
    for (let i = 0; i < 3; i++) enqueue('f', { text: third });
    enqueue('f', { text: 'y'.repeat(MAX_BATCH_TEXT) });
    enqueue('f', { small: true });
    await turn();
    const batches = queue.conn.of('invokefunction').map((c) => (c.data as { jobs: Job[] }).jobs);
    expect(batches.map((jobs) => jobs.length)).toEqual([2, 1, 1, 1]);
    expect(batches.slice(0, 2).every((jobs) => JSON.stringify({ jobs }).length <= MAX_BATCH_TEXT)).toBe(true);
  });

  it('hands over one call per enqueue while a lifecycle observer watches invocations (its spans and metrics)', async () => {
    const { ctx, queue, enqueue } = await batchSetup();
    const started: string[] = [];
    ctx.hooks.observe({ invocationStarted: (e) => void started.push(e.functionId) });
    enqueue('f', 1);
    enqueue('f', 2);
    await turn();
    expect(queue.conn.of('invokefunction').map((c) => c.function_id)).toEqual([
      'engine::queue::enqueue',
      'engine::queue::enqueue',
    ]);
    expect(started).toEqual(['engine::queue::enqueue', 'engine::queue::enqueue']);
  });
});
