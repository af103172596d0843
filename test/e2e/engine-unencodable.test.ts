/**
 * A call whose data the engine cannot encode for its executor (nested 100,000 levels deep, sent by a raw JSON
 * client, to an executor that takes calls only as the engine writes them) gets `serialization_error` saying so, not
 * "the worker … is gone"; the worker is healthy and keeps answering. To our SDK, which reads a call as the caller
 * wrote it (appended fields, docs/protocol.md 3.3), the same data goes as it came and its handler runs.
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
/** An executor that announced no feature: a call with an array payload reaches it re-encoded by the engine. */
let plain: RawClient;

beforeAll(async () => {
  engine = await startEngine();
  worker = registerWorker(engine.url, { workerName: 'deep', logger: pino({ level: 'silent' }) });
  worker.registerFunction('deep::echo', (payload: unknown) => Promise.resolve({ kind: typeof payload }));
  await waitForFunction(engine.url, 'deep::echo');
  raw = await openRaw(engine.url);
  plain = await openRaw(engine.url);
  plain.ws.on('message', (m: Buffer) => {
    const frame = JSON.parse(m.toString()) as { type: string; invocation_id?: string; function_id?: string };
    if (frame.type !== 'invokefunction') return;
    const answer = { invocation_id: frame.invocation_id, function_id: frame.function_id, result: { kind: 'object' } };
    plain.send({ type: 'invocationresult', ...answer });
  });
  plain.send({ type: 'registerfunction', id: 'deep::plain' });
  await waitForFunction(engine.url, 'deep::plain');
});

afterAll(async () => {
  await raw?.close();
  await plain?.close();
  await worker?.shutdown();
  await engine?.stop();
});

function call(id: string, dataText: string, functionId = 'deep::plain'): void {
  raw.send(`{"type":"invokefunction","invocation_id":"${id}","function_id":"${functionId}","data":${dataText}}`);
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

  it('goes as it came to a worker of our SDK, whose handler runs', async () => {
    const id = '33333333-3333-4333-8333-333333333333';
    call(id, `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'deep::echo');
    const answer = await raw.next((f) => f.type === 'invocationresult' && f['invocation_id'] === id, 10000);
    expect(answer['error']).toBeUndefined();
    expect(answer['result']).toEqual({ kind: 'object' });
  });
});
