/**
 * The engine restarts while svc-queue (file store, started by hand, so it reconnects) has jobs queued and running.
 * Every acknowledged job still runs once the engine is back: lost = 0. A call in flight at the restart costs one
 * attempt (it is retried); calls made while the engine is away wait for the reconnect.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { checkDeliveries } from '../../workers/queue/test/checker.js';
import { builtinFile, client, startedQueue } from './queue-support.js';

let engine: EngineProcess | undefined;
let queue: Child | undefined;
const clients: SvcClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await queue?.stop();
  await engine?.stop();
});

describe('svc-queue across an engine restart', () => {
  it('runs every acknowledged job once the engine is back', async () => {
    engine = await startEngine();
    const dir = mkdtempSync(join(tmpdir(), 'svc-queue-engine-restart-'));
    queue = await startedQueue(engine.url, {
      adapter: builtinFile(dir, { max_attempts: 5, backoff_ms: 200, concurrency: 5 }),
    });
    const completed: string[] = [];
    const worker = client(engine.url, 'queue-restart-worker');
    worker.registerFunction('qrestart::job', async (p: { seq: string }) => {
      await new Promise((r) => setTimeout(r, 20));
      completed.push(p.seq);
    });
    const caller = client(engine.url, 'queue-restart-producer');
    clients.push(worker, caller);
    await Promise.all([worker.ready(), caller.ready()]);

    const name = `restart-${randomUUID().slice(0, 8)}`;
    const acked: string[] = [];
    for (let i = 0; i < 100; i++) {
      await caller.trigger({
        function_id: 'qrestart::job',
        payload: { seq: `r${i}` },
        action: TriggerAction.Enqueue({ queue: name }),
      });
      acked.push(`r${i}`);
    }
    expect(completed.length).toBeLessThan(100); // jobs are still queued and running at the restart
    engine = await engine.restart();
    await waitFor(() => acked.every((s) => completed.includes(s)), 30_000, 'every acknowledged job to run');
    const r = checkDeliveries(acked, completed);
    expect(r.lost).toEqual([]);
    expect(r.unexpected).toEqual([]);
  }, 60_000);
});
