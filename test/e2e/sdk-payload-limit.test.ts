/**
 * Frames larger than the engine takes (`max_payload_bytes`, told to workers at the upgrade): the engine would close
 * the sender's connection with 1009, failing every call in flight on it. Our SDK refuses such a frame itself: a
 * call's payload fails with `payload_too_large` (nothing sent), a handler's result becomes `result_too_large`, and
 * the connection, with the calls beside them, carries on. svc-http answers a request body the engine cannot take
 * with 413.
 */
import { request } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { InvocationError, MAX_PAYLOAD_HEADER, registerWorker, type SvcClient } from '@svc/sdk';
import { freePort, startEngine, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const MAX_PAYLOAD = 64 * 1024;
let engine: EngineProcess;
let httpBase: string;
let worker: SvcClient;
let caller: SvcClient;
const reconnects = { worker: 0, caller: 0 };

beforeAll(async () => {
  const port = await freePort();
  httpBase = `http://127.0.0.1:${port}`;
  engine = await startEngine({
    config: { max_payload_bytes: MAX_PAYLOAD },
    modules: [{ name: 'svc-http', config: { host: '127.0.0.1', port, body_limit_bytes: 1024 * 1024 } }],
  });
  const connect = (name: 'worker' | 'caller') =>
    registerWorker(engine.url, {
      workerName: `limit-${name}`,
      logger: pino({ level: 'silent' }),
      onConnectionStateChange: ({ connected }) => {
        if (!connected) reconnects[name]++; // before, the engine's 1009 close dropped the connection
      },
    });
  worker = connect('worker');
  worker.registerFunction('limit::result', ({ bytes }: { bytes: number }) => 'r'.repeat(bytes));
  worker.registerFunction('limit::slow', async () => {
    await new Promise((r) => setTimeout(r, 500));
    return 'slow';
  });
  worker.registerFunction('limit::size', (payload: unknown) => JSON.stringify(payload).length);
  worker.registerTrigger({
    type: 'http',
    function_id: 'limit::size',
    config: { api_path: '/size', http_method: 'POST' },
  });
  await worker.ready();
  caller = connect('caller');
  await caller.ready();
  await new Promise((r) => setTimeout(r, 300)); // the HTTP route is bound
});

afterAll(async () => {
  await caller?.shutdown();
  await worker?.shutdown();
  await engine?.stop();
});

async function failure(p: Promise<unknown>): Promise<InvocationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvocationError);
  return err as InvocationError;
}

describe('frames over the engine’s max_payload_bytes', () => {
  it('the engine tells a worker its limit at the upgrade', async () => {
    const told = await new Promise<string | string[] | undefined>((resolve, reject) => {
      const ws = new WebSocket(engine.url);
      ws.once('upgrade', (res) => resolve(res.headers[MAX_PAYLOAD_HEADER]));
      ws.once('open', () => ws.close());
      ws.once('error', reject);
    });
    expect(told).toBe(String(MAX_PAYLOAD));
  });

  it('a result too large fails that call alone; the worker keeps its connection and its other calls', async () => {
    const slow = caller.trigger({ function_id: 'limit::slow', payload: {} });
    const big = await failure(caller.trigger({ function_id: 'limit::result', payload: { bytes: 100 * 1024 } }));
    expect(big.code).toBe('result_too_large');
    expect(big.message).toMatch(
      /the result of limit::result is 0\.1 MiB as a frame; the engine takes at most 0\.1 MiB/,
    );
    expect(await slow).toBe('slow'); // before, the 1009 close failed it with invocation_stopped
    expect(await caller.trigger({ function_id: 'limit::result', payload: { bytes: 10 } })).toBe('r'.repeat(10));
    expect(reconnects.worker).toBe(0);
  });

  it('a payload too large is refused before it is sent; the caller keeps its connection and its other calls', async () => {
    const slow = caller.trigger({ function_id: 'limit::slow', payload: {} });
    const big = await failure(caller.trigger({ function_id: 'limit::size', payload: { pad: 'p'.repeat(100 * 1024) } }));
    expect(big.code).toBe('payload_too_large');
    expect(big.message).toContain('nothing was sent');
    expect(await slow).toBe('slow');
    expect(reconnects.caller).toBe(0);
  });

  it('a telemetry batch too large is dropped; the worker keeps its connection and its calls', async () => {
    let drops = 0;
    const logging = registerWorker(engine.url, {
      workerName: 'limit-logging',
      telemetry: true,
      logger: pino({ level: 'silent' }),
      onConnectionStateChange: ({ connected }) => {
        if (!connected) drops++;
      },
    });
    try {
      logging.registerFunction('limit::log', (_: unknown, ctx) => {
        ctx.logger.info('m'.repeat(200 * 1024)); // its batch is over the engine's 64 KiB
        return 'logged';
      });
      logging.registerFunction('limit::slow-too', async () => {
        await new Promise((r) => setTimeout(r, 800));
        return 'slow';
      });
      await logging.ready();
      const slow = caller.trigger({ function_id: 'limit::slow-too', payload: {} });
      expect(await caller.trigger({ function_id: 'limit::log', payload: {} })).toBe('logged');
      // Before, the batch's frame made the engine close the connection (1009): the slow call failed with it.
      expect(await slow).toBe('slow');
      expect(drops).toBe(0);
    } finally {
      await logging.shutdown();
    }
  });

  it('svc-http answers a body the engine cannot take with 413, and serves the next request', async () => {
    const post = (body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          `${httpBase}/size`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.once('error', reject);
        req.end(body);
      });
    const big = await post(JSON.stringify({ pad: 'b'.repeat(200 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.body).toContain('payload_too_large');
    const small = await post(JSON.stringify({ a: 1 }));
    expect(small.status).toBe(200);
  });
});
