/**
 * Trigger-type providers against the real engine: bindings reach the provider (and refusals reach the binder),
 * `fireTrigger` applies `condition_function_id`, and an engine restart replays every registration (same trigger
 * ids) while a call made during the outage completes after the reconnect.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../../test/harness.js';
import type { SvcClient, TriggerBinding } from '../src/index.js';
import { barrier, connect, shutdownAll } from './support.js';

let engine: EngineProcess;
let provider: SvcClient;
let app: SvcClient;
const bound = new Map<string, TriggerBinding>();
const unbound: string[] = [];

beforeAll(async () => {
  engine = await startEngine({ bare: true });
  provider = connect(engine.url, 'prov-provider');
  app = connect(engine.url, 'prov-app');
  provider.registerTriggerType(
    { id: 'sdk-test-type', description: 'test type' },
    {
      registerTrigger(binding) {
        const cfg = binding.config as { refuse?: string };
        if (cfg.refuse !== undefined) throw new Error(`refused: ${cfg.refuse}`);
        bound.set(binding.id, binding);
      },
      unregisterTrigger(binding) {
        bound.delete(binding.id);
        unbound.push(binding.id);
      },
    },
  );
  await Promise.all([provider.ready(), app.ready()]);
  await barrier(provider);
});

afterAll(async () => {
  await shutdownAll();
  await engine?.stop();
});

/** Stops the engine and starts a new one on the same port (what a supervisor restart looks like to workers). */
async function restartEngine(): Promise<void> {
  await engine.stop(5000);
  engine = await startEngine({ bare: true, port: engine.port });
}

describe('trigger-type providers', () => {
  it('delivers a binding to the provider and its removal when the binder unregisters it', async () => {
    app.registerFunction('prov::target', () => 'ok');
    const ref = app.registerTrigger({ type: 'sdk-test-type', function_id: 'prov::target', config: { x: 1 } });
    await waitFor(() => bound.has(ref.id), 3000, 'binding at the provider');
    expect(bound.get(ref.id)).toMatchObject({ function_id: 'prov::target', config: { x: 1 } });
    ref.unregister();
    await waitFor(() => unbound.includes(ref.id), 3000, 'unbinding at the provider');
  });

  it('fireTrigger runs the function only when the condition returns a truthy value', async () => {
    const ran: unknown[] = [];
    app.registerFunction('prov::fired', (p: { n: number }) => {
      ran.push(p.n);
      return { doubled: p.n * 2 };
    });
    app.registerFunction('prov::is-even', (p: { n: number }) => p.n % 2 === 0);
    app.registerFunction('prov::broken', () => {
      throw new Error('condition broke');
    });
    const withCond = app.registerTrigger({
      type: 'sdk-test-type',
      function_id: 'prov::fired',
      config: { condition_function_id: 'prov::is-even' },
    });
    const broken = app.registerTrigger({
      type: 'sdk-test-type',
      function_id: 'prov::fired',
      config: { condition_function_id: 'prov::broken' },
    });
    const plain = app.registerTrigger({ type: 'sdk-test-type', function_id: 'prov::fired', config: {} });
    await waitFor(() => bound.has(withCond.id) && bound.has(broken.id) && bound.has(plain.id), 3000, 'bindings');
    const b = (id: string) => bound.get(id) as TriggerBinding;

    await expect(provider.fireTrigger(b(withCond.id), { n: 3 })).resolves.toEqual({ fired: false });
    await expect(provider.fireTrigger(b(withCond.id), { n: 4 })).resolves.toMatchObject({
      fired: true,
      result: { doubled: 8 },
    });
    await expect(provider.fireTrigger(b(broken.id), { n: 6 })).resolves.toEqual({ fired: false });
    await expect(provider.fireTrigger(b(plain.id), { n: 5 })).resolves.toMatchObject({ fired: true });
    expect(ran).toEqual([4, 5]);
  });

  it('a binding the provider refuses is reported to the binder and not kept', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const binder = connect(engine.url, 'prov-binder', { logger });
    binder.registerFunction('prov::refused', () => 'never');
    const ref = binder.registerTrigger({
      type: 'sdk-test-type',
      function_id: 'prov::refused',
      config: { refuse: 'no' },
    });
    await waitFor(() => lines.some((l) => l.includes('refused: no')), 3000, 'the refusal at the binder');
    const report = JSON.parse(lines.find((l) => l.includes('refused: no')) as string) as Record<string, unknown>;
    expect(report).toMatchObject({ trigger_id: ref.id, code: 'trigger_registration_failed', level: 50 });
    expect(bound.has(ref.id)).toBe(false);
  });

  it('after an engine restart, registrations are replayed with the same trigger ids and calls work again', async () => {
    app.registerFunction('prov::alive', (p: unknown) => ({ alive: p }));
    const ref = app.registerTrigger({ type: 'sdk-test-type', function_id: 'prov::alive', config: { r: 1 } });
    await waitFor(() => bound.has(ref.id), 3000, 'binding before restart');
    const before = [...bound.keys()].sort();
    const oldWorkerId = app.workerId;

    await restartEngine();
    // The connection drop deactivates every binding at the provider; the replay brings the live ones back.
    await waitFor(() => app.workerId !== oldWorkerId, 10000, 'the app to reconnect');
    await waitFor(() => before.every((id) => bound.has(id)), 10000, 'bindings re-delivered with the same ids');
    expect([...bound.keys()].sort()).toEqual(before);
    await expect(provider.trigger({ function_id: 'prov::alive', payload: 1 })).resolves.toEqual({ alive: 1 });
  });

  it('a call made while the engine is down completes after the reconnect', async () => {
    app.registerFunction('prov::later', () => 'later');
    await barrier(app);
    await engine.stop(5000);
    // Called from the worker that owns the function: its replay re-registers it before flushing the queued call.
    const during = app.trigger({ function_id: 'prov::later', payload: {}, timeoutMs: 15000 });
    engine = await startEngine({ bare: true, port: engine.port });
    await expect(during).resolves.toBe('later');
  });
});
