/**
 * State in a cluster: svc-state processes on Redis (connected to engines A and C, each given both URLs), a writer
 * connected to C then A, a reader on B. `kill -9` of engine C mid-run: every write that was acknowledged is read
 * back through another engine (lost acked writes = 0).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { spawnWorker, waitFor, type Child, type EngineProcess } from '../harness.js';
import { NATS_URL, natsPort, ourWorker, portOpen, startCluster, waitListedEverywhere } from './cluster-support.js';
import { REDIS_URL, STATE_MAIN, redisAdapter } from './state-helpers.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));
const redisUp = await portOpen(Number(new URL(REDIS_URL).port || 6379));
if (!natsUp || !redisUp) console.warn('cluster state test skipped: needs nats-server (4222) and Redis (6379)');

describe.skipIf(!natsUp || !redisUp)('svc-state on Redis across a cluster, one engine killed', () => {
  const prefix = `svccs${randomUUID().slice(0, 8)}`;
  let engines: EngineProcess[] = [];
  const children: Child[] = [];
  const clients: SvcClient[] = [];

  beforeAll(async () => {
    engines = await startCluster(3);
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    const config = JSON.stringify({ adapter: redisAdapter(prefix) });
    for (const url of [`${a},${c}`, `${c},${a}`]) {
      const child = spawnWorker(STATE_MAIN, { SVC_URL: url, SVC_MODULE_CONFIG: config });
      children.push(child);
      await child.waitForOutput('"svc-state started"', 30_000);
    }
    await waitListedEverywhere([a, b, c], 'state::set');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await Promise.all(children.map((c) => c.stop()));
    await Promise.all(engines.map((e) => (e.exited ? Promise.resolve() : e.stop())));
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it('loses no acknowledged write when an engine is killed mid-run', async () => {
    const [a, b, c] = engines as [EngineProcess, EngineProcess, EngineProcess];
    const writer = ourWorker([c.url, a.url], 'writer');
    const reader = ourWorker(b.url, 'reader');
    clients.push(writer, reader);
    await Promise.all([writer.ready(), reader.ready()]);
    const acked: number[] = [];
    const write = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from }, async (_, i) => {
          const n = from + i;
          for (let attempt = 0; attempt < 20; attempt++) {
            try {
              await writer.trigger({
                function_id: 'state::set',
                payload: { scope: 'cluster', key: `k${n}`, value: { n } },
                timeoutMs: 5000,
              });
              acked.push(n);
              return;
            } catch {
              await new Promise((r) => setTimeout(r, 200));
            }
          }
        }),
      );
    const first = write(0, 300);
    await waitFor(() => acked.length >= 50, 20_000, 'writes to start');
    await c.kill(); // SIGKILL with writes in flight
    await first;
    await write(300, 400);
    // Reading back is the check, not the fault: a read that fails (on a loaded machine a live engine can miss
    // heartbeats and be dropped for a moment, ending its calls with cluster_engine_lost) is asked again.
    const read = async (n: number): Promise<unknown> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await reader.trigger({ function_id: 'state::get', payload: { scope: 'cluster', key: `k${n}` } });
        } catch (err) {
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const lost: number[] = [];
    for (const n of acked) {
      const value = await read(n);
      if ((value as { n?: number } | null)?.n !== n) lost.push(n);
    }
    console.info(`acked writes ${acked.length}, lost ${lost.length}`);
    expect(lost).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(395);
  });
});
