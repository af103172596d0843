/**
 * Losing an engine of a three-engine cluster under load (kill -9): the calls in flight on it fail with a typed
 * error (`cluster_engine_lost`), never hang; it is dropped from routing within the heartbeat timeout; calls made
 * after that all succeed on the engines left; a worker given several engine URLs fails over to another engine
 * and its function is reachable from the whole cluster again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { waitFor, type EngineProcess } from '../harness.js';
import {
  NATS_URL,
  listedFunctions,
  natsPort,
  ourWorker,
  peersOf,
  portOpen,
  startCluster,
  statusOf,
  waitListedEverywhere,
} from './cluster-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));
if (!natsUp) console.warn(`cluster tests skipped: nats-server is not reachable at ${NATS_URL}`);

describe.skipIf(!natsUp)('kill -9 of one engine of three', () => {
  let engines: EngineProcess[] = [];
  const clients: SvcClient[] = [];
  let roamer: SvcClient;

  beforeAll(async () => {
    engines = await startCluster(3);
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    for (const [label, url] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      const w = ourWorker(url, `load-${label}`);
      w.registerFunction('load::work', async (data: { i: number }) => {
        await new Promise((r) => setTimeout(r, 5));
        return { on: label, i: data.i };
      });
      clients.push(w);
    }
    const holder = ourWorker(c, 'holder');
    holder.registerFunction('hold::long', () => new Promise((r) => setTimeout(() => r('done'), 20_000)));
    clients.push(holder);
    roamer = ourWorker([c, a], 'roamer');
    roamer.registerFunction('roam::ping', () => 'pong');
    clients.push(roamer);
    await waitListedEverywhere([a, b], 'load::work');
    await waitListedEverywhere([a, b], 'hold::long');
    await waitListedEverywhere([a, b], 'roam::ping');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await Promise.all(engines.map((e) => (e.exited ? Promise.resolve() : e.stop())));
  });

  it('fails calls in flight with cluster_engine_lost, drops the engine, then serves every call', async () => {
    const [a, b, c] = engines as [EngineProcess, EngineProcess, EngineProcess];
    const callerA = clients[0]!;
    const callerB = clients[1]!;
    const cId = (await statusOf(c.url)).engine_id;

    // load from A and B while C dies
    let stop = false;
    const outcomes = { ok: 0, lost: 0, other: [] as string[] };
    const loop = async (caller: SvcClient): Promise<void> => {
      for (let i = 0; !stop; i++) {
        try {
          await caller.trigger({ function_id: 'load::work', payload: { i }, timeoutMs: 10_000 });
          outcomes.ok++;
        } catch (err) {
          const code = (err as { code?: string }).code ?? String(err);
          if (code === 'cluster_engine_lost') outcomes.lost++;
          else outcomes.other.push(code);
        }
      }
    };
    const loops = [...Array(8)].map((_, i) => loop(i % 2 === 0 ? callerA : callerB));
    const held = callerA.trigger({ function_id: 'hold::long', payload: {}, timeoutMs: 30_000 }).catch((e) => e);
    await waitFor(() => outcomes.ok > 50, 10_000, 'load running');

    const killedAt = Date.now();
    await c.kill();
    const err = (await held) as { code?: string; message?: string };
    expect(err.code).toBe('cluster_engine_lost');
    expect(err.message).toContain(cId);
    expect(Date.now() - killedAt).toBeLessThan(10_000); // failed, not hung until its 30 s deadline

    // detection: C is no longer a peer of A or B, and its functions are gone from their listings
    await waitFor(async () => !(await peersOf(a.url)).includes(cId), 5000, 'A drops C');
    await waitFor(async () => !(await peersOf(b.url)).includes(cId), 5000, 'B drops C');
    expect(await listedFunctions(a.url)).not.toContain('hold::long');
    stop = true;
    await Promise.all(loops);
    console.info(`calls during the kill: ${outcomes.ok} ok, ${outcomes.lost} cluster_engine_lost`);
    expect(outcomes.other).toEqual([]);

    // after detection: 0 errors
    const after = { ok: 0, failed: [] as string[] };
    await Promise.all(
      [...Array(200)].map((_, i) =>
        (i % 2 === 0 ? callerA : callerB).trigger<{ on: string }>({ function_id: 'load::work', payload: { i } }).then(
          (r) => {
            expect(r.on).not.toBe('c');
            after.ok++;
          },
          (e: Error & { code?: string }) => after.failed.push(e.code ?? String(e)),
        ),
      ),
    );
    expect(after.failed).toEqual([]);
    expect(after.ok).toBe(200);
  });

  it('a worker given several engine URLs fails over, and the cluster reaches it again', async () => {
    const [a, b] = engines as [EngineProcess, EngineProcess];
    await waitListedEverywhere([a.url, b.url], 'roam::ping');
    await expect(clients[1]!.trigger({ function_id: 'roam::ping', payload: {} })).resolves.toBe('pong');
  });

  it('sees an engine that joins within a second, and drops one that stops cleanly at once', async () => {
    const [a, b] = engines as [EngineProcess, EngineProcess];
    const name = (await statusOf(a.url)).cluster;
    const [d] = await startCluster(1, NATS_URL, name, 2);
    const dId = (await statusOf(d!.url)).engine_id;
    await waitFor(async () => (await peersOf(a.url)).includes(dId), 1000, 'A sees D');
    const bId = (await statusOf(b.url)).engine_id;
    await b.stop();
    await waitFor(async () => !(await peersOf(a.url)).includes(bId), 1000, 'A drops B');
    await waitFor(async () => !(await peersOf(d!.url)).includes(bId), 1000, 'D drops B');
    await d!.stop();
  });
});
