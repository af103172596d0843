/**
 * The docker compose topology, run as real processes on this machine (no Docker engine here): an engine whose config
 * lists no capability worker (so it supervises nothing), and every capability worker started on its own with
 * `svc worker <name> --url …`, connecting over the network, exactly as the compose services do: three svc-queue
 * replicas sharing the work on Redis (one killed mid-run: lost = 0), two svc-http replicas serving the same routes,
 * and svc-state, svc-cron and svc-stream on Redis. (Two engines bridged with a partition: bridge-client.test.ts.)
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWorker, TriggerAction, type SvcClient } from '@svc/sdk';
import { checkDeliveries } from '../../workers/queue/test/checker.js';
import { freePort, rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLI = 'cli/dist/main.js';
const ns = `svc-topo-${randomUUID().slice(0, 8)}`;

const redisUp = await new Promise<boolean>((resolve) => {
  const s = net.connect(6379, '127.0.0.1');
  s.once('connect', () => (s.destroy(), resolve(true)));
  s.once('error', () => resolve(false));
});

let engine: EngineProcess;
let user: SvcClient;
const queues: Child[] = [];
const https: { child: Child; base: string }[] = [];
const others: Child[] = [];

/** `svc worker <name>` as its own process, the way a compose service runs it. */
function svcWorker(name: string, config: object): Child {
  return spawnWorker(CLI, { SVC_MODULE_CONFIG: JSON.stringify(config), SVC_LOG_LEVEL: 'warn' }, [
    'worker',
    name,
    '--url',
    engine.url,
  ]);
}

/** The parent chain of a process, from /proc (Linux). */
function ancestors(pid: number): number[] {
  const chain: number[] = [];
  for (let at = pid; at > 1 && chain.length < 50;) {
    const stat = readFileSync(`/proc/${at}/stat`, 'utf8');
    at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    chain.push(at);
  }
  return chain;
}

/** The connected workers called `name` that have registered their functions (connected is not yet ready). */
async function workerIds(name: string): Promise<string[]> {
  const answer = await rawCall(engine.url, 'engine::workers::list', {});
  const workers = (answer.result as { workers: { id: string; name: string; function_count: number }[] }).workers;
  return workers.filter((w) => w.name === name && w.function_count > 0).map((w) => w.id);
}

const queueConfig = {
  // Named here, the queue is consumed by every replica from its start (not only by those that enqueued to it).
  queue_configs: { [`${ns}-jobs`]: { concurrency: 5 } },
  adapter: {
    class: 'modules::queue::KvserverAdapter',
    config: { kvserver_url: REDIS_URL, prefix: ns, backoff_ms: 100, lock_duration_ms: 1500, stalled_interval_ms: 500 },
  },
};

