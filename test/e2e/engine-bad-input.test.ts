/**
 * Bad input on the worker socket: malformed, unknown, incomplete and oversized frames, forged results, a registration
 * flood and a worker that stops reading. Each gets an error reply or a close, the engine stays up, and a healthy
 * iii-sdk pair running calls all along sees no failed call.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { registerWorker as registerSdkWorker } from '@svc/sdk';
import { rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { openRaw, type RawClient } from './engine-raw-client.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const MAX_PAYLOAD = 64 * 1024;
let engine: EngineProcess;
let executor: Child;
let caller: IIIClient;
let running = true;
let loop: Promise<void>;
const tally = { ok: 0, failed: [] as string[] };

beforeAll(async () => {
  engine = await startEngine({ config: { max_payload_bytes: MAX_PAYLOAD, max_buffered_bytes: 1024 * 1024 } });
  executor = spawnWorker('test/compat/fixtures/iii-worker.mjs', { SVC_URL: engine.url, FN_PREFIX: 'ok' });
  await executor.waitForOutput(/ready /);
  caller = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'healthy-caller' });
  loop = (async () => {
    while (running) {
      try {
        await caller.trigger({ function_id: 'ok::echo', payload: { n: tally.ok } });
        tally.ok++;
      } catch (err) {
        tally.failed.push(String((err as Error).message));
      }
    }
  })();
});

afterAll(async () => {
  running = false;
  await loop;
  await caller?.shutdown();
  await executor?.kill();
  await engine?.stop();
});

function invalidFrame(c: RawClient): Promise<unknown> {
  return c.next((f) => f.type === 'error' && (f.error as { code: string }).code === 'invalid_frame');
}

async function stillServes(c: RawClient): Promise<void> {
  const id = randomUUID();
  c.send({ type: 'invokefunction', invocation_id: id, function_id: 'ok::echo', data: { alive: true } });
  const res = await c.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
  expect(res.result).toMatchObject({ echo: { alive: true } });
}

describe('bad frames', () => {
  it('answers malformed JSON, unknown types, missing fields, non-UUID ids and binary junk with an error frame', async () => {
    const cases: (string | Buffer)[] = [
      '{not json',
      '[1,2,3]',
      JSON.stringify({ type: 'bogus', x: 1 }),
      JSON.stringify({ type: 'invokefunction', data: {} }),
      JSON.stringify({ type: 'registerfunction' }),
      JSON.stringify({ type: 'registertrigger', id: 't', function_id: 'f' }),
      JSON.stringify({ type: 'invokefunction', invocation_id: '123', function_id: 'ok::echo', data: {} }),
      JSON.stringify({ type: 'invocationresult', invocation_id: 'nope', function_id: 'x' }),
      Buffer.from([0xde, 0xad, 0xbe, 0xef]),
    ];
    for (const frame of cases) {
      const c = await openRaw(engine.url);
      c.send(frame);
      await invalidFrame(c);
      await stillServes(c);
      await c.close();
    }
  });

  it('refuses registrations nested too deep to write again, and its introspection keeps answering', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000); // JSON.parse reads it; JSON.stringify overflows on it
    const c = await openRaw(engine.url);
    const refusal = (message: string) =>
      c.next((f) => f.type === 'error' && (f.error as { message: string }).message === message);
    c.send(`{"type":"registerfunction","id":"deep::fn","metadata":{"x":${deep}}}`);
    await refusal('registerfunction: field "metadata" is nested deeper than 128 levels');
    const trigger = `{"type":"registertrigger","id":"deep-t","trigger_type":"subscribe","function_id":"ok::echo"`;
    c.send(`${trigger},"config":${deep}}`);
    await refusal('registertrigger: field "config" is nested deeper than 128 levels');
    await stillServes(c);
    // before, the stored binding made every listing of registered triggers fail writing it
    const listed = await rawCall(engine.url, 'engine::registered-triggers::list', {});
    expect(listed.error).toBeUndefined();
    expect(JSON.stringify(listed.result)).not.toContain('deep-t');
    const info = await rawCall(engine.url, 'engine::functions::info', { function_id: 'deep::fn' });
    expect(info.error?.code).toBe('NOT_FOUND');
    await c.close();
  });

  it('drops a result for an invocation the worker never received and says so', async () => {
    const c = await openRaw(engine.url);
    c.send({ type: 'invocationresult', invocation_id: randomUUID(), function_id: 'ok::echo', result: 'forged' });
    await c.next((f) => f.type === 'error' && (f.error as { code: string }).code === 'unknown_invocation');
    await stillServes(c);
    await c.close();
  });

  it('fails a call at once with invalid_result when its executor answers with a frame that does not decode', async () => {
    const executor = await openRaw(engine.url);
    executor.send({ type: 'registerfunction', id: 'broken::answer' });
    const c = await openRaw(engine.url);
    await new Promise((r) => setTimeout(r, 100));
    const id = randomUUID();
    const sentAt = Date.now();
    c.send({ type: 'invokefunction', invocation_id: id, function_id: 'broken::answer', data: {}, timeout_ms: 20_000 });
    const call = await executor.next((f) => f.type === 'invokefunction' && f.function_id === 'broken::answer');
    // its id readable at the start, then broken JSON (a handler that answered with malformed JSON text)
    executor.send(
      `{"type":"invocationresult","invocation_id":"${call.invocation_id as string}","function_id":"broken::answer","result":{"n":`,
    );
    await invalidFrame(executor);
    const res = await c.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
    expect(res.error).toMatchObject({
      code: 'invalid_result',
      message: expect.stringContaining('could not be decoded') as unknown,
    });
    expect(Date.now() - sentAt).toBeLessThan(10_000); // not at the 20 s deadline
    // a result whose error field has the wrong type fails its call the same way
    const second = randomUUID();
    c.send({ type: 'invokefunction', invocation_id: second, function_id: 'broken::answer', data: {} });
    const again = await executor.next((f) => f.type === 'invokefunction' && f.invocation_id !== call.invocation_id);
    executor.send({ type: 'invocationresult', invocation_id: again.invocation_id, function_id: 'x', error: 'boom' });
    const res2 = await c.next((f) => f.type === 'invocationresult' && f.invocation_id === second);
    expect((res2.error as { code: string }).code).toBe('invalid_result');
    await stillServes(executor);
    await Promise.all([executor.close(), c.close()]);
  });

  it('closes an oversized frame with 1009 and keeps serving others', async () => {
    const c = await openRaw(engine.url);
    c.send('x'.repeat(MAX_PAYLOAD + 1));
    expect(await c.closed).toBe(1009);
    const atLimit = await openRaw(engine.url);
    const id = randomUUID();
    const frame = (pad: string): string =>
      JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: 'ok::fail', data: { pad } });
    const exact = frame('y'.repeat(MAX_PAYLOAD - frame('').length));
    expect(Buffer.byteLength(exact)).toBe(MAX_PAYLOAD); // exactly the limit is accepted
    atLimit.send(exact);
    await atLimit.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
    await atLimit.close();
  });

  it('answers JSON ping and WebSocket pings; accepts /otel and drains telemetry; 404 elsewhere', async () => {
    const c = await openRaw(engine.url);
    c.send({ type: 'ping' });
    await c.next((f) => f.type === 'pong');
    const pong = new Promise<void>((resolve) => c.ws.once('pong', () => resolve()));
    c.ws.ping();
    await pong;
    await c.close();

    const otel = new WebSocket(`${engine.url}/otel`);
    await new Promise((resolve, reject) => otel.once('open', resolve).once('error', reject));
    otel.send(Buffer.concat([Buffer.from('LOGS'), Buffer.from('{"resourceLogs":[]}')]));
    otel.send(Buffer.from('ZZZZ junk'));
    await new Promise((r) => setTimeout(r, 100));
    expect(otel.readyState).toBe(WebSocket.OPEN);
    otel.close();

    const other = new WebSocket(`${engine.url}/nowhere`);
    const status = await new Promise<number>((resolve) => {
      other.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      other.on('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });
});

describe('registration limits', () => {
  it('refuses a registration past max_registration_bytes, and new ones past max_registrations_per_worker', async () => {
    const limited = await startEngine({ config: { max_registration_bytes: 4096, max_registrations_per_worker: 20 } });
    const c = await openRaw(limited.url);
    try {
      const refused = (code: string) =>
        c.next((f) => f.type === 'error' && (f.error as { code: string }).code === code);
      // Before, every registration was kept: functions with 8 MiB schemas grew the engine until it died.
      c.send({ type: 'registerfunction', id: 'big::fn', request_format: { description: 'x'.repeat(5000) } });
      expect(((await refused('registration_too_large')).error as { message: string }).message).toMatch(
        /function 'big::fn' refused: .* take \d+ characters, past max_registration_bytes \(4096\)/,
      );
      c.send({
        type: 'registertrigger',
        id: 'big-t',
        trigger_type: 'durable:subscriber',
        function_id: 'x',
        config: { topic: 'y'.repeat(5000) },
      });
      const result = await c.next((f) => f.type === 'triggerregistrationresult' && f.id === 'big-t');
      expect(result.error).toMatchObject({ code: 'registration_too_large' });
      for (let i = 0; i < 20; i++) c.send({ type: 'registerfunction', id: `lim::fn${i}` });
      c.send({ type: 'registerfunction', id: 'lim::one-more' });
      expect(((await refused('registration_limit')).error as { message: string }).message).toContain(
        'already holds 20 functions, triggers and trigger types (max_registrations_per_worker 20)',
      );
      c.send({ type: 'registerfunction', id: 'lim::fn3', description: 'registered again: not a new one' });
      const listed = await rawCall(limited.url, 'engine::functions::list', { prefix: 'lim::' });
      const ids = ((listed.result as { functions: { function_id: string }[] }).functions ?? []).map(
        (f) => f.function_id,
      );
      expect(ids).toHaveLength(20);
      expect(ids).not.toContain('lim::one-more');
      const missing = await rawCall(limited.url, 'big::fn', {});
      expect(missing.error).toMatchObject({ code: 'function_not_found' });
    } finally {
      await c.close();
      await limited.stop();
    }
  });
});

describe('calls in flight in all', () => {
  it('answers engine_overloaded past max_in_flight, over calls spread across workers', async () => {
    const limited = await startEngine({ config: { max_in_flight: 5 } });
    const hung = [await openRaw(limited.url), await openRaw(limited.url)];
    const caller = await openRaw(limited.url);
    try {
      hung.forEach((h, i) => h.send({ type: 'registerfunction', id: `hung::w${i}` }));
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < 8; i++) {
        const data = { i };
        caller.send({ type: 'invokefunction', invocation_id: randomUUID(), function_id: `hung::w${i % 2}`, data });
      }
      await waitFor(() => caller.frames.filter((f) => f.type === 'invocationresult').length === 3, 5000, 'refusals');
      const refused = caller.frames.filter((f) => f.type === 'invocationresult');
      expect(refused.map((f) => (f.error as { code: string }).code)).toEqual(Array(3).fill('engine_overloaded'));
      await waitFor(
        () => hung.reduce((n, h) => n + h.frames.filter((f) => f.type === 'invokefunction').length, 0) === 5,
        5000,
        'the 5 sent',
      );
    } finally {
      await caller.close();
      await Promise.all(hung.map((h) => h.close()));
      await limited.stop();
    }
  });
});

describe('connections per listener', () => {
  it('answers an upgrade past max_connections with 503 and Retry-After, and takes connections again once one closes', async () => {
    const limited = await startEngine({ config: { max_connections: 3 } });
    const open = await Promise.all([openRaw(limited.url), openRaw(limited.url), openRaw(limited.url)]);
    try {
      // Before, every upgrade was taken: about 10 KiB of the engine's memory per idle connection, without a bound.
      const refused = await new Promise<{ status: number | undefined; retryAfter: unknown; body: string }>(
        (resolve, reject) => {
          const ws = new WebSocket(limited.url);
          ws.on('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'], body }));
          });
          ws.on('open', () => reject(new Error('the fourth connection was taken')));
          ws.on('error', () => undefined);
        },
      );
      expect(refused).toEqual({
        status: 503,
        retryAfter: '5',
        body: 'svc engine: this listener holds 3 connections (max_connections); try again later\n',
      });
      // our SDK retries; it gets in once a connection closes, and the engine serves it
      const late = registerSdkWorker(limited.url, { workerName: 'late' });
      await open[0]!.close();
      await late.ready();
      late.registerFunction('late::echo', (x: unknown) => x);
      expect(await late.trigger({ function_id: 'late::echo', payload: { ok: 1 } })).toMatchObject({ ok: 1 });
      await late.shutdown();
    } finally {
      await Promise.all(open.slice(1).map((c) => c.close()));
      await limited.stop();
    }
  });
});

describe('calls in flight per worker', () => {
  it('answers worker_overloaded past max_in_flight_per_worker to a handler that never answers, and keeps serving', async () => {
    const limited = await startEngine({ config: { max_in_flight_per_worker: 50 } });
    const hung = await openRaw(limited.url);
    const caller = await openRaw(limited.url);
    try {
      hung.send({ type: 'registerfunction', id: 'hung::fn' });
      hung.send({ type: 'registerfunction', id: 'hung::echo' });
      await new Promise((r) => setTimeout(r, 100));
      const ids: string[] = [];
      for (let i = 0; i < 80; i++) {
        const id = randomUUID();
        ids.push(id);
        // a long timeout of its own: without the bound, the engine would hold every one of them for an hour
        caller.send({
          type: 'invokefunction',
          invocation_id: id,
          function_id: 'hung::fn',
          data: { i },
          timeout_ms: 3_600_000,
        });
      }
      const last = await caller.next((f) => f.type === 'invocationresult' && f.invocation_id === ids[79]);
      expect(last.error).toMatchObject({ code: 'worker_overloaded' });
      expect((last.error as { message: string }).message).toContain(
        'has 50 calls in flight (max_in_flight_per_worker)',
      );
      const refused = caller.frames.filter((f) => f.type === 'invocationresult');
      expect(refused).toHaveLength(30);
      await waitFor(() => hung.frames.filter((f) => f.type === 'invokefunction').length === 50, 5000, 'the 50 sent');
      // the same worker takes calls again once it answers one
      const first = hung.frames.find((f) => f.type === 'invokefunction')!;
      hung.send({
        type: 'invocationresult',
        invocation_id: first.invocation_id,
        function_id: 'hung::fn',
        result: 'ok',
      });
      await caller.next((f) => f.type === 'invocationresult' && f.invocation_id === ids[0] && f.result === 'ok');
      const again = randomUUID();
      caller.send({ type: 'invokefunction', invocation_id: again, function_id: 'hung::echo', data: {} });
      await waitFor(() => hung.frames.some((f) => f.invocation_id === again), 5000, 'the call after the answer');
    } finally {
      await caller.close();
      await hung.close();
      await limited.stop();
    }
  });
});

describe('calls in flight per caller', () => {
  it('answers caller_overloaded to a connection past max_in_flight_per_caller; another caller still gets through', async () => {
    const limited = await startEngine({ config: { max_in_flight_per_caller: 20 } });
    const hung = await openRaw(limited.url);
    const flooder = await openRaw(limited.url);
    const other = await openRaw(limited.url);
    try {
      hung.send({ type: 'registerfunction', id: 'hung::fn' });
      await new Promise((r) => setTimeout(r, 100));
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const id = randomUUID();
        ids.push(id);
        flooder.send({ type: 'invokefunction', invocation_id: id, function_id: 'hung::fn', data: { i } });
      }
      const last = await flooder.next((f) => f.type === 'invocationresult' && f.invocation_id === ids[29]);
      expect(last.error).toMatchObject({ code: 'caller_overloaded' });
      expect((last.error as { message: string }).message).toContain(
        'this connection already waits on 20 calls (max_in_flight_per_caller)',
      );
      expect(flooder.frames.filter((f) => f.type === 'invocationresult')).toHaveLength(10);
      await waitFor(() => hung.frames.filter((f) => f.type === 'invokefunction').length === 20, 5000, 'the 20 sent');
      // another connection's calls are not held back by the flooder's
      const theirs = randomUUID();
      other.send({ type: 'invokefunction', invocation_id: theirs, function_id: 'hung::fn', data: {} });
      await waitFor(() => hung.frames.some((f) => f.invocation_id === theirs), 5000, "the other caller's call");
      expect(other.frames.filter((f) => f.type === 'invocationresult')).toHaveLength(0);
      // an answer gives the flooder its share back
      const first = hung.frames.find((f) => f.type === 'invokefunction' && f.invocation_id === ids[0])!;
      hung.send({ type: 'invocationresult', invocation_id: first.invocation_id, function_id: 'hung::fn', result: 1 });
      await flooder.next((f) => f.type === 'invocationresult' && f.invocation_id === ids[0] && f.result === 1);
      const again = randomUUID();
      flooder.send({ type: 'invokefunction', invocation_id: again, function_id: 'hung::fn', data: {} });
      await waitFor(() => hung.frames.some((f) => f.invocation_id === again), 5000, 'the call after the answer');
    } finally {
      await other.close();
      await flooder.close();
      await hung.close();
      await limited.stop();
    }
  });
});

describe('floods and slow consumers', () => {
  it('survives a flood of 10,000 registrations and removes them when the worker leaves', async () => {
    const c = await openRaw(engine.url);
    for (let i = 0; i < 10_000; i++) c.send({ type: 'registerfunction', id: `flood::fn${i}` });
    await stillServes(c);
    const listed = await rawCall(engine.url, 'engine::functions::list', { prefix: 'flood::' });
    expect((listed.result as { functions: unknown[] }).functions).toHaveLength(10_000);
    await c.close();
    await waitFor(async () => {
      const after = await rawCall(engine.url, 'engine::functions::list', { prefix: 'flood::' });
      return (after.result as { functions: unknown[] }).functions.length === 0;
    }, 5000);
  });

  it('disconnects a worker that stops reading once its outbound buffer passes the bound', async () => {
    const slow = await openRaw(engine.url);
    slow.send({ type: 'registerfunction', id: 'slow::sink' });
    await new Promise((r) => setTimeout(r, 100));
    const sender = await openRaw(engine.url);
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const pad = 'z'.repeat(60 * 1024);
    for (let i = 0; i < 400; i++) {
      sender.send({ type: 'invokefunction', invocation_id: randomUUID(), function_id: 'slow::sink', data: { pad } });
    }
    // the engine terminates the reader; every call sent to it ends with invocation_stopped (or could not be sent)
    await sender.next(
      (f) => f.type === 'invocationresult' && (f.error as { code?: string })?.code === 'invocation_stopped',
      10_000,
    );
    await stillServes(sender);
    await sender.close();
    slow.ws.terminate();
  });

  it('sends cancelinvocation only to executors that announced the cancel feature', async () => {
    const legacy = await openRaw(engine.url);
    const modern = await openRaw(engine.url, { 'x-svc-features': 'cancel' });
    legacy.send({ type: 'registerfunction', id: 'cancel::legacy' });
    modern.send({ type: 'registerfunction', id: 'cancel::modern' });
    const c = await openRaw(engine.url);
    await new Promise((r) => setTimeout(r, 100));
    for (const [fn, timeoutMs] of [
      ['cancel::legacy', 1000],
      ['cancel::modern', 150],
    ] as const) {
      const id = randomUUID();
      const sentAt = Date.now();
      c.send({ type: 'invokefunction', invocation_id: id, function_id: fn, data: {}, timeout_ms: timeoutMs });
      const res = await c.next((f) => f.type === 'invocationresult' && f.invocation_id === id);
      expect((res.error as { code: string }).code).toBe('invocation_timeout');
      if (timeoutMs === 1000) {
        // the engine answers at the deadline (± scheduling on a shared machine)
        expect(Date.now() - sentAt).toBeGreaterThanOrEqual(990);
        expect(Date.now() - sentAt).toBeLessThan(1400);
      }
    }
    await modern.next((f) => f.type === 'cancelinvocation' && f.reason === 'timeout');
    await new Promise((r) => setTimeout(r, 100));
    expect(legacy.frames.some((f) => f.type === 'cancelinvocation')).toBe(false);
    await Promise.all([legacy.close(), modern.close(), c.close()]);
  });
});

describe('the healthy pair', () => {
  it('saw no failed call during all of the above', () => {
    expect(tally.failed).toEqual([]);
    expect(tally.ok).toBeGreaterThan(10);
  });
});
