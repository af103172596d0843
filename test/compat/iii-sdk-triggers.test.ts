/**
 * Trigger-type providers with the real iii-sdk@0.22.1 (docs/protocol.md, 3.2 and 3.7): pending bindings delivered when
 * a provider appears, every binding delivered to every provider (one that joins later too), refusals forwarded to the
 * binding's owner, and an engine restart after which workers reconnect and re-register everything.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURE = 'test/compat/fixtures/iii-worker.mjs';
let engine: EngineProcess;
let owner: IIIClient;
const children: Child[] = [];
const fired: unknown[] = [];

function provider(name: string): Child {
  const child = spawnWorker(FIXTURE, { SVC_URL: engine.url, FN_PREFIX: name, WORKER_NAME: name, PROVIDE_TYPE: 'tick' });
  children.push(child);
  return child;
}

async function bindings(): Promise<{ id: string; status: string; config: Record<string, unknown> }[]> {
  const answer = await rawCall(engine.url, 'engine::registered-triggers::list', { trigger_type: 'tick' });
  return (answer.result as { registered_triggers: never[] }).registered_triggers;
}

beforeAll(async () => {
  engine = await startEngine();
  owner = registerWorker(engine.url, {
    otel: { enabled: false },
    workerName: 'trigger-owner',
    reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 300 },
  });
  owner.registerFunction('owner::handler', async (data: unknown) => {
    fired.push(data);
    return { handled: true };
  });
});

afterAll(async () => {
  await owner?.shutdown();
  await Promise.all(children.map((c) => c.kill()));
  await engine?.stop();
});

describe('trigger-type providers', () => {
  it('parks a binding without a provider, delivers it when one appears, and to a second provider too', async () => {
    owner.registerTrigger({ type: 'tick', function_id: 'owner::handler', config: { fire: true, n: 1 } });
    await waitFor(async () => (await bindings()).length === 1, 3000, 'the binding');
    expect((await bindings())[0]?.status).toBe('pending');

    const p1 = provider('prov1');
    await p1.waitForOutput(/bound .*"function_id":"owner::handler"/);
    await p1.waitForOutput(/fired \{"handled":true\}/);
    expect(fired).toContainEqual(expect.objectContaining({ by: p1.proc.pid }));
    expect((await bindings())[0]?.status).toBe('active');

    const p2 = provider('prov2');
    await p2.waitForOutput(/bound .*"function_id":"owner::handler"/);
  });

  it('forwards a provider refusal to the worker that registered the binding', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      owner.registerTrigger({ type: 'tick', function_id: 'owner::handler', config: { refuse: 'no thanks' } });
      await waitFor(
        () => errors.mock.calls.some((args) => String(args[0]).includes('refused: no thanks')),
        3000,
        'the forwarded refusal',
      );
      await waitFor(async () => (await bindings()).some((b) => b.status === 'failed'), 2000, 'failed status');
    } finally {
      errors.mockRestore();
    }
  });

  it('after an engine restart, workers reconnect and re-register functions and triggers with the same ids', async () => {
    const before = (await bindings()).map((b) => b.id).sort();
    const p = provider('prov3');
    await p.waitForOutput(/ready /);
    engine = await engine.restart();
    await waitFor(async () => (await bindings()).length === before.length, 10_000, 'bindings to come back');
    expect((await bindings()).map((b) => b.id).sort()).toEqual(before);
    await waitFor(
      async () => (await rawCall(engine.url, 'engine::functions::info', { function_id: 'prov3::echo' })).result,
      10_000,
    );
    const result = (await owner.trigger({ function_id: 'prov3::echo', payload: { after: 'restart' } })) as {
      echo: { after: string };
    };
    expect(result.echo.after).toBe('restart');
    // prov3 held the one acceptable binding before the restart; the replay delivers it again
    await waitFor(() => (p.logs().match(/bound /g) ?? []).length >= 2, 5000, 're-delivery to the provider');
  });
});
