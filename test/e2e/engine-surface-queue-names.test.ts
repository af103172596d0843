/**
 * The original engine's queue function names on svc-queue, from the unmodified iii-sdk: `iii::durable::publish`
 * fans out to `durable:subscriber` triggers, and `iii::queue::redrive` / `redrive_message` / `discard_message`
 * work the dead letters with the original's answers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, TriggerAction, type IIIClient } from 'iii-sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { builtinMemory, startedQueue } from './queue-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const RUN = randomUUID().slice(0, 8);
let engine: EngineProcess;
let queue: Child;
let iii: IIIClient;
const received: unknown[] = [];

beforeAll(async () => {
  engine = await startEngine();
  queue = await startedQueue(engine.url, { adapter: builtinMemory({ max_attempts: 1, backoff_ms: 50 }) });
  iii = registerWorker(engine.url, { otel: { enabled: false } });
  iii.registerFunction('names::subscriber', async (data: unknown) => void received.push(data));
  iii.registerFunction('names::fails', async () => {
    throw new Error('always fails');
  });
  iii.registerTrigger({ type: 'durable:subscriber', function_id: 'names::subscriber', config: { topic: `t-${RUN}` } });
});

afterAll(async () => {
  await iii?.shutdown();
  await queue?.stop();
  await engine?.stop();
});

const call = <T>(function_id: string, payload: unknown): Promise<T> =>
  iii.trigger<unknown, T>({ function_id, payload });

async function deadLetters(q: string): Promise<{ id: string }[]> {
  const page = await call<{ messages: { id: string }[] }>('engine::queue::dlq_messages', { topic: q });
  return page.messages;
}

describe('iii::durable::publish', () => {
  it('delivers the data to every durable:subscriber of the topic', async () => {
    await waitFor(
      async () => {
        await call('iii::durable::publish', { topic: `t-${RUN}`, data: { n: received.length } });
        return received.length > 0;
      },
      10_000,
      'a published message to reach the subscriber',
    );
    expect(received[0]).toMatchObject({ n: expect.any(Number) });
  });

  it('refuses a publish without a topic with topic_not_set', async () => {
    await expect(call('iii::durable::publish', { data: {} })).rejects.toMatchObject({ code: 'topic_not_set' });
  });
});

describe('iii::queue::*', () => {
  it('redrive_message, discard_message and redrive answer as the original', async () => {
    const q = `dlq-${RUN}`;
    for (let i = 0; i < 3; i++) {
      await iii.trigger({ function_id: 'names::fails', payload: { i }, action: TriggerAction.Enqueue({ queue: q }) });
    }
    await waitFor(async () => (await deadLetters(q)).length === 3, 10_000, 'three dead letters');
    const [first, second] = await deadLetters(q);
    expect(await call('iii::queue::redrive_message', { queue: q, message_id: first!.id })).toEqual({
      queue: q,
      message_id: first!.id,
      redriven: true,
    });
    expect(await call('iii::queue::discard_message', { queue: q, message_id: second!.id })).toMatchObject({
      queue: q,
      message_id: second!.id,
    });
    await waitFor(async () => (await deadLetters(q)).length === 2, 10_000, 'the redriven job to fail again');
    expect(await call('iii::queue::redrive', { queue: q })).toEqual({ queue: q, redriven: 2 });
  });
});
