/**
 * Streaming HTTP through svc-http with handlers on our SDK: they open the `request_body` / `response` refs of their
 * payload with `openChannel` (upload streamed in, download streamed out with set_status / set_headers) and learn
 * that an SSE client left (the channel closes and the handler's signal fires).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import WebSocket from 'ws';
import { spawnWorker, startEngine, type Child, type EngineProcess } from '../harness.js';
import { startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let http: SvcHttp;
let worker: Child;

beforeAll(async () => {
  engine = await startEngine();
  http = await startSvcHttp(engine.url, { default_timeout: 10_000 });
  worker = spawnWorker('test/e2e/http-fixtures/svc-stream-worker.mjs', { SVC_URL: engine.url });
  await worker.waitForOutput('ready');
  await waitForRoute(http.base, '/ours-st/download?size=1', 206);
});

afterAll(async () => {
  await worker?.stop();
  await http?.stop();
  await engine?.stop();
});

describe('streaming HTTP with our SDK handlers', () => {
  it('streams an upload into the handler byte-exact', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 3);
    const res = await request(`${http.base}/ours-st/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: data,
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({
      bytes: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
    });
  });

  it('streams a download out with the status and headers the handler set', async () => {
    const size = 2 * 1024 * 1024 + 9;
    const res = await request(`${http.base}/ours-st/download?size=${size}`);
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    const body = Buffer.from(await res.body.arrayBuffer());
    expect(body.length).toBe(size);
    for (let at = 0; at < size; at += 100_000) expect(body[at]).toBe(at % 251);
  });

  it('stops the SSE handler when the client goes away', async () => {
    const controller = new AbortController();
    const res = await request(`${http.base}/ours-st/sse`, { signal: controller.signal });
    expect(res.headers['content-type']).toBe('text/event-stream');
    try {
      for await (const chunk of res.body) {
        if ((chunk as Buffer).toString().includes('data: 2')) controller.abort();
      }
    } catch {
      // aborted on purpose
    }
    await worker.waitForOutput(/sse stopped (channel \d+|signal)/, 15_000);
  });

  it('keeps a worker alive whose handler opens its response after the client left', async () => {
    const controller = new AbortController();
    const pending = request(`${http.base}/ours-st/late`, { signal: controller.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await pending;
    await worker.waitForOutput(/late writer stopped .*\n/, 15_000);
    // the write failed through its callback; an 'error' event would have killed the worker before this line
    expect(/late writer stopped (.*)\n/.exec(worker.logs())?.[1]).toMatch(/^\d+ channel is (gone|closed)/);
    const res = await request(`${http.base}/ours-st/download?size=10`);
    expect(res.statusCode).toBe(206);
    expect((await res.body.arrayBuffer()).byteLength).toBe(10);
  });

  it("refuses a request's channels once its response is over, when the handler never opened them", async () => {
    const res = await request(`${http.base}/ours-st/refs`);
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await worker.waitForOutput(/refs \{.*\}\n/);
    const line = /refs (\{.*\})\n/.exec(worker.logs())?.[1] as string;
    const refs = JSON.parse(line) as Record<'request_body' | 'response', { channel_id: string; access_key: string }>;
    const status = (ref: { channel_id: string; access_key: string }, dir: string): Promise<number> =>
      new Promise((resolve) => {
        const url = `${engine.url}/ws/channels/${encodeURIComponent(ref.channel_id)}?key=${encodeURIComponent(ref.access_key)}&dir=${dir}`;
        const ws = new WebSocket(url);
        ws.on('unexpected-response', (_req, answer) => resolve(answer.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => undefined);
      });
    // svc-http tells the engine which requests are over a few times a second
    await expect.poll(() => status(refs.response, 'write'), { timeout: 5_000, interval: 100 }).toBe(404);
    expect(await status(refs.request_body, 'read')).toBe(404);
  });

  it('streams again after an engine restart (channels made before it are not reused)', async () => {
    // warm the pools, then restart the engine under svc-http and the worker (both reconnect by themselves)
    const warm = await request(`${http.base}/ours-st/download?size=10`);
    await warm.body.dump();
    engine = await engine.restart();
    await waitForRoute(http.base, '/ours-st/download?size=1', 206, 30_000);
    const res = await request(`${http.base}/ours-st/download?size=300000`);
    expect(res.statusCode).toBe(206);
    expect(Buffer.from(await res.body.arrayBuffer()).length).toBe(300000);
    const up = await request(`${http.base}/ours-st/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1000, 1),
    });
    expect(up.statusCode).toBe(200);
    expect(await up.body.json()).toMatchObject({ bytes: 1000 });
  });
});
