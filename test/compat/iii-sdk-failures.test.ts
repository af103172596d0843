/**
 * Worker failures with the real iii-sdk@0.22.1: an executor killed with calls in flight, a half-open executor (SIGSTOP)
 * detected by the engine's heartbeat, and replicas sharing calls with fail-over.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURE = 'test/compat/fixtures/iii-worker.mjs';
let engine: EngineProcess;
let caller: IIIClient;
const children: Child[] = [];

function worker(env: Record<string, string>): Child {
  const child = spawnWorker(FIXTURE, { SVC_URL: engine.url, ...env });
  children.push(child);
  return child;
}

async function functionWorkers(id: string): Promise<number> {
  const answer = await rawCall(engine.url, 'engine::functions::info', { function_id: id });
  return (answer.result as { replicas?: number } | undefined)?.replicas ?? 0;
}

beforeAll(async () => {
  // a fast heartbeat so a half-open worker is found within ~1.5 s
  engine = await startEngine({ config: { heartbeat_interval_ms: 300, heartbeat_timeout_ms: 1000 } });
  caller = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'failures-caller' });
});

afterAll(async () => {
  await caller?.shutdown();
  await Promise.all(children.map((c) => c.kill()));
  await engine?.stop();
});

describe('executor failures', () => {
  it('kill -9 of an executor stops every in-flight call within 1 s, and the function leaves the registry', async () => {
    const exec = worker({ FN_PREFIX: 'k9', WORKER_NAME: 'k9' });
    await exec.waitForOutput(/ready /);
    const calls = Array.from({ length: 50 }, () =>
      caller.trigger({ function_id: 'k9::slow', payload: { ms: 20_000 } }).then(
        () => 'resolved',
        (e: { code?: string }) => e.code,
      ),
    );
    await waitFor(async () => (await rawCall(engine.url, 'engine::health::check')).result, 2000);
    await new Promise((r) => setTimeout(r, 200)); // let every call reach the executor
    const killedAt = Date.now();
    await exec.kill();
    const outcomes = await Promise.all(calls);
    const elapsed = Date.now() - killedAt;
    expect(outcomes.every((o) => o === 'invocation_stopped')).toBe(true);
    expect(elapsed).toBeLessThan(1000);
    const next = Date.now();
    const err = await caller.trigger({ function_id: 'k9::slow', payload: { ms: 1 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'function_not_found' });
    expect(Date.now() - next).toBeLessThan(1000); // one round trip: the registry forgot the function at once
  });

  it('a half-open executor (SIGSTOP) is detected by the heartbeat; its calls stop; it comes back after SIGCONT', async () => {
    const exec = worker({ FN_PREFIX: 'stop', WORKER_NAME: 'stopped' });
    await exec.waitForOutput(/ready /);
    const pending = caller.trigger({ function_id: 'stop::slow', payload: { ms: 20_000 } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const stoppedAt = Date.now();
    exec.proc.kill('SIGSTOP');
    try {
      expect(await pending).toMatchObject({ code: 'invocation_stopped' });
      expect(Date.now() - stoppedAt).toBeLessThan(2500);
      expect(await functionWorkers('stop::echo')).toBe(0);
    } finally {
      exec.proc.kill('SIGCONT');
    }
    const resumedAt = Date.now();
    await waitFor(() => functionWorkers('stop::echo'), 8000, 'the resumed worker to re-register');
    expect(Date.now() - resumedAt).toBeLessThan(3000);
    const result = (await caller.trigger({ function_id: 'stop::echo', payload: { back: true } })) as {
      echo: { back: boolean };
    };
    expect(result.echo.back).toBe(true);
  });
});

describe('replicas', () => {
  it('two processes with the same function id share calls; killing one loses no later call', async () => {
    const a = worker({ FN_PREFIX: 'rep', WORKER_NAME: 'rep-a' });
    const b = worker({ FN_PREFIX: 'rep', WORKER_NAME: 'rep-b' });
    await Promise.all([a.waitForOutput(/ready /), b.waitForOutput(/ready /)]);
    expect(await functionWorkers('rep::echo')).toBe(2);
    const pids = new Set<number>();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => caller.trigger({ function_id: 'rep::echo', payload: { i } })),
    );
    for (const r of results) pids.add((r as { pid: number }).pid);
    expect(pids).toEqual(new Set([a.proc.pid, b.proc.pid]));

    await a.kill();
    await waitFor(async () => (await functionWorkers('rep::echo')) === 1, 2000, 'the dead replica to leave');
    const after = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => caller.trigger({ function_id: 'rep::echo', payload: { i } })),
    );
    expect(after.filter((r) => r.status === 'rejected')).toHaveLength(0);
    expect(new Set(after.map((r) => (r as PromiseFulfilledResult<{ pid: number }>).value.pid))).toEqual(
      new Set([b.proc.pid]),
    );
  });

  it('a replica killed during continuous calls fails only the calls it held; later calls all succeed', async () => {
    const c = worker({ FN_PREFIX: 'load', WORKER_NAME: 'load-c' });
    const d = worker({ FN_PREFIX: 'load', WORKER_NAME: 'load-d' });
    await Promise.all([c.waitForOutput(/ready /), d.waitForOutput(/ready /)]);
    await waitFor(async () => (await functionWorkers('load::echo')) === 2, 3000);
    const outcomes: { startedAt: number; error?: string }[] = [];
    let running = true;
    const lane = async (): Promise<void> => {
      while (running) {
        const startedAt = Date.now();
        try {
          await caller.trigger({ function_id: 'load::echo', payload: {} });
          outcomes.push({ startedAt });
        } catch (err) {
          outcomes.push({ startedAt, error: (err as { code?: string }).code ?? String(err) });
        }
      }
    };
    const lanes = Array.from({ length: 16 }, lane);
    await new Promise((r) => setTimeout(r, 500));
    await c.kill();
    // "Later" is measured from the moment the engine has dropped the replica (it learns of the death from the socket
    // close, which a loaded machine can delay): calls routed to it before then may fail, none after.
    await waitFor(async () => (await functionWorkers('load::echo')) === 1, 5000, 'the dead replica to leave');
    const droppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 800));
    running = false;
    await Promise.all(lanes);
    const errors = outcomes.filter((o) => o.error !== undefined);
    expect(errors.every((o) => o.error === 'invocation_stopped')).toBe(true);
    expect(errors.length).toBeLessThanOrEqual(16);
    expect(errors.every((o) => o.startedAt <= droppedAt)).toBe(true);
    expect(outcomes.filter((o) => o.startedAt > droppedAt && o.error === undefined).length).toBeGreaterThan(10);
  });
});
