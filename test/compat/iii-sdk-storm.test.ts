/**
 * Reconnect storm: an engine restart with 200 connected iii-sdk workers of 5 functions each. All 1,000 registrations
 * come back within 10 s, without duplicates, and the engine's memory stays bounded.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let swarm: Child;

interface Listed {
  function_id: string;
  replicas: number;
}

async function swarmFunctions(): Promise<Listed[]> {
  const answer = await rawCall(engine.url, 'engine::functions::list', { prefix: 'swarm::' }, 5000);
  return (answer.result as { functions: Listed[] }).functions;
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

beforeAll(async () => {
  engine = await startEngine();
  swarm = spawnWorker('test/compat/fixtures/iii-swarm.mjs', { SVC_URL: engine.url, SWARM_SIZE: '200' });
  await swarm.waitForOutput(/^ready$/m, 20_000);
  await waitFor(async () => (await swarmFunctions()).length === 1000, 10_000, '1,000 registrations');
});

afterAll(async () => {
  await swarm?.kill();
  await engine?.stop();
});

describe('reconnect storm', () => {
  it('restores all 1,000 registrations within 10 s of an engine restart, without duplicates', async () => {
    engine = await engine.restart();
    const baseline = rssMiB(engine.proc.pid!);
    const restartedAt = Date.now();
    await waitFor(async () => (await swarmFunctions()).length === 1000, 10_000, '1,000 registrations back');
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    const functions = await swarmFunctions();
    expect(functions.every((f) => f.replicas === 1)).toBe(true);
    expect(new Set(functions.map((f) => f.function_id)).size).toBe(1000);
    const call = await rawCall(engine.url, 'swarm::w199::f4', {});
    expect(call.result).toEqual({ i: 199, j: 4 });
    expect(rssMiB(engine.proc.pid!) - baseline).toBeLessThan(100);
  }, 40_000);
});
