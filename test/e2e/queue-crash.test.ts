/**
 * A crash under queue load, at small scale: `kill -9` of svc-queue (file store) while producers enqueue through
 * TriggerAction.Enqueue; restart on the same directory; drain. Checker: every acknowledged enqueue ran (lost = 0),
 * nothing ran that was never enqueued (unexpected = 0), duplicates bounded by the jobs that could be mid-attempt at the
 * kill; and a liveness floor: ≥ 95 % of the enqueues after the restart succeed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { checkDeliveries } from '../../workers/queue/test/checker.js';
import { builtinFile, client, startedQueue } from './queue-support.js';

const TOTAL = 800;
const IN_FLIGHT = 20;
const CONCURRENCY = 10;
const SEED = Number(process.env.SVC_TEST_SEED ?? Date.now() % 1000);
const KILL_AFTER = 150 + ((SEED * 7919) % 400); // acks before the kill, from the seed

let engine: EngineProcess;
let worker: SvcClient;
let caller: SvcClient;
const children: Child[] = [];
const completed: string[] = [];

beforeAll(async () => {
  engine = await startEngine();
  worker = client(engine.url, 'queue-crash-worker');
  worker.registerFunction('qcrash::job', async (p: { seq: string; ms?: number }) => {
    await new Promise((r) => setTimeout(r, p.ms ?? 1));
    completed.push(p.seq);
  });
  caller = client(engine.url, 'queue-crash-producer');
  await Promise.all([worker.ready(), caller.ready()]);
});

afterAll(async () => {
  await caller?.shutdown();
  await worker?.shutdown();
  await Promise.all(children.map((c) => c.stop()));
  await engine?.stop();
});

describe('svc-queue file store: kill -9 under load', () => {
  it(`loses no acknowledged job (seed ${SEED}, kill after ${KILL_AFTER} acks)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-queue-crash-'));
    const config = { adapter: builtinFile(dir, { concurrency: CONCURRENCY, backoff_ms: 50 }) };
    const queueName = `crash-${randomUUID().slice(0, 8)}`;
    children.push(await startedQueue(engine.url, config));

    const attempted = new Set<string>();
    const acked: string[] = [];
    let restartedAt = Infinity;
    let afterRestart = { ok: 0, failed: 0 };
    let killing: Promise<void> | undefined;

    const enqueue = async (seq: string) => {
      attempted.add(seq);
      // Only enqueues sent to the restarted process count for liveness: one sent before the kill may fail after it.
      const sentAfterRestart = Date.now() > restartedAt;
      try {
        await caller.trigger({
          function_id: 'qcrash::job',
          payload: { seq },
          action: TriggerAction.Enqueue({ queue: queueName }),
          timeoutMs: 3000,
        });
        acked.push(seq);
        if (sentAfterRestart) afterRestart.ok++;
      } catch {
        if (sentAfterRestart) afterRestart.failed++;
      }
      if (acked.length >= KILL_AFTER && !killing) killing = crashAndRestart();
    };

    const crashAndRestart = async () => {
      await children[0]!.kill(); // SIGKILL: no close(), no flush
      children.push(await startedQueue(engine.url, config));
      restartedAt = Date.now();
      afterRestart = { ok: 0, failed: 0 };
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < TOTAL) {
          const seq = `s${next++}`;
          await enqueue(seq);
          if (killing && restartedAt === Infinity) await killing; // producers pause while svc-queue is down
        }
      }),
    );
    await killing;
    await waitFor(() => acked.every((s) => completed.includes(s)), 20_000, 'every acknowledged job to run');

    const r = checkDeliveries(
      acked,
      completed.filter((s) => acked.includes(s)),
    );
    const neverEnqueued = completed.filter((s) => !attempted.has(s));
    expect(r.lost).toEqual([]);
    expect(neverEnqueued).toEqual([]);
    // Duplicates only from attempts cut off by the kill: at most the jobs running (or just finished) at that moment.
    expect(r.duplicated.length).toBeLessThanOrEqual(2 * CONCURRENCY);
    // Liveness: the run did something, and the restarted process took enqueues. Enqueues sent while svc-queue is
    // down fail (they were never acknowledged), and how many depends on how fast the restart is on a loaded machine.
    expect(acked.length).toBeGreaterThan(TOTAL * 0.8);
    expect(afterRestart.ok / Math.max(1, afterRestart.ok + afterRestart.failed)).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  it('SIGTERM mid-load exits 0, and a restart finishes every acknowledged job', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-queue-term-'));
    const config = { adapter: builtinFile(dir, { concurrency: CONCURRENCY, backoff_ms: 50 }) };
    const queueName = `term-${randomUUID().slice(0, 8)}`;
    const first = await startedQueue(engine.url, config);
    children.push(first);
    completed.length = 0;
    const acked: string[] = [];
    for (let i = 0; i < 100; i++) {
      await caller.trigger({
        function_id: 'qcrash::job',
        payload: { seq: `t${i}`, ms: 50 }, // slow enough that most jobs are still queued at the SIGTERM
        action: TriggerAction.Enqueue({ queue: queueName }),
      });
      acked.push(`t${i}`);
    }
    expect(completed.length).toBeLessThan(100);
    expect(await first.stop()).toBe(0);
    children.push(await startedQueue(engine.url, config));
    await waitFor(() => acked.every((s) => completed.includes(s)), 20_000, 'every acknowledged job to run');
    expect(checkDeliveries(acked, completed).lost).toEqual([]);
  }, 60_000);
});
