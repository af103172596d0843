/**
 * Three engines on one nats-server form one cluster: a call to a function registered on another engine is
 * routed there and answered as if local, in both directions, with iii-sdk and with our SDK; every engine lists
 * every function and every worker (with the engine it is on); replicas on several engines share the load.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker as registerIiiWorker, type IIIClient } from 'iii-sdk';
import type { SvcClient } from '@svc/sdk';
import { rawCall, waitFor, type EngineProcess } from '../harness.js';
import {
  NATS_URL,
  natsPort,
  ourWorker,
  portOpen,
  startCluster,
  statusOf,
  waitListedEverywhere,
} from './cluster-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));
if (!natsUp) console.warn(`cluster tests skipped: nats-server is not reachable at ${NATS_URL}`);

describe.skipIf(!natsUp)('a cluster of three engines', () => {
  let engines: EngineProcess[] = [];
  const clients: SvcClient[] = [];
  let iii: IIIClient | undefined;
  let iiiCaller: IIIClient | undefined;

  beforeAll(async () => {
    engines = await startCluster(3);
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    // our SDK on B, iii-sdk on A; replicas of one function on all three
    const onB = ourWorker(b, 'worker-b');
    onB.registerFunction('b::echo', (data: unknown) => ({ on: 'b', data }));
    iii = registerIiiWorker(a, { otel: { enabled: false }, workerName: 'worker-a' });
    iii.registerFunction('a::echo', async (data: unknown) => ({ on: 'a', data }));
    clients.push(onB);
    for (const [label, url] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      const w = ourWorker(url, `replica-${label}`);
      w.registerFunction('shared::where', () => ({ on: label }));
      clients.push(w);
    }
    iiiCaller = registerIiiWorker(c, { otel: { enabled: false }, workerName: 'iii-caller' });
    await waitListedEverywhere([a, b, c], 'b::echo');
    await waitListedEverywhere([a, b, c], 'a::echo');
    await waitListedEverywhere([a, b, c], 'shared::where');
  });

  afterAll(async () => {
    await Promise.all([...clients.map((c) => c.shutdown()), iii?.shutdown(), iiiCaller?.shutdown()]);
    await Promise.all(engines.map((e) => e.stop()));
  });

  it('routes an iii-sdk call on C to our SDK worker on B, with the caller id carried across', async () => {
    const result = (await iiiCaller!.trigger({ function_id: 'b::echo', payload: { n: 1 } })) as {
      on: string;
      data: { n: number; _caller_worker_id?: string };
    };
    expect(result.on).toBe('b');
    expect(result.data.n).toBe(1);
    expect(typeof result.data._caller_worker_id).toBe('string');
  });

  it('routes our SDK call on B to the iii-sdk worker on A, and the other way round', async () => {
    const fromB = clients[0]!;
    await expect(fromB.trigger({ function_id: 'a::echo', payload: { x: 'y' } })).resolves.toMatchObject({
      on: 'a',
      data: { x: 'y' },
    });
    await expect(iii!.trigger({ function_id: 'b::echo', payload: { z: 2 } })).resolves.toMatchObject({ on: 'b' });
  });

  it('answers a remote handler error and an unknown function as a local call would', async () => {
    const failing = ourWorker(engines[1]!.url, 'failing');
    failing.registerFunction('b::fail', () => {
      throw new Error('boom on b');
    });
    clients.push(failing);
    await waitListedEverywhere([engines[0]!.url], 'b::fail');
    const err = await iii!.trigger({ function_id: 'b::fail', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invocation_failed' });
    expect((err as Error).message).toContain('boom on b');
    const missing = await rawCall(engines[0]!.url, 'nowhere::at-all', {});
    expect(missing.error?.code).toBe('function_not_found');
  });

  it('answers a call or a result larger than NATS carries at once, with what was too large', async () => {
    const big = ourWorker(engines[1]!.url, 'big');
    big.registerFunction('b::big', ({ bytes }: { bytes: number }) => 'z'.repeat(bytes));
    clients.push(big);
    await waitListedEverywhere([engines[0]!.url], 'b::big');
    const caller = ourWorker(engines[0]!.url, 'big-caller'); // on A: every call to b::big crosses NATS
    clients.push(caller);
    await caller.ready();
    const started = Date.now();
    const result = await caller.trigger({ function_id: 'b::big', payload: { bytes: 2 * 1024 * 1024 } }).catch((e) => e);
    expect(result).toMatchObject({ code: 'result_too_large' });
    expect((result as Error).message).toMatch(/NATS/);
    const payload = await caller
      .trigger({ function_id: 'b::big', payload: { bytes: 1, pad: 'p'.repeat(2 * 1024 * 1024) } })
      .catch((e) => e);
    expect(payload).toMatchObject({ code: 'payload_too_large' });
    expect(Date.now() - started).toBeLessThan(5000); // not the 30 s deadline
    expect(await caller.trigger({ function_id: 'b::big', payload: { bytes: 3 } })).toBe('zzz');
  });

  it('carries the caller deadline: a remote call past its timeout fails with invocation_timeout', async () => {
    const slow = ourWorker(engines[2]!.url, 'slow');
    slow.registerFunction('c::slow', () => new Promise((r) => setTimeout(() => r('late'), 3000)));
    clients.push(slow);
    await waitListedEverywhere([engines[0]!.url], 'c::slow');
    const err = await clients[0]!.trigger({ function_id: 'c::slow', payload: {}, timeoutMs: 300 }).catch((e) => e);
    expect((err as { code: string }).code).toMatch(/invocation_timeout|TIMEOUT/);
  });

  it('carries the caller’s invocation id to the executor on the other engine', async () => {
    const seen: (string | undefined)[] = [];
    const idWorker = ourWorker(engines[2]!.url, 'ids');
    idWorker.registerFunction('c::id', (_data: unknown, ctx: { invocationId?: string }) => {
      seen.push(ctx.invocationId);
      return 'ok';
    });
    clients.push(idWorker);
    await waitListedEverywhere([engines[0]!.url], 'c::id');
    const id = randomUUID();
    const ws = new WebSocket(engines[0]!.url);
    const answer = await new Promise<{ invocation_id: string; result: unknown }>((resolve, reject) => {
      ws.on('open', () =>
        ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: 'c::id', data: {} })),
      );
      ws.on('message', (raw) => {
        const msg = JSON.parse((raw as Buffer).toString()) as { type: string; invocation_id: string; result: unknown };
        if (msg.type === 'invocationresult') resolve(msg);
      });
      ws.on('error', reject);
    });
    ws.close();
    expect(answer).toMatchObject({ invocation_id: id, result: 'ok' });
    expect(seen).toEqual([id]);
  });

  it('carries cancellation: a caller aborting a remote call aborts the handler on the other engine', async () => {
    let aborted = false;
    let started = false;
    const holder = ourWorker(engines[2]!.url, 'cancellable');
    holder.registerFunction('c::cancellable', (_data: unknown, ctx: { signal: AbortSignal }) => {
      started = true;
      return new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve('stopped');
        });
      });
    });
    clients.push(holder);
    await waitListedEverywhere([engines[1]!.url], 'c::cancellable');
    const controller = new AbortController();
    const call = clients[0]!.trigger({ function_id: 'c::cancellable', payload: {}, signal: controller.signal });
    await waitFor(() => started, 5000, 'handler started');
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await waitFor(() => aborted, 5000, 'handler aborted on the other engine');
  });

  it('lists every function and every worker of the cluster on each engine, with the engine of each worker', async () => {
    const ids = await Promise.all(engines.map(async (e) => (await statusOf(e.url)).engine_id));
    for (const engine of engines) {
      const answer = await rawCall(engine.url, 'engine::workers::list', {});
      const workers = (answer.result as { workers: { name: string; engine_id?: string }[] }).workers;
      const byName = new Map(workers.map((w) => [w.name, w.engine_id]));
      expect(byName.get('worker-a')).toBe(ids[0]);
      expect(byName.get('worker-b')).toBe(ids[1]);
      expect(byName.get('replica-c')).toBe(ids[2]);
      const fns = await rawCall(engine.url, 'engine::functions::list', {});
      const shared = (fns.result as { functions: { function_id: string; replicas: number }[] }).functions.find(
        (f) => f.function_id === 'shared::where',
      );
      expect(shared?.replicas).toBe(3);
    }
  });

  it('spreads calls to replicas on three engines over all of them', async () => {
    const seen = new Map<string, number>();
    const caller = clients[0]!;
    for (let i = 0; i < 90; i++) {
      const { on } = (await caller.trigger({ function_id: 'shared::where', payload: {} })) as { on: string };
      seen.set(on, (seen.get(on) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(['a', 'b', 'c']);
    for (const n of seen.values()) expect(n).toBeGreaterThan(10);
  });

  it('drops a worker’s functions from every engine within a second of it leaving', async () => {
    const brief = ourWorker(engines[2]!.url, 'brief');
    brief.registerFunction('c::brief', () => 'here');
    await waitListedEverywhere([engines[0]!.url], 'c::brief');
    await expect(clients[0]!.trigger({ function_id: 'c::brief', payload: {} })).resolves.toBe('here');
    await brief.shutdown();
    const { listedFunctions } = await import('./cluster-support.js');
    await waitFor(async () => !(await listedFunctions(engines[0]!.url)).includes('c::brief'), 1500, 'c::brief gone');
  });
});