describe.skipIf(!redisUp)('the compose topology as processes (needs Redis; scripts/services.sh starts it)', () => {
  beforeAll(async () => {
    engine = await startEngine({
      modules: [
        {
          class: 'modules::pubsub::PubSubModule',
          config: { adapter: { class: 'modules::pubsub::KvserverAdapter', config: { kvserver_url: REDIS_URL } } },
        },
      ],
    });
    for (let i = 0; i < 3; i++) queues.push(svcWorker('svc-queue', queueConfig));
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      https.push({ child: svcWorker('svc-http', { host: '127.0.0.1', port }), base: `http://127.0.0.1:${port}` });
    }
    const redis = (extra: object = {}) => ({ kvserver_url: REDIS_URL, ...extra });
    others.push(
      svcWorker('svc-state', {
        adapter: { class: 'modules::state::adapters::KvserverAdapter', config: redis({ key_prefix: `${ns}:state:` }) },
      }),
      svcWorker('svc-cron', { adapter: { class: 'modules::cron::KvserverCronAdapter', config: redis() } }),
      svcWorker('svc-stream', {
        host: '127.0.0.1',
        port: await freePort(),
        adapter: { class: 'modules::stream::adapters::KvserverAdapter', config: redis({ key_prefix: `${ns}:` }) },
      }),
    );
    await waitFor(async () => (await workerIds('svc-queue')).length === 3, 60_000, 'three svc-queue replicas');
    await waitFor(async () => (await workerIds('svc-http')).length === 2, 60_000, 'two svc-http replicas');
    for (const name of ['svc-state', 'svc-cron', 'svc-stream']) {
      await waitFor(async () => (await workerIds(name)).length === 1, 60_000, name);
    }
    user = registerWorker(engine.url, { workerName: 'topology-user', logger: pino({ level: 'silent' }) });
    await user.ready();
  }, 240_000);

  afterAll(async () => {
    await user?.shutdown();
    await Promise.all([...queues, ...https.map((h) => h.child), ...others].map((c) => c.stop()));
    await engine?.stop();
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${ns}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it('the engine supervises nothing: every capability worker is a process of its own', async () => {
    const answer = await rawCall(engine.url, 'engine::workers::list', {});
    const workers = (answer.result as { workers: { id: string; name: string; isolation: string | null }[] }).workers;
    const external = workers.filter((w) => w.name.startsWith('svc-') && w.isolation !== 'in-process');
    const count = (name: string) => external.filter((w) => w.name === name).length;
    expect([count('svc-queue'), count('svc-http'), count('svc-state'), count('svc-cron'), count('svc-stream')]).toEqual(
      [3, 2, 1, 1, 1],
    );
    for (const w of external) {
      const info = await rawCall(engine.url, 'engine::workers::info', { id: w.id });
      const pid = (info.result as { worker: { pid: number | null } }).worker.pid;
      expect(pid, w.name).not.toBeNull();
      // Not a child of the engine: its parent is whoever started it (here the test, under compose the container).
      expect(ancestors(pid as number), w.name).not.toContain(engine.proc.pid);
    }
  });

  it('three svc-queue replicas share the work; one killed mid-run loses nothing', async () => {
    const done: string[] = [];
    const ranOn = new Set<string>();
    user.registerFunction('topology::job', async (p: { seq: string; _caller_worker_id?: string }) => {
      if (p._caller_worker_id) ranOn.add(p._caller_worker_id);
      await new Promise((r) => setTimeout(r, 10));
      done.push(p.seq);
    });
    const acked: string[] = [];
    const enqueue = async (i: number) => {
      try {
        await user.trigger({
          function_id: 'topology::job',
          payload: { seq: `j${i}` },
          action: TriggerAction.Enqueue({ queue: `${ns}-jobs` }),
          timeoutMs: 10_000,
        });
        acked.push(`j${i}`);
      } catch {
        // Not acknowledged (the replica taking it died): not counted as lost.
      }
    };
    let sent = 0;
    const more = async (n: number): Promise<void> => {
      const from = sent;
      sent += n;
      await Promise.all(Array.from({ length: n }, (_, i) => enqueue(from + i)));
    };
    await more(200);
    // Every replica runs jobs (the caller of a job's function is the svc-queue replica that delivered it); work
    // keeps coming until they do (on a loaded machine a replica's consumer can start after the first batch is done).
    await waitFor(
      async () => {
        if (done.length >= 50 && ranOn.size === 3) return true;
        if (sent < 1000 && done.length >= acked.length) await more(100);
        return false;
      },
      30_000,
      'all three replicas running jobs',
    );
    await queues[0]?.kill();
    // Enqueues the engine routed to the killed replica before it saw the socket close fail unacknowledged (allowed);
    // the second batch starts once the engine has dropped it, so it measures the two survivors.
    await waitFor(async () => (await workerIds('svc-queue')).length === 2, 20_000, 'the killed replica dropped');
    await more(200);
    await waitFor(() => checkDeliveries(acked, done).lost.length === 0, 30_000, 'every acknowledged job');
    const r = checkDeliveries(acked, done);
    expect({ lost: r.lost.length, unexpected: r.unexpected.length }).toEqual({ lost: 0, unexpected: 0 });
    expect(acked.length).toBeGreaterThan(sent - 50);
  }, 90_000);

  it('two svc-http replicas serve the same routes', async () => {
    user.registerFunction('topology::hello', (req: { query_params?: Record<string, string> }) => ({
      status_code: 200,
      body: { hello: req.query_params?.['name'] ?? 'world' },
    }));
    user.registerTrigger({
      type: 'http',
      function_id: 'topology::hello',
      config: { api_path: 'topology/hello', http_method: 'GET' },
    });
    for (const { base } of https) {
      const body = await waitFor(async () => {
        const res = await request(`${base}/topology/hello?name=ada`);
        return res.statusCode === 200 ? await res.body.json() : (await res.body.dump(), undefined);
      }, 15_000);
      expect(body).toEqual({ hello: 'ada' });
    }
  });

  it('state, cron and stream answer through the engine', async () => {
    await user.trigger({ function_id: 'state::set', payload: { scope: ns, key: 'k', value: { n: 1 } } });
    expect(await user.trigger({ function_id: 'state::get', payload: { scope: ns, key: 'k' } })).toEqual({ n: 1 });
    await user.trigger({
      function_id: 'stream::set',
      payload: { stream_name: ns, group_id: 'g', item_id: 'i', data: { ok: true } },
    });
    expect(await user.trigger({ function_id: 'stream::list', payload: { stream_name: ns, group_id: 'g' } })).toEqual([
      { ok: true },
    ]);
    expect(await user.trigger({ function_id: 'cron::list', payload: {} })).toBeDefined();
  });
});

describe('svc worker', () => {
  it('an unknown worker name is a usage error listing the names', async () => {
    const child = spawnWorker(CLI, {}, ['worker', 'svc-queues']);
    expect(await child.exit).toBe(2);
    expect(child.logs()).toContain('unknown worker "svc-queues"; expected one of svc-http, svc-state');
  });

  it("a bad worker config stops it with exit code 2, naming the key (as the engine's supervisor would see it)", async () => {
    const child = spawnWorker(
      CLI,
      {
        SVC_MODULE_CONFIG: JSON.stringify({
          adapter: { class: 'modules::queue::BuiltinQueueAdapter', config: { mode: 'lifo' } },
        }),
      },
      ['worker', 'queue', '--url', 'ws://127.0.0.1:1'],
    );
    expect(await child.exit).toBe(2);
    expect(child.logs()).toMatch(/adapter\.config\.mode/);
  });
});
