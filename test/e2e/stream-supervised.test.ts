/**
 * svc-stream as the engine runs it from the config file (`name: svc-stream`, supervised): its functions and client
 * socket come up, and it leaves no orphan when the engine is killed.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, rawCall, startEngine, waitFor, type EngineProcess } from '../harness.js';
import { MEMORY_ADAPTER, rawClient, startStream, upgradeStatus, type StreamProcess } from './stream-helpers.js';

let engine: EngineProcess | undefined;
let byHand: StreamProcess | undefined;

afterAll(async () => {
  await byHand?.stop();
  await engine?.stop();
});

/** svc-stream processes whose module config names `port` (so other tests' processes are not counted). */
function streamPids(port: number): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('workers/stream/dist/main.js'))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => {
      try {
        return execFileSync('cat', [`/proc/${pid}/environ`], { encoding: 'utf8' }).includes(`"port":${port}`);
      } catch {
        return false;
      }
    });
}

describe('svc-stream spawned by the engine', () => {
  it('serves functions and clients from the config, and exits when the engine is killed', async () => {
    const port = await freePort();
    engine = await startEngine({
      modules: [{ name: 'svc-stream', config: { port, host: '127.0.0.1', adapter: MEMORY_ADAPTER } }],
    });
    const url = `ws://127.0.0.1:${port}/`;
    await waitFor(async () => (await upgradeStatus(url).catch(() => 0)) === 101, 15_000, 'client socket');
    await waitFor(
      async () => {
        const answer = await rawCall(engine!.url, 'stream::set', {
          stream_name: 's',
          group_id: 'g',
          item_id: 'i',
          data: { id: 'i' },
        });
        return answer.error === undefined;
      },
      15_000,
      'stream::set',
    );
    const client = await rawClient(url);
    client.join('x', 's', 'g');
    await waitFor(() => client.frames.length === 1, 5000, 'sync');
    expect(client.frames[0]?.event).toEqual({ type: 'sync', data: [{ id: 'i' }] });
    client.ws.close();

    const pids = streamPids(port);
    expect(pids).toHaveLength(1);
    await engine.kill();
    await waitFor(() => streamPids(port).length === 0, 10_000, 'svc-stream to exit after the engine died');
    await engine.stop(); // already dead: removes its temp dir
  });

  it('started by hand, rides out an engine restart: clients stay subscribed and get later changes', async () => {
    engine = await startEngine();
    byHand = await startStream(engine.url);
    const client = await rawClient(byHand.url);
    client.join('x', 's', 'g');
    await waitFor(() => client.frames.length === 1, 5000, 'sync');
    engine = await engine.restart();
    const set = () =>
      rawCall(engine!.url, 'stream::set', { stream_name: 's', group_id: 'g', item_id: 'after', data: { id: 'after' } });
    await waitFor(async () => (await set()).error === undefined, 20_000, 'stream::set after the restart');
    await waitFor(() => client.frames.length >= 2, 5000, 'the change on the old socket');
    expect(client.frames[1]?.event).toEqual({ type: 'create', data: { id: 'after' } });
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    client.ws.close();
  });
});
