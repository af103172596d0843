/**
 * Redis and RabbitMQ connection faults at small scale, through a TCP proxy: the connection to Redis or RabbitMQ is cut
 * (and refused for a moment) while jobs are being enqueued and processed. Every enqueue is either acknowledged or
 * errors to the caller; every acknowledged job runs (lost = 0); processing resumes after the blip.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KvserverAdapter } from '../src/adapters/bullmq.js';
import { BrokerAdapter } from '../src/adapters/rabbitmq.js';
import type { QueueBackend } from '../src/adapters/types.js';
import { backends, newNamespace, sleep, waitFor } from './backends.js';
import { checkDeliveries } from './checker.js';
import { FaultProxy } from './fault-proxy.js';

const cases = [
  {
    kind: backends.find((b) => b.name.startsWith('Kvserver'))!,
    port: 6379,
    make: (port: number, ns: string): QueueBackend =>
      new KvserverAdapter({
        kvserver_url: `redis://127.0.0.1:${port}`,
        prefix: ns,
        max_attempts: 3,
        backoff_ms: 50,
        concurrency: 10,
        mode: 'concurrent',
        lock_duration_ms: 1000,
        stalled_interval_ms: 500,
      }),
  },
  {
    kind: backends.find((b) => b.name.startsWith('Broker'))!,
    port: 5672,
    make: (port: number, ns: string): QueueBackend =>
      new BrokerAdapter({
        amqp_url: `amqp://guest:guest@127.0.0.1:${port}`,
        prefix: ns,
        max_attempts: 3,
        backoff_ms: 50,
        prefetch_count: 10,
        queue_mode: 'standard',
      }),
  },
];

describe.each(cases)('connection cut under load: $kind.name', ({ kind, port, make }) => {
  let proxy: FaultProxy | undefined;
  let adapter: QueueBackend | undefined;
  let ns = '';

  afterEach(async () => {
    await adapter?.close(100);
    await proxy?.close();
    if (ns) await kind.cleanup(ns);
  });

  it('loses no acknowledged job and resumes after the connection comes back', async (ctx) => {
    if (!(await kind.available())) ctx.skip(`${kind.name} is not reachable (scripts/services.sh starts it)`);
    ns = newNamespace();
    proxy = new FaultProxy(port);
    adapter = make(await proxy.start(), ns);
    await adapter.start();
    const done: string[] = [];
    await adapter.consume('blip', async (job) => {
      await sleep(2);
      done.push(job.id);
    });
    // Producers retry a refused enqueue (same id) for up to 3 s, as a caller riding out a blip would.
    const acked: string[] = [];
    let failed = 0;
    let next = 0;
    const enqueue = async (id: string) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        try {
          return await withTimeout(adapter!.enqueue('blip', { id, function_id: 'f', data: null }), 5000);
        } catch {
          await sleep(50);
        }
      }
      return undefined;
    };
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < 300) {
          const id = `j${next++}`;
          if (next === 100) proxy!.cut(500);
          const ok = await enqueue(id);
          if (ok) acked.push(ok);
          else failed++;
        }
      }),
    );
    await waitFor(() => acked.every((id) => done.includes(id)), 20_000, 'every acknowledged job to run');
    const r = checkDeliveries(
      acked,
      done.filter((id) => acked.includes(id)),
    );
    expect(r.lost).toEqual([]);
    expect(acked.length + failed).toBe(300);
    expect(acked.length).toBeGreaterThanOrEqual(295); // liveness: once the connection is back, enqueues succeed
    if (kind.name.startsWith('Broker')) {
      // the redrive path's channels work again after the reconnect
      expect((await adapter.topicStats('blip')).dead).toBe(0);
    }
  }, 40_000);
});

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
