/**
 * A worker killed mid-job, in the product's shape: the worker running the queued function kills itself (SIGKILL) on
 * 10 % of attempts and is restarted (three such workers, four jobs at a time). A death also stops the other calls in
 * flight on that worker, so many jobs exhaust their attempts. Pass: every job ends completed or in dead letters with
 * attempts ≤ max_attempts; checker lost = 0, no duplicates; and once the fault is healed, a redrive completes every
 * dead-lettered job (liveness).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { checkDeliveries } from '../../workers/queue/test/checker.js';
import { builtinMemory, client, startedQueue } from './queue-support.js';

const JOBS = 80;
const MAX_ATTEMPTS = 6;
const dir = mkdtempSync(join(tmpdir(), 'svc-queue-death-'));
const completions = join(dir, 'completed.log');
const faultFile = join(dir, 'fault-on');
writeFileSync(faultFile, '');

let engine: EngineProcess;
let caller: SvcClient;
let stopped = false;
const children: Child[] = [];

/** Keeps `n` dying workers alive: each one that dies is replaced. */
function superviseWorkers(url: string, n: number): void {
  const spawnOne = (): void => {
    if (stopped) return;
    const child = spawnWorker('test/e2e/queue-fixtures/dying-worker.mjs', {
      SVC_URL: url,
      COMPLETIONS_FILE: completions,
      FAULT_FILE: faultFile,
      DIE_RATE: '0.1',
    });
    children.push(child);
    void child.exit.then(() => spawnOne());
  };
  for (let i = 0; i < n; i++) spawnOne();
}

beforeAll(async () => {
  engine = await startEngine();
  children.push(
    await startedQueue(engine.url, {
      adapter: builtinMemory({ max_attempts: MAX_ATTEMPTS, backoff_ms: 150, concurrency: 4 }),
    }),
  );
  superviseWorkers(engine.url, 3);
  caller = client(engine.url, 'queue-death-producer');
  await caller.ready();
});

afterAll(async () => {
  stopped = true;
  await caller?.shutdown();
  await Promise.all(children.map((c) => c.stop(2000)));
  await engine?.stop();
});

describe('svc-queue: the function worker dies mid-attempt', () => {
  it('retries each such job; every job ends completed or dead-lettered; lost = 0', async () => {
    const queue = `death-${randomUUID().slice(0, 8)}`;
    const acked: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      await caller.trigger({
        function_id: 'qdie::job',
        payload: { seq: `d${i}` },
        action: TriggerAction.Enqueue({ queue }),
      });
      acked.push(`d${i}`);
    }
    const completed = () =>
      existsSync(completions) ? readFileSync(completions, 'utf8').split('\n').filter(Boolean) : [];
    const drained = async () => {
      const stats = await caller.trigger<{ waiting: number; active: number; delayed: number }>({
        function_id: 'queue::topic_stats',
        payload: { queue },
      });
      return stats.waiting + stats.active + stats.delayed === 0;
    };
    const dead = async () =>
      (
        await caller.trigger<{ messages: { id: string; attempts: number; data: { seq: string }; error: unknown }[] }>({
          function_id: 'queue::dlq_messages',
          payload: { queue, limit: 1000 },
        })
      ).messages;
    await waitFor(drained, 40_000, 'every job to finish');
    const deadLetters = await dead();
    const ended = [...completed(), ...deadLetters.map((m) => m.data.seq)];
    const r = checkDeliveries(acked, ended);
    expect(r.lost).toEqual([]);
    expect(r.unexpected).toEqual([]);
    expect(r.duplicated).toEqual([]); // a death happens before the completion is logged
    for (const m of deadLetters) expect(m.attempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(completed().length).toBeGreaterThan(0);

    // Heal, redrive the dead letters: every job completes, none twice.
    rmSync(faultFile);
    await caller.trigger({ function_id: 'queue::redrive', payload: { queue } });
    await waitFor(async () => (await drained()) && completed().length >= JOBS, 20_000, 'redriven jobs');
    const final = checkDeliveries(acked, completed());
    expect([final.lost, final.duplicated, final.unexpected]).toEqual([[], [], []]);
  }, 70_000);
});
