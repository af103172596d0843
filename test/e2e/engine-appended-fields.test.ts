/**
 * Appended fields against the real engine (docs/protocol.md, 3.3): to an executor that announced
 * `x-svc-features: appended-fields` the engine forwards a caller's call as it came with its own fields added at the
 * end of the frame, and our SDK puts the caller's id into `data` itself, so a handler sees what one behind an
 * executor without the feature sees: `_caller_worker_id` naming the calling worker, whatever the caller wrote.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { startEngine, waitForFunction, type EngineProcess } from '../harness.js';
import { openRaw, type RawClient } from './engine-raw-client.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let ours: SvcClient;
const seen: unknown[] = [];
const open: RawClient[] = [];

beforeAll(async () => {
  engine = await startEngine();
  ours = registerWorker(engine.url, { workerName: 'appended-executor', logger: pino({ level: 'silent' }) });
  ours.registerFunction('appended::echo', (data: unknown) => {
    seen.push(data);
    return data;
  });
  await waitForFunction(engine.url, 'appended::echo');
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await ours?.shutdown();
  await engine?.stop();
});

async function raw(headers: Record<string, string> = {}): Promise<RawClient> {
  const c = await openRaw(engine.url, headers);
  open.push(c);
  return c;
}

/** A call the caller wrote itself, trying both places the caller's id goes. */
function forgedCall(functionId: string, data: unknown): { id: string; text: string } {
  const id = randomUUID();
  const frame = { type: 'invokefunction', invocation_id: id, function_id: functionId, data, caller_worker_id: 'x' };
  return { id, text: JSON.stringify(frame) };
}

/**
 * A forged call from a raw caller to `functionId` on a raw executor that announced `features` (none: undefined),
 * with the call as the executor got it, parsed and as every text it received.
 */
async function forwardedTo(functionId: string, features: string | undefined, data: unknown) {
  const executor = await raw(features === undefined ? {} : { 'x-svc-features': features });
  const texts: string[] = [];
  executor.ws.on('message', (m: Buffer) => texts.push(m.toString()));
  executor.send({ type: 'registerfunction', id: functionId });
  await waitForFunction(engine.url, functionId);
  const caller = await raw();
  const { id, text } = forgedCall(functionId, data);
  caller.send(text);
  const call = await executor.next((f) => f.type === 'invokefunction' && f.invocation_id === id);
  return { executor, caller, id, text, call, texts };
}

describe('appended fields', () => {
  it("gives our SDK's handler the calling worker's id in data, over what the caller wrote", async () => {
    const caller = await raw();
    const { id, text } = forgedCall('appended::echo', { n: 1, _caller_worker_id: 'forged' });
    caller.send(text);
    const answer = await caller.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
    expect(answer.result).toEqual({ n: 1, _caller_worker_id: caller.workerId });
    expect(seen.at(-1)).toEqual({ n: 1, _caller_worker_id: caller.workerId });
  });

  it('leaves data that is not an object as it came', async () => {
    const caller = await raw();
    const { id, text } = forgedCall('appended::echo', ['a', 1]);
    caller.send(text);
    const answer = await caller.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
    expect(answer.result).toEqual(['a', 1]);
  });

  it('sends the call as it came with the fields appended to an executor that announced the feature', async () => {
    const { executor, caller, id, text, call, texts } = await forwardedTo('appended::raw', 'appended-fields', {
      n: 2,
    });
    expect(texts.find((t) => t.includes(id))).toBe(`${text.slice(0, -1)},"caller_worker_id":"${caller.workerId}"}`);
    // read as JSON.parse reads it: the last of the repeated key wins
    expect(call.caller_worker_id).toBe(caller.workerId);
    expect(call.data).toEqual({ n: 2 });
    executor.send({ type: 'invocationresult', invocation_id: id, function_id: 'appended::raw', result: 'ok' });
    await caller.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
  });

  it('splices the id into data for an executor that did not announce it, as before', async () => {
    const { caller, call } = await forwardedTo('appended::plain', undefined, { n: 3 });
    expect(call.data).toEqual({ _caller_worker_id: caller.workerId, n: 3 });
    expect(call.caller_worker_id).toBe('x');
  });
});
