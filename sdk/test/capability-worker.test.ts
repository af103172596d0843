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

  it('supervised: a Ctrl-C and then the supervisor SIGTERM let the close finish, and it exits 0', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-e', SVC_SUPERVISED: '1', CAP_CLOSE_MS: '700' });
    await w.waitForOutput('cap-e started');
    w.proc.kill('SIGINT'); // the terminal's Ctrl-C reaches every process of the group
    await new Promise((r) => setTimeout(r, 20));
    w.proc.kill('SIGTERM'); // then svc stops its children
    await new Promise((r) => setTimeout(r, 600)); // past the window: still the supervisor's, not a second Ctrl-C
    w.proc.kill('SIGTERM');
    await expect(w.exit).resolves.toBe(0);
    expect(w.logs()).toContain('capability closed');
  });

  it('unsupervised: one Ctrl-C delivered twice (terminal and npm) closes once; a later one exits at once', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-f', CAP_CLOSE_MS: '3000' });
    await w.waitForOutput('cap-f started');
    w.proc.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 10)); // npm forwards it a moment after the terminal sent it
    w.proc.kill('SIGINT');
    await w.waitForOutput('cap-f stopping');
    await new Promise((r) => setTimeout(r, 700));
    expect(w.exited).toBe(false); // the repeated Ctrl-C did not cut the close short
    w.proc.kill('SIGINT');
    await expect(w.exit).resolves.toBe(130);
    expect(w.logs()).not.toContain('capability closed');
  });

  it('logs an uncaught exception and exits 1', async () => {
    const engine = await engineUp();
    const w = worker({ SVC_URL: engine.url, CAP_NAME: 'cap-d', CAP_CRASH: 'uncaught' });
    await expect(w.exit).resolves.toBe(1);
    expect(w.logs()).toMatch(/"level":60.*crash outside a handler/);
  });
});
