/**
 * Lost connections: a frozen engine (SIGSTOP, no FIN) is noticed from the missing engine pings, the worker
 * reconnects once the engine resumes, and its functions are callable again. When the engine dies, calls in
 * flight fail at once and running handlers are aborted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../../test/harness.js';
import type { ConnectionState, HandlerContext, SvcClient } from '../src/index.js';
import { barrier, connect, deferred, shutdownAll } from './support.js';

let engine: EngineProcess;

beforeAll(async () => {
  engine = await startEngine({
    bare: true,
    extraArgs: ['--heartbeat-interval-ms', '400', '--heartbeat-timeout-ms', '5000'],
  });
});

afterAll(async () => {
  engine?.proc.kill('SIGCONT');
  await shutdownAll();
  await engine?.stop();
});

describe('heartbeat', () => {
  it('detects a frozen engine within a few engine ping intervals and reconnects after it resumes', async () => {
    const states: (ConnectionState & { at: number })[] = [];
    const worker: SvcClient = connect(engine.url, 'hb-worker', {
      onConnectionStateChange: (s) => states.push({ ...s, at: Date.now() }),
    });
    worker.registerFunction('hb::ping', () => 'pong');
    await worker.ready();
    await new Promise((r) => setTimeout(r, 1200)); // let the client learn the engine's ping cadence

    engine.proc.kill('SIGSTOP');
    const frozenAt = Date.now();
    await waitFor(() => states.some((s) => !s.connected), 5000, 'the client to notice the frozen engine');
    const noticed = states.find((s) => !s.connected) as { at: number; willReconnect: boolean };
    expect(noticed.at - frozenAt).toBeLessThan(5000); // three engine ping intervals (or 2 s), far below the 60 s default
    expect(noticed.willReconnect).toBe(true);

    const before = worker.workerId;
    engine.proc.kill('SIGCONT');
    await waitFor(() => worker.workerId !== before, 8000, 'a new session after the engine resumed');
    await expect(worker.trigger({ function_id: 'hb::ping', payload: {} })).resolves.toBe('pong');
  });

  it('when the engine dies, a call in flight fails at once and a running handler is aborted', async () => {
    const worker = connect(engine.url, 'hb-dying');
    const started = deferred<void>();
    const aborted = deferred<string>();
    worker.registerFunction('hb::hang', (_p: unknown, ctx: HandlerContext) => {
      started.resolve();
      ctx.signal.addEventListener('abort', () => aborted.resolve((ctx.signal.reason as { code: string }).code));
      return new Promise(() => undefined);
    });
    await barrier(worker);
    const call = worker.trigger({ function_id: 'hb::hang', payload: {}, timeoutMs: 20000 }).catch((e: unknown) => e);
    await started.promise;
    const t0 = Date.now();
    await engine.kill();
    await expect(call).resolves.toMatchObject({ code: 'invocation_stopped', function_id: 'hb::hang' });
    expect(Date.now() - t0).toBeLessThan(2000);
    await expect(aborted.promise).resolves.toBe('connection_lost');
  });
});
