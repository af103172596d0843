/**
 * The `enqueue` action handler (built-in module): over in-memory connections, a call made with
 * `action: enqueue` goes to the `engine::queue::enqueue` provider and the caller gets the engine-owned receipt.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEnqueueModule, NO_QUEUE_PROVIDER_MESSAGE } from '../src/modules/enqueue/index.js';
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
