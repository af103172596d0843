/**
 * One conformance suite over every queue backend (crashes, killed workers, retries, poison jobs and broker restarts, at
 * small scale): delivery with the lost/duplicated/unexpected checker, concurrency, fifo, backoff and dead letters,
 * redrive and discard, poison isolation, redelivery after a stopped worker, durability across a restart.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { brokerNames } from '../src/adapters/rabbitmq-topology.js';
import type { Job, QueueBackend, TopicStats } from '../src/adapters/types.js';
import { backends, brokerQueuesUsed, newNamespace, sleep, waitFor, type BackendOptions } from './backends.js';
import { checkDeliveries } from './checker.js';

/**
 * Jobs the queue holds that are not dead: waiting, or already attempted (a bridged queue is consumed by the svc-queue
 * serving it, so a job enqueued before anyone here consumes may already be out on an attempt, or waiting a retry).
 */
const queued = (t: TopicStats): number => t.waiting + t.active + t.delayed;

describe.each(backends)('queue backend conformance: $name', (kind) => {
  let up = false;
  let ns = '';
  const open: QueueBackend[] = [];

  beforeAll(async () => {
    up = await kind.available();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((a) => a.close(100)));
    if (ns) await kind.cleanup(ns);
    ns = '';
  });

  /** Opens an adapter in this test's namespace (reopening the same data when called again). */
  async function make(o: BackendOptions = {}, queues: string[] = []): Promise<QueueBackend> {
    ns ||= newNamespace();
    const a = kind.make(ns, o);
    await a.start();
    open.push(a);
    const used = brokerQueuesUsed.get(ns) ?? [];
    for (const q of queues) {
      const n = brokerNames(ns, q, a.settings(q));
      used.push(n.main, n.dead, ...n.retries.map((r) => r.name));
    }
    brokerQueuesUsed.set(ns, used);
    return a;
  }

  // The suite needs the service; CI starts it with scripts/services.sh. Locally, a missing service skips its tests.
  const maybe = (name: string, fn: (skip: (why: string) => never) => Promise<void>, timeout = 20_000) =>
    it(
      name,
      async (ctx) => {
        if (!up) ctx.skip(`${kind.name} is not reachable (start it with scripts/services.sh)`);
        await fn((why) => ctx.skip(why));
      },
      timeout + (kind.extraStartMs ?? 0),
    );

  maybe('delivers every acknowledged job: lost = 0, duplicated = 0, unexpected = 0', async () => {
    const a = await make({ concurrency: 10 }, ['jobs']);
    const done: string[] = [];
    await a.consume('jobs', async (job) => {
      done.push((job.data as { seq: string }).seq);
    });
    const acked: string[] = [];
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        await a.enqueue('jobs', { function_id: 'test::fn', data: { seq: `j${i}` } });
        acked.push(`j${i}`);
      }),
    );
    await waitFor(() => done.length >= 300, 10_000, 'all jobs');
    await sleep(50);
    const r = checkDeliveries(acked, done);
    expect({ lost: r.lost.length, duplicated: r.duplicated.length, unexpected: r.unexpected.length }).toEqual({
      lost: 0,
      duplicated: 0,
      unexpected: 0,
    });
  });

  maybe('honours concurrency', async () => {
    const a = await make({ concurrency: 4 }, ['conc']);
    let running = 0;
    let max = 0;
    let done = 0;
    // A backlog first, so the consumer always has more than `concurrency` jobs to choose from.
    await Promise.all(Array.from({ length: 40 }, (_, i) => a.enqueue('conc', { function_id: 'f', data: i })));
    await a.consume('conc', async () => {
      running++;
      max = Math.max(max, running);
      await sleep(20);
      running--;
      done++;
    });
    await waitFor(() => done === 40, 10_000, '40 jobs');
    expect(max).toBe(4);
  });

  maybe('fifo runs one job at a time in enqueue order', async () => {
    const a = await make({ queueConfigs: { ordered: { type: 'fifo' } } }, ['ordered']);
    const seen: number[] = [];
    let running = 0;
    let max = 0;
    await a.consume('ordered', async (job) => {
      running++;
      max = Math.max(max, running);
      await sleep(2);
      seen.push(job.data as number);
      running--;
    });
    for (let i = 0; i < 30; i++) await a.enqueue('ordered', { function_id: 'f', data: i });
    await waitFor(() => seen.length === 30, 10_000, '30 jobs');
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(max).toBe(1);
  });

  maybe('retries with exponential backoff, then dead-letters once with the last error and attempt count', async () => {
    const a = await make({ maxAttempts: 4, backoffMs: 60 }, ['flaky']);
    const starts: number[] = [];
    let fail = true;
    let succeeded = 0;
    await a.consume('flaky', async (job: Job) => {
      if (!fail) return void succeeded++;
      starts.push(Date.now());
      throw Object.assign(new Error(`boom on attempt ${job.attempt}`), { code: 'order_rejected' });
    });
    const id = await a.enqueue('flaky', { id: 'poison-1', function_id: 'f', data: { x: 1 } });
    expect(id).toBe('poison-1');
    await waitFor(async () => (await a.topicStats('flaky')).dead === 1, 5_000, 'dead letter');
    await sleep(150);
    expect(starts.length).toBe(4);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    [60, 120, 240].forEach((want, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(want - 5);
      expect(gaps[i]).toBeLessThan(want + 1000); // generous: a loaded CI box delays timers, never advances them
    });
    const page = await a.listDeadLetters('flaky', 0, 10);
    expect(page.total).toBe(1);
    expect(page.messages).toHaveLength(1);
    expect(page.messages[0]).toMatchObject({ id: 'poison-1', function_id: 'f', data: { x: 1 }, attempts: 4 });
    expect(page.messages[0]!.error.message).toBe('boom on attempt 4');
    if (kind.name.startsWith('builtin') || kind.name.startsWith('Broker'))
      expect(page.messages[0]!.error.code).toBe('order_rejected');

    fail = false;
    expect(await a.redriveMessage('flaky', 'poison-1')).toBe(true);
    await waitFor(() => succeeded === 1, 5_000, 'redriven job to run');
    expect((await a.listDeadLetters('flaky', 0, 10)).total).toBe(0);
    expect(await a.redriveMessage('flaky', 'poison-1')).toBe(false);
  });

  maybe('redrive all, discard one, and list dead letters in pages', async () => {
    const a = await make({ maxAttempts: 1 }, ['dlq']);
    let fail = true;
    const ran: string[] = [];
    await a.consume('dlq', async (job) => {
      if (fail) throw new Error('nope');
      ran.push(job.id);
    });
    for (let i = 0; i < 5; i++) await a.enqueue('dlq', { id: `d${i}`, function_id: 'f', data: i });
    await waitFor(async () => (await a.topicStats('dlq')).dead === 5, 5_000, '5 dead letters');
    const p1 = await a.listDeadLetters('dlq', 0, 2);
    const p2 = await a.listDeadLetters('dlq', 2, 2);
    const p3 = await a.listDeadLetters('dlq', 4, 2);
    expect([p1.total, p1.messages.length, p2.messages.length, p3.messages.length]).toEqual([5, 2, 2, 1]);
    const ids = [...p1.messages, ...p2.messages, ...p3.messages].map((m) => m.id).sort();
    expect(ids).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);

    expect(await a.discardMessage('dlq', 'd2')).toBe(true);
    expect(await a.discardMessage('dlq', 'd2')).toBe(false);
    fail = false;
    expect(await a.redrive('dlq')).toBe(4);
    await waitFor(() => ran.length === 4, 5_000, 'redriven jobs');
    await sleep(100);
    expect(ran.sort()).toEqual(['d0', 'd1', 'd3', 'd4']);
    const stats = await a.topicStats('dlq');
    expect(stats).toMatchObject({ queue: 'dlq', dead: 0, waiting: 0, delayed: 0 });
    const topics = await a.listTopics();
    expect(topics.map((t) => t.queue)).toContain('dlq');
  });

  maybe('counts completed jobs, and jobs moved to dead letters as failed (a retry is not a failure)', async () => {
    const a = await make({ maxAttempts: 2, backoffMs: 20 }, ['tally']);
    let fail = true;
    await a.consume('tally', async (job) => {
      if (job.id === 'doomed' && fail) throw new Error('doomed');
    });
    await a.enqueue('tally', { id: 'doomed', function_id: 'f', data: null });
    await Promise.all(Array.from({ length: 25 }, (_, i) => a.enqueue('tally', { function_id: 'f', data: i })));
    const settled = async () => {
      const s = await a.topicStats('tally');
      return s.completed === 25 && s.dead === 1;
    };
    await waitFor(settled, 10_000, '25 completed jobs and one dead letter');
    await sleep(100);
    const after = { queue: 'tally', waiting: 0, active: 0, delayed: 0, dead: 1, completed: 25, failed: 1 };
    expect(await a.topicStats('tally')).toEqual(after);
    expect((await a.listTopics()).find((t) => t.queue === 'tally')).toEqual(after);

    // Redrive empties the dead letters; the failure stays counted and the redriven job's success is added.
    fail = false;
    expect(await a.redrive('tally')).toBe(1);
    await waitFor(async () => (await a.topicStats('tally')).completed === 26, 10_000, 'the redriven job');
    expect(await a.topicStats('tally')).toMatchObject({ dead: 0, completed: 26, failed: 1 });
  });

  maybe('completed and failed totals survive a restart where the backend keeps them', async (skip) => {
    if (!kind.keepsTotals) skip('counted by this process since it started (README "Topic stats")');
    const a = await make({ maxAttempts: 1 }, ['kept']);
    await a.consume('kept', async (job) => {
      if (job.id === 'bad') throw new Error('bad');
    });
    await a.enqueue('kept', { id: 'bad', function_id: 'f', data: null });
    for (let i = 0; i < 5; i++) await a.enqueue('kept', { function_id: 'f', data: i });
    const settled = async () => {
      const s = await a.topicStats('kept');
      return s.completed === 5 && s.dead === 1;
    };
    await waitFor(settled, 10_000, '5 completed jobs and one dead letter');
    await a.close(100);
    const b = await make({ maxAttempts: 1 }, ['kept']);
    expect((await b.listTopics()).find((t) => t.queue === 'kept')).toMatchObject({ completed: 5, failed: 1, dead: 1 });
  });

  maybe('a poison message does not hold up the others', async () => {
    // The poison job fails first and waits out a long backoff; every healthy job queued behind it still runs.
    const a = await make({ maxAttempts: 2, backoffMs: 60_000, concurrency: 5 }, ['mixed']);
    const healthy: string[] = [];
    let poisonAttempts = 0;
    await a.consume('mixed', async (job) => {
      if (job.id === 'poison') {
        poisonAttempts++;
        throw new Error('poison');
      }
      healthy.push(job.id);
    });
    await a.enqueue('mixed', { id: 'poison', function_id: 'f', data: null });
    const acked = await Promise.all(
      Array.from({ length: 200 }, (_, i) => a.enqueue('mixed', { id: `h${i}`, function_id: 'f', data: i })),
    );
    await waitFor(() => healthy.length === 200, 15_000, 'healthy jobs');
    expect(poisonAttempts).toBe(1);
    expect(await a.topicStats('mixed')).toMatchObject({ delayed: 1, waiting: 0 });
    const r = checkDeliveries(acked, healthy);
    expect([r.lost.length, r.duplicated.length, r.unexpected.length]).toEqual([0, 0, 0]);
  });

  maybe('acknowledged jobs survive a restart of the process', async (skip) => {
    if (!kind.durable) skip('in_memory: a restart loses the queue by definition (README.md, Config)');
    const a = await make({}, ['durable']);
    const acked: string[] = [];
    for (let i = 0; i < 100; i++) acked.push(await a.enqueue('durable', { function_id: 'f', data: i }));
    await a.close(100);
    const b = await make({}, ['durable']);
    const done: string[] = [];
    await b.consume('durable', async (job) => void done.push(job.id));
    await waitFor(() => done.length >= 100, 10_000, 'recovered jobs');
    const r = checkDeliveries(acked, done);
    expect([r.lost.length, r.duplicated.length, r.unexpected.length]).toEqual([0, 0, 0]);
  });

  maybe('a job whose worker stopped mid-attempt is delivered again', async (skip) => {
    if (!kind.durable) skip('in_memory: nothing outlives the process');
    const a = await make({}, ['stall']);
    let started = 0;
    await a.consume('stall', async () => {
      started++;
      await new Promise(() => undefined); // hangs: the process "dies" with this attempt running
    });
    await a.enqueue('stall', { id: 'stuck', function_id: 'f', data: null });
    await waitFor(() => started === 1, 5_000, 'first attempt');
    await a.close(10);
    const b = await make({}, ['stall']);
    const done: string[] = [];
    await b.consume('stall', async (job) => void done.push(job.id));
    await waitFor(() => done.length === 1, 8_000, 'redelivery');
    expect(done).toEqual(['stuck']);
  });

  maybe('enqueue with an id the queue already holds is a no-op', async (skip) => {
    if (!kind.dedupes) skip('RabbitMQ keeps no index of message ids; see README "Delivery guarantees"');
    const a = await make({}, ['idem']);
    for (let i = 0; i < 3; i++) await a.enqueue('idem', { id: 'same', function_id: 'f', data: i });
    expect(queued(await a.topicStats('idem'))).toBe(1);
  });

  maybe(
    'ambiguous enqueue (applied, but the producer saw an error): retrying with the same id runs it once',
    async (skip) => {
      if (!kind.dedupes) skip('RabbitMQ keeps no index of message ids; see README "Delivery guarantees"');
      const a = await make({}, ['ambiguous']);
      const runs = new Map<string, number>();
      await a.consume('ambiguous', async (job) => void runs.set(job.id, (runs.get(job.id) ?? 0) + 1));
      let seed = 42;
      const flip = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 10 < 3; // 30 %: "timed out"
      const keys = Array.from({ length: 100 }, (_, i) => `key-${i}`);
      await Promise.all(
        keys.map(async (key) => {
          for (;;) {
            await a.enqueue('ambiguous', { id: key, function_id: 'f', data: null }); // the write happened...
            if (!flip()) return; // ...and the producer saw it, or it saw a timeout and retries
            await sleep(5);
          }
        }),
      );
      await waitFor(() => runs.size === 100, 10_000, '100 keys');
      await sleep(100);
      expect([...runs.values()].filter((n) => n > 1)).toEqual([]);
    },
  );

  maybe('queue_configs override max_retries and concurrency per queue', async () => {
    const a = await make(
      { maxAttempts: 5, concurrency: 10, queueConfigs: { narrow: { max_retries: 1, concurrency: 2 } } },
      ['narrow'],
    );
    let running = 0;
    let max = 0;
    const attempts = new Map<string, number>();
    await a.consume('narrow', async (job) => {
      running++;
      max = Math.max(max, running);
      attempts.set(job.id, job.attempt);
      await sleep(10);
      running--;
      if (job.id === 'bad') throw new Error('always');
    });
    await a.enqueue('narrow', { id: 'bad', function_id: 'f', data: null });
    for (let i = 0; i < 10; i++) await a.enqueue('narrow', { function_id: 'f', data: i });
    await waitFor(async () => (await a.topicStats('narrow')).dead === 1, 5_000, 'dead letter');
    expect(max).toBe(2);
    expect(attempts.get('bad')).toBe(2); // max_retries 1 = two deliveries
    expect((await a.listDeadLetters('narrow', 0, 1)).messages[0]).toMatchObject({ id: 'bad', attempts: 2 });
  });

  maybe('another process on the same backend finds the queues and drains them', async (skip) => {
    if (!kind.shared) skip('the builtin queue lives in one process');
    const a = await make({}, ['found']);
    for (let i = 0; i < 20; i++) await a.enqueue('found', { function_id: 'f', data: i });
    const b = await make({}, ['found']);
    const topics = await b.listTopics();
    const found = topics.find((t) => t.queue === 'found');
    expect(found && queued(found)).toBe(20);
    const done: string[] = [];
    for (const t of topics) await b.consume(t.queue, async (job) => void done.push(job.id));
    await waitFor(() => done.length === 20, 5_000, '20 jobs drained by the other process');
  });

  maybe('random failures: every job ends completed or dead-lettered exactly once, within max_attempts', async () => {
    const a = await make({ maxAttempts: 3, backoffMs: 20 }, ['random']);
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const completed: string[] = [];
    const attempts = new Map<string, number>();
    await a.consume('random', async (job) => {
      attempts.set(job.id, (attempts.get(job.id) ?? 0) + 1);
      if (rand() < 0.4) throw new Error(`unlucky ${job.id}`);
      completed.push(job.id);
    });
    const ids = await Promise.all(
      Array.from({ length: 150 }, (_, i) => a.enqueue('random', { id: `r${i}`, function_id: 'f', data: i })),
    );
    const settled = async () => {
      const s = await a.topicStats('random');
      return s.waiting + s.active + s.delayed === 0 && completed.length + s.dead === 150;
    };
    await waitFor(settled, 15_000, 'every job to settle');
    const dead = (await a.listDeadLetters('random', 0, 1000)).messages.map((m) => m.id);
    const r = checkDeliveries(ids, [...completed, ...dead]);
    expect([r.lost, r.duplicated, r.unexpected]).toEqual([[], [], []]);
    expect([...attempts.values()].every((n) => n <= 3)).toBe(true);
    for (const id of dead) expect(attempts.get(id)).toBe(3);
  });

  maybe(
    'a job that takes its worker down on every attempt ends in dead letters',
    async (skip) => {
      if (!kind.durable) skip('in_memory: nothing outlives the process');
      const first = await make({ maxAttempts: 2 }, ['killer']);
      await first.enqueue('killer', { id: 'killer', function_id: 'f', data: null });
      await first.close(10);
      // Each round: a fresh "process" picks the job up and dies (is closed) mid-attempt.
      for (let round = 0; round < 6; round++) {
        const a = await make({ maxAttempts: 2 });
        if ((await a.topicStats('killer')).dead === 1) return;
        let started = false;
        await a.consume('killer', async () => {
          started = true;
          await new Promise(() => undefined);
        });
        await waitFor(
          async () => started || (await a.topicStats('killer')).dead === 1,
          8_000,
          'the job to start or be dead-lettered',
        );
        await a.close(10);
      }
      throw new Error('the job never reached dead letters');
    },
    60_000,
  );

  maybe(
    'a second process on the same store file is refused (the builtin store belongs to one process)',
    async (skip) => {
      if (kind.name !== 'builtin file_based') skip('only the builtin file store is owned by a single process');
      const a = await make({}, ['owned']);
      await a.enqueue('owned', { function_id: 'f', data: 1 });
      const b = kind.make(ns, {});
      await expect(b.start()).rejects.toMatchObject({ code: 'queue_store_locked' });
    },
  );

  maybe('ids are opaque strings: integer-like and colon-laden ids come back unchanged', async () => {
    const a = await make({ maxAttempts: 1 }, ['ids']);
    const seen: string[] = [];
    await a.consume('ids', async (job) => {
      seen.push(job.id);
      if (job.id === 'bad::1:2') throw new Error('refused');
    });
    for (const id of ['42', 'orders::create:7', 'bad::1:2']) {
      expect(await a.enqueue('ids', { id, function_id: 'f', data: null })).toBe(id);
    }
    await waitFor(async () => (await a.topicStats('ids')).dead === 1, 5_000, 'the dead letter');
    expect(seen.sort()).toEqual(['42', 'bad::1:2', 'orders::create:7']);
    expect((await a.listDeadLetters('ids', 0, 10)).messages.map((m) => m.id)).toEqual(['bad::1:2']);
    expect(await a.discardMessage('ids', 'bad::1:2')).toBe(true);
  });
});
