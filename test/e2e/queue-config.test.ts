/**
 * svc-queue spawned by the engine from its config file (`modules::queue::QueueModule`, supervised): Enqueue works
 * with the resolved config (queue_configs applied), exactly as when started by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { builtinMemory, client, spawnQueue } from './queue-support.js';

let engine: EngineProcess;
let worker: SvcClient;
const seen: number[] = [];

beforeAll(async () => {
  engine = await startEngine({
    modules: [
      {
        class: 'modules::queue::QueueModule',
        config: { queue_configs: { ordered: { type: 'fifo' } }, adapter: builtinMemory() },
      },
    ],
  });
  worker = client(engine.url, 'queue-config-e2e');
  worker.registerFunction('qcfg::record', async (p: { n: number }) => {
    await new Promise((r) => setTimeout(r, 2));
    seen.push(p.n);
  });
  await worker.ready();
});

afterAll(async () => {
  await worker?.shutdown();
  await engine?.stop();
});

describe('svc-queue from the engine config', () => {
  it('serves TriggerAction.Enqueue, and the fifo queue from queue_configs runs in order', async () => {
    const enqueue = (n: number) =>
      worker.trigger<{ messageReceiptId: string }>({
        function_id: 'qcfg::record',
        payload: { n },
        action: TriggerAction.Enqueue({ queue: 'ordered' }),
      });
    await waitFor(() => enqueue(0).then(() => true), 15_000, 'svc-queue to be up');
    for (let n = 1; n <= 20; n++) await enqueue(n);
    await waitFor(() => seen.length >= 21, 5_000, '21 runs');
    expect(seen).toEqual(Array.from({ length: 21 }, (_, i) => i));
  });

  it('a bad config stops svc-queue with exit code 2 and a message naming the key', async () => {
    const bad = spawnQueue(engine.url, {
      adapter: { class: 'modules::queue::BuiltinQueueAdapter', config: { mode: 'lifo' } },
    });
    expect(await bad.exit).toBe(2);
    expect(bad.logs()).toMatch(/adapter\.config\.mode/);
  });

  it('a Bridge adapter whose engine cannot be reached stops svc-queue with a clear error', async () => {
    const bridge = spawnQueue(engine.url, {
      adapter: { class: 'modules::queue::adapters::Bridge', config: { bridge_url: 'ws://127.0.0.1:1' } },
    });
    expect(await bridge.exit).not.toBe(0);
    expect(bridge.logs()).toMatch(/engine ws:\/\/127\.0\.0\.1:1 not reachable/);
  });

  it('queue_configs next to a Bridge adapter are refused, naming the key', async () => {
    const bridge = spawnQueue(engine.url, {
      queue_configs: { orders: { concurrency: 2 } },
      adapter: { class: 'modules::queue::adapters::Bridge', config: { bridge_url: engine.url } },
    });
    expect(await bridge.exit).toBe(2);
    expect(bridge.logs()).toMatch(/queue_configs do not apply/);
  });
});
