/**
 * `startEngine` with an engine module: the module's SDK client reaches the core in-process (no socket, no JSON)
 * and is a worker like any other, callable from a WebSocket worker and able to call one.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonText, registerWorker, type SvcClient } from '@svc/sdk';
import { startEngine, type RunningEngine } from '../src/engine.js';
import type { EngineModule, ModuleContext } from '../src/modules/module.js';

const logger = pino({ level: 'silent' });
let engine: RunningEngine;
let moduleClient: SvcClient;
let remote: SvcClient;

const testModule: EngineModule = {
  name: 'test::Module',
  async start(ctx: ModuleContext) {
    moduleClient = await ctx.connect('test-module');
    moduleClient.registerFunction('mod::add', (p: { a: number; b: number }) => ({ sum: p.a + p.b }));
    moduleClient.registerFunction('mod::stored', () => new JsonText('{"kept":[1,2]}'));
  },
  async close() {
    // the engine closes the module's client itself
  },
};

beforeAll(async () => {
  engine = await startEngine({ port: 0, host: '127.0.0.1', modules: [testModule], logger, heartbeatIntervalMs: 0 });
  remote = registerWorker(engine.url, { workerName: 'remote', logger });
  remote.registerFunction('remote::twice', (p: { n: number }) => ({ n: p.n * 2 }));
  await remote.ready();
});

afterAll(async () => {
  await remote?.shutdown();
  await engine?.close();
});

describe('in-process module clients', () => {
  it('serve calls from a WebSocket worker', async () => {
    await expect(remote.trigger({ function_id: 'mod::add', payload: { a: 2, b: 3 } })).resolves.toEqual({ sum: 5 });
  });

  it('call WebSocket workers, without mutating the payload they passed', async () => {
    const payload = { n: 21 };
    await expect(moduleClient.trigger({ function_id: 'remote::twice', payload })).resolves.toEqual({ n: 42 });
    expect(payload).toEqual({ n: 21 });
  });

  it('answer with the value a JsonText result stands for, to WebSocket and in-process callers alike', async () => {
    await expect(remote.trigger({ function_id: 'mod::stored', payload: {} })).resolves.toEqual({ kept: [1, 2] });
    const own = await moduleClient.trigger({ function_id: 'mod::stored', payload: {} });
    expect(own).toEqual({ kept: [1, 2] });
    expect(own).not.toBeInstanceOf(JsonText);
  });

  it('take a JsonText payload as the value it stands for, from WebSocket and in-process callers alike', async () => {
    const payload = new JsonText('{"a":2,"b":3}');
    await expect(remote.trigger({ function_id: 'mod::add', payload })).resolves.toEqual({ sum: 5 });
    await expect(moduleClient.trigger({ function_id: 'mod::add', payload })).resolves.toEqual({ sum: 5 });
    await expect(
      moduleClient.trigger({ function_id: 'remote::twice', payload: new JsonText('{"n":4}') }),
    ).resolves.toEqual({ n: 8 });
  });

  it('appear in engine::workers::list as in-process workers', async () => {
    const list = await remote.trigger<{ workers: { name: string; isolation: string; runtime: string }[] }>({
      function_id: 'engine::workers::list',
      payload: {},
    });
    expect(list.workers).toContainEqual(
      expect.objectContaining({ name: 'test-module', isolation: 'in-process', runtime: 'engine' }),
    );
  });

  it('close() is idempotent and closes modules once', async () => {
    let closes = 0;
    const counting: EngineModule = {
      name: 'test::Counting',
      start: async () => undefined,
      close: async () => {
        closes++;
      },
    };
    const other = await startEngine({ port: 0, host: '127.0.0.1', modules: [counting], logger });
    await Promise.all([other.close(), other.close()]);
    expect(closes).toBe(1);
  });
});

describe('calls from engine modules', () => {
  it('forward data unchanged (no _caller_worker_id), like trigger-fired calls', async () => {
    const seen: unknown[] = [];
    remote.registerFunction('remote::seen', (p: unknown) => {
      seen.push(p);
      return null;
    });
    await new Promise((r) => setTimeout(r, 50));
    await moduleClient.trigger({ function_id: 'remote::seen', payload: { a: 1 } });
    expect(seen).toEqual([{ a: 1 }]);
  });
});

describe('unencodable results from an engine module', () => {
  it('reach a WebSocket caller as serialization_error instead of leaving it waiting', async () => {
    moduleClient.registerFunction('mod::bigint', () => ({ n: 10n }));
    await new Promise((r) => setTimeout(r, 50));
    await expect(remote.trigger({ function_id: 'mod::bigint', payload: {}, timeoutMs: 3000 })).rejects.toMatchObject({
      code: 'serialization_error',
    });
  });
});
