/**
 * `reattach` (docs/protocol.md, "1.5 Reconnecting") with the real iii-sdk: the worker's socket dies on its side only (a
 * proxy drops it, the engine sees nothing), the worker reconnects and sends `reattach` with its token, and the engine
 * evicts the stale connection at once instead of keeping a ghost replica until the heartbeat notices.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { rawCall, startEngine, waitFor, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let proxy: Server;
let proxyPort = 0;
const pairs: { client: Socket; upstream: Socket }[] = [];
let worker: IIIClient;

async function replicas(id: string): Promise<number> {
  const answer = await rawCall(engine.url, 'engine::functions::info', { function_id: id });
  return (answer.result as { replicas?: number } | undefined)?.replicas ?? 0;
}

beforeAll(async () => {
  engine = await startEngine(); // default heartbeat: a ghost would stay for ~30 s
  proxy = createServer((client) => {
    const upstream = connect(engine.port, '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    pairs.push({ client, upstream });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyPort = (proxy.address() as { port: number }).port;
  worker = registerWorker(`ws://127.0.0.1:${proxyPort}`, {
    otel: { enabled: false },
    workerName: 'reattacher',
    reconnectionConfig: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  worker.registerFunction('reattach::echo', async (p: unknown) => p);
  await waitFor(async () => (await replicas('reattach::echo')) === 1, 5000);
});

afterAll(async () => {
  await worker?.shutdown();
  for (const { client, upstream } of pairs) {
    client.destroy();
    upstream.destroy();
  }
  proxy?.close();
  await engine?.stop();
});

describe('reattach', () => {
  it('evicts the stale connection as soon as the worker comes back with its token', async () => {
    const reattachers = async (): Promise<string[]> => {
      const list = (await rawCall(engine.url, 'engine::workers::list', {})).result as {
        workers: { name: string; id: string }[];
      };
      return list.workers.filter((w) => w.name === 'reattacher').map((w) => w.id);
    };
    const original = (
      await waitFor(async () => {
        const ids = await reattachers();
        return ids.length === 1 ? ids : undefined;
      }, 3000)
    )?.[0];
    expect(original).toBeDefined();
    const stale = pairs[0]!;
    stale.client.unpipe(stale.upstream);
    stale.upstream.unpipe(stale.client);
    stale.client.destroy(); // the worker sees a close; the engine's side stays open (half-open)
    await waitFor(async () => (await reattachers()).some((id) => id !== original), 5000, 'the new connection');
    // without reattach the stale connection would linger until the heartbeat timeout (30 s by default)
    expect(await reattachers()).not.toContain(original);
    expect(await replicas('reattach::echo')).toBe(1);
    const result = await rawCall(engine.url, 'reattach::echo', { back: true });
    expect(result.result).toMatchObject({ back: true });
  });
});
