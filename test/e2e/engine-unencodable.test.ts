/**
 * A call whose data the engine cannot encode for its executor (nested 100,000 levels deep, sent by a raw JSON
 * client) gets `serialization_error` saying so, not "the worker … is gone"; the worker is healthy and keeps
 * answering.
 */
import type { SvcClient } from '@svc/sdk';
import { registerWorker } from '@svc/sdk';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitForFunction, type EngineProcess } from '../harness.js';
import { openRaw, type RawClient } from './engine-raw-client.js';

let engine: EngineProcess;
let worker: SvcClient;
let raw: RawClient;

beforeAll(async () => {
  engine = await startEngine();
  worker = registerWorker(engine.url, { workerName: 'deep', logger: pino({ level: 'silent' }) });
  worker.registerFunction('deep::echo', (payload: unknown) => Promise.resolve({ kind: typeof payload }));
  await waitForFunction(engine.url, 'deep::echo');
  raw = await openRaw(engine.url);
});

afterAll(async () => {
  await raw?.close();
  await worker?.shutdown();
  await engine?.stop();
});

function call(id: string, dataText: string): void {
  raw.send(`{"type":"invokefunction","invocation_id":"${id}","function_id":"deep::echo","data":${dataText}}`);
}

describe('data the engine cannot encode', () => {
  it('gets serialization_error naming the problem; the worker is not blamed and keeps working', async () => {
    const depth = 100_000;
    const deepId = '11111111-1111-4111-8111-111111111111';
    call(deepId, `${'['.repeat(depth)}${']'.repeat(depth)}`);
    const deep = await raw.next((f) => f.type === 'invocationresult' && f['invocation_id'] === deepId, 10000);
    const error = deep['error'] as { code: string; message: string };
    expect(error.code).toBe('serialization_error');
    expect(error.message).toContain('cannot be encoded');
    expect(error.message).toContain('nested too deeply');
    expect(error.message).not.toContain('gone');

    const okId = '22222222-2222-4222-8222-222222222222';
    call(okId, '{"n":1}');
    const ok = await raw.next((f) => f.type === 'invocationresult' && f['invocation_id'] === okId, 10000);
    expect(ok['result']).toEqual({ kind: 'object' });
    expect(ok['error']).toBeUndefined();
  });
});
