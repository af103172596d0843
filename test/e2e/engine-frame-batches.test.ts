/**
 * Frame batches against the real engine: a worker that announces `x-svc-features: batch` learns from the upgrade
 * answer that the engine accepts them, may send several frames in one message (separated by RS, U+001E), and gets
 * its frames in batches; each frame of a batch is handled on its own (a malformed one is answered, the others
 * go through). A worker that does not announce the feature gets one frame per message, and a message of its
 * holding RS is one frame that is not JSON.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const RS = '\x1e';

interface Frame {
  type: string;
  [key: string]: unknown;
}

/** A raw client that keeps every message as it came and every frame, split at RS when it announced batches. */
async function client(batches: boolean) {
  const ws = new WebSocket(engine.url, { headers: batches ? { 'x-svc-features': 'cancel,batch' } : {} });
  let answer: IncomingMessage | undefined;
  ws.on('upgrade', (res) => (answer = res));
  const messages: string[] = [];
  const frames: Frame[] = [];
  ws.on('message', (data: Buffer) => {
    const text = data.toString();
    messages.push(text);
    for (const piece of batches ? text.split(RS) : [text]) frames.push(JSON.parse(piece) as Frame);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await waitFor(() => frames.some((f) => f.type === 'workerregistered'), 5000, 'workerregistered');
  return { ws, messages, frames, features: answer?.headers['x-svc-features'] };
}

let engine: EngineProcess;

beforeAll(async () => {
  engine = await startEngine();
});

afterAll(async () => {
  await engine?.stop();
});

describe('frame batches', () => {
  it('carries calls and answers in batches both ways, each frame handled on its own', async () => {
    const executor = await client(true);
    expect(executor.features).toBe('batch');
    executor.ws.send(
      [JSON.stringify({ type: 'registerfunction', id: 'batches::echo' }), JSON.stringify({ type: 'ping' })].join(RS),
    );
    await waitFor(() => executor.frames.some((f) => f.type === 'pong'), 5000, 'pong after the registration');
    // the executor answers every call it gets, all of a message's answers in one batch of its own
    executor.ws.on('message', (data: Buffer) => {
      const calls = data
        .toString()
        .split(RS)
        .map((t) => JSON.parse(t) as Frame)
        .filter((f) => f.type === 'invokefunction');
      if (calls.length === 0) return;
      const answers = calls.map((c) =>
        JSON.stringify({
          type: 'invocationresult',
          invocation_id: c.invocation_id,
          function_id: c.function_id,
          result: c.data,
        }),
      );
      executor.ws.send(answers.join(RS));
    });

    const caller = await client(true);
    const ids: string[] = Array.from({ length: 20 }, () => randomUUID());
    const calls = ids.map((id, i) =>
      JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: 'batches::echo', data: { i } }),
    );
    // a malformed frame in the middle of the batch is answered; the frames around it are called
    calls.splice(10, 0, '{"type":"invokefunction","invocation_id":');
    caller.ws.send(calls.join(RS));
    await waitFor(() => caller.frames.filter((f) => f.type === 'invocationresult').length === 20, 5000, 'answers');
    const results = caller.frames.filter((f) => f.type === 'invocationresult');
    expect(results.map((r) => r.invocation_id).sort()).toEqual([...ids].sort());
    for (const r of results) {
      const i = ids.indexOf(r.invocation_id as string);
      expect(r.result).toMatchObject({ i });
    }
    const errors = caller.frames.filter((f) => f.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toMatchObject({ code: 'invalid_frame' });
    // the engine relayed the calls in batches: fewer messages than calls reached the executor
    const invokes = executor.frames.filter((f) => f.type === 'invokefunction').length;
    expect(invokes).toBe(20);
    expect(executor.messages.filter((m) => m.includes('"invokefunction"')).length).toBeLessThan(20);
    caller.ws.close();
    executor.ws.close();
  });

  it('sends one frame per message to a worker that did not announce batches, and splits none of its messages', async () => {
    const plain = await client(false);
    expect(plain.features).toBe('batch'); // what the engine accepts, said to every worker
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) {
      plain.ws.send(
        JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: 'engine::health::check', data: {} }),
      );
    }
    // RS in its message: one frame, and not JSON
    plain.ws.send([JSON.stringify({ type: 'ping' }), JSON.stringify({ type: 'ping' })].join(RS));
    await waitFor(() => plain.frames.some((f) => f.type === 'error'), 5000, 'the error');
    await waitFor(() => plain.frames.filter((f) => f.type === 'invocationresult').length === 2, 5000, 'answers');
    expect(plain.frames.find((f) => f.type === 'error')!.error).toMatchObject({ code: 'invalid_frame' });
    expect(plain.frames.some((f) => f.type === 'pong')).toBe(false);
    // every message held one frame (each parsed whole as JSON above); none held RS
    expect(plain.messages.every((m) => !m.includes(RS))).toBe(true);
    plain.ws.close();
  });
});
