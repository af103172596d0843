/**
 * The engine's own functions and topology triggers (docs/protocol.md, sections 1.6 and 4; docs/compatibility.md,
 * "Functions") through the real iii-sdk: shapes of engine::functions/workers/triggers/registered-triggers/health, and
 * workers-available / functions-available firing on every change without polling delay.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let watcher: IIIClient;
const workerEvents: { event: string; worker_id: string }[] = [];
const functionEvents: { event: string; functions: { function_id: string }[] }[] = [];

const connect = (name: string): IIIClient =>
  registerWorker(engine.url, {
    otel: { enabled: false },
    workerName: name,
    workerDescription: `${name} desc`,
  });

beforeAll(async () => {
  engine = await startEngine();
  watcher = connect('watcher');
  watcher.registerFunction('watch::workers', async (e: unknown) => {
    workerEvents.push(e as (typeof workerEvents)[number]);
  });
  watcher.registerFunction('watch::functions', async (e: unknown) => {
    functionEvents.push(e as (typeof functionEvents)[number]);
  });
  watcher.registerTrigger({ type: 'engine::workers-available', function_id: 'watch::workers', config: {} });
  watcher.registerTrigger({ type: 'engine::functions-available', function_id: 'watch::functions', config: {} });
  await waitFor(async () => {
    const r = (await watcher.trigger({
      function_id: 'engine::registered-triggers::list',
      payload: { include_internal: true },
    })) as {
      registered_triggers: { status: string }[];
    };
    return r.registered_triggers.filter((t) => t.status === 'active').length === 2;
  }, 5000);
});

afterAll(async () => {
  await watcher?.shutdown();
  await engine?.stop();
});

describe('topology triggers', () => {
  it('fire worker_connected, worker_metadata_updated and worker_disconnected, and functions_changed', async () => {
    const other = connect('other');
    other.registerFunction('other::thing', async () => 1, { description: 'a thing' });
    const id = await waitFor(async () => {
      const info = (await watcher.trigger({ function_id: 'engine::workers::info', payload: { name: 'other' } })) as {
        worker: { id: string };
      };
      return info.worker.id;
    }, 3000);
    await waitFor(() => workerEvents.some((e) => e.event === 'worker_metadata_updated' && e.worker_id === id), 3000);
    expect(workerEvents.some((e) => e.event === 'worker_connected' && e.worker_id === id)).toBe(true);
    await waitFor(() => functionEvents.some((e) => e.functions.some((f) => f.function_id === 'other::thing')), 3000);
    expect(functionEvents.at(-1)?.event).toBe('functions_changed');

    const before = Date.now();
    await other.shutdown();
    await waitFor(() => workerEvents.some((e) => e.event === 'worker_disconnected' && e.worker_id === id), 3000);
    await waitFor(() => !functionEvents.at(-1)?.functions.some((f) => f.function_id === 'other::thing'), 3000);
    expect(Date.now() - before).toBeLessThan(3000); // far below the original 5 s polling interval
  });
});

describe('engine functions', () => {
  it('engine::functions::list and info describe user functions, hiding engine::* unless asked', async () => {
    watcher.registerFunction('shape::fn', async () => 1, { description: 'shaped', metadata: { team: 'x' } });
    await new Promise((r) => setTimeout(r, 100));
    const list = (await watcher.trigger({ function_id: 'engine::functions::list', payload: {} })) as {
      functions: { function_id: string; worker_name: string; description?: string; metadata?: unknown }[];
    };
    expect(list.functions.find((f) => f.function_id === 'shape::fn')).toMatchObject({
      worker_name: 'watcher',
      description: 'shaped',
      metadata: { team: 'x' },
    });
    expect(list.functions.some((f) => f.function_id.startsWith('engine::'))).toBe(false);
    const ids = list.functions.map((f) => f.function_id);
    expect(ids).toEqual([...ids].sort());
    const all = (await watcher.trigger({
      function_id: 'engine::functions::list',
      payload: { include_internal: true },
    })) as {
      functions: { function_id: string }[];
    };
    expect(all.functions.map((f) => f.function_id)).toContain('engine::functions::list');

    const info = await watcher.trigger({
      function_id: 'engine::functions::info',
      payload: { function_id: 'shape::fn' },
    });
    expect(info).toMatchObject({ function_id: 'shape::fn', worker_name: 'watcher', registered_triggers: [] });
    const batch = (await watcher.trigger({
      function_id: 'engine::functions::info',
      payload: { function_ids: ['shape::fn', 'shape::missing'] },
    })) as { functions: unknown[] };
    expect(batch.functions[1]).toEqual({ function_id: 'shape::missing', error: 'not_found' });
    await expect(
      watcher.trigger({ function_id: 'engine::functions::info', payload: { function_id: 'shape::missing' } }),
    ).rejects.toThrow(/not found/);
  });

  it('engine::workers::list shows reported workers with their metadata; info lists what one registered', async () => {
    const list = (await watcher.trigger({ function_id: 'engine::workers::list', payload: {} })) as {
      workers: Record<string, unknown>[];
    };
    const me = list.workers.find((w) => w.name === 'watcher');
    expect(me).toMatchObject({ description: 'watcher desc', runtime: 'node', version: '0.22.1', isolation: null });
    for (const key of ['id', 'os', 'status', 'function_count', 'connected_at_ms', 'active_invocations', 'ip_address']) {
      expect(me).toHaveProperty(key);
    }
    const info = (await watcher.trigger({ function_id: 'engine::workers::info', payload: { name: 'watcher' } })) as {
      worker: { pid: number };
      functions: { function_id: string }[];
      registered_triggers: unknown[];
    };
    expect(typeof info.worker.pid).toBe('number');
    expect(info.functions.map((f) => f.function_id)).toContain('watch::workers');
    expect(info.registered_triggers).toHaveLength(2);
  });

  it('engine::triggers::list, registered-triggers::list and health::check have their documented shapes', async () => {
    const types = (await watcher.trigger({
      function_id: 'engine::triggers::list',
      payload: { include_internal: true },
    })) as {
      triggers: { id: string; worker_name: string; description: string }[];
    };
    expect(types.triggers.map((t) => t.id)).toEqual([
      'configuration',
      'engine::functions-available',
      'engine::workers-available',
    ]);
    const bindings = (await watcher.trigger({
      function_id: 'engine::registered-triggers::list',
      payload: { include_internal: true },
    })) as { registered_triggers: Record<string, unknown>[] };
    expect(bindings.registered_triggers[0]).toMatchObject({
      trigger_type: expect.any(String),
      function_id: expect.stringMatching(/^watch::/),
      worker_name: 'watcher',
      config: {},
      config_summary: '{}',
    });
    const health = await watcher.trigger({ function_id: 'engine::health::check', payload: {} });
    expect(health).toMatchObject({ status: 'healthy', components: expect.any(Object), version: expect.any(String) });
  });
});
