/**
 * runCapabilityWorker as a real process: it serves its functions, exits 0 on SIGTERM after closing, exits when
 * the engine dies and it is supervised (no orphans), reconnects when it is not, and logs a crash.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../../test/harness.js';
import { connect, shutdownAll } from './support.js';

const FIXTURE = 'sdk/test/fixtures/capability-worker.mjs';
const engines: EngineProcess[] = [];
const workers: Child[] = [];

async function engineUp(port?: number): Promise<EngineProcess> {
  const e = await startEngine({ bare: true, ...(port !== undefined ? { port } : {}) });
  engines.push(e);
  return e;
}

function worker(env: Record<string, string>): Child {
  const w = spawnWorker(FIXTURE, env);
  workers.push(w);
  return w;
}

afterEach(async () => {
  await shutdownAll();
  await Promise.all(workers.splice(0).map((w) => w.kill()));
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

describe('runCapabilityWorker', () => {
  it('serves its functions, and on SIGTERM closes and exits 0', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-a' });
    await w.waitForOutput('cap-a started');
    const caller = connect(engine.url, 'cap-caller');
    await expect(caller.trigger({ function_id: 'cap-a::ping', payload: {} })).resolves.toEqual({ pong: w.proc.pid });
    await expect(w.stop()).resolves.toBe(0);
    expect(w.logs()).toContain('capability closed');
    expect(w.logs().split('\n')[0]).toMatch(/^\{.*"level":30/); // JSON on stderr
  });

  it('supervised: exits 0 soon after the engine is killed', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-b', SVC_SUPERVISED: '1' });
    await w.waitForOutput('cap-b started');
    await engine.kill();
    const t0 = Date.now();
    await expect(w.exit).resolves.toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(w.logs()).toContain('engine connection lost');
  });

  it('supervised at log level warn: still tells the supervisor it is ready, and logs nothing else at info', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-w', SVC_SUPERVISED: '1', SVC_LOG_LEVEL: 'warn' });
    await w.waitForOutput('"svc_ready":true');
    expect(w.logs()).toContain('cap-w started');
    await expect(w.stop()).resolves.toBe(0);
    expect(w.logs()).not.toContain('capability closed');
  });

  it('unsupervised: survives the engine going away and serves again once it is back', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-c' });
    await w.waitForOutput('cap-c started');
    const port = engine.port;
    await engine.kill();
    await new Promise((r) => setTimeout(r, 2500)); // longer than the supervised grace period
    expect(w.exited).toBe(false);
    const again = await engineUp(port);
    const caller = connect(again.url, 'cap-caller-2');
    await waitFor(
      () =>
        caller.trigger({ function_id: 'cap-c::ping', payload: {}, timeoutMs: 1000 }).then(
          () => true,
          () => false,
        ),
      10000,
      'the worker to serve again',
    );
  });

  it('logs an uncaught exception and exits 1', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-d', CAP_CRASH: 'uncaught' });
    await expect(w.exit).resolves.toBe(1);
    expect(w.logs()).toMatch(/"level":60.*crash outside a handler/);
  });
});
