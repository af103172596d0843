/**
 * Redis killed under load: a private redis-server with `appendonly yes, appendfsync always` is killed with SIGKILL
 * while jobs are enqueued and processed, then restarted on the same port and data directory. Checker: every
 * acknowledged enqueue still runs (lost = 0); processing resumes once Redis is back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KvserverAdapter } from '../src/adapters/bullmq.js';
import { sleep, waitFor } from './backends.js';
import { checkDeliveries } from './checker.js';
import { freePort } from '../../../test/harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-redis-'));
let redis: ChildProcess | undefined;
let adapter: KvserverAdapter | undefined;

async function startRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'];
  const child = spawn('redis-server', [...args, '--appendfsync', 'always'], { stdio: 'ignore' });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      }),
    10_000,
    'redis-server to listen',
  );
  return child;
}

afterAll(async () => {
  await adapter?.close(100);
  redis?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('KvserverAdapter: redis-server killed and restarted (appendfsync always)', () => {
  it('loses no acknowledged job', async (ctx) => {
    const hasRedis = await new Promise<boolean>((resolve) => {
      const p = spawn('redis-server', ['--version'], { stdio: 'ignore' });
      p.once('error', () => resolve(false));
      p.once('exit', (code) => resolve(code === 0));
    });
    if (!hasRedis) ctx.skip('redis-server is not installed (scripts/services.sh installs and starts it in CI)');
    const port = await freePort();
    redis = await startRedis(port);
    adapter = new KvserverAdapter({
      kvserver_url: `redis://127.0.0.1:${port}`,
      prefix: 'crash',
      max_attempts: 3,
      backoff_ms: 50,
      concurrency: 10,
      mode: 'concurrent',
      lock_duration_ms: 1000,
      stalled_interval_ms: 500,
    });
    await adapter.start();
    const done: string[] = [];
    await adapter.consume('jobs', async (job) => {
      await sleep(3);
      done.push(job.id);
    });

    const acked: string[] = [];
    let next = 0;
    let crash: Promise<void> | undefined;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 500) {
          const id = `j${next++}`;
          for (let attempt = 0; attempt < 100; attempt++) {
            try {
              acked.push(await adapter!.enqueue('jobs', { id, function_id: 'f', data: null }));
              break;
            } catch {
              await sleep(50);
            }
          }
          if (acked.length >= 200 && !crash) {
            crash = (async () => {
              redis!.kill('SIGKILL');
              await new Promise((r) => redis!.once('exit', r));
              await sleep(300);
              redis = await startRedis(port);
            })();
          }
        }
      }),
    );
    await crash;
    await waitFor(() => acked.every((id) => done.includes(id)), 30_000, 'every acknowledged job to run');
    const r = checkDeliveries(
      acked,
      done.filter((id) => acked.includes(id)),
    );
    expect(r.lost).toEqual([]);
    expect(acked.length).toBe(500); // liveness: every enqueue went through once Redis was back
  }, 60_000);
});
