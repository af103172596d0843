/**
 * Several svc-http processes at once, each on its own port, each serving every route (the engine delivers every
 * binding to every provider, including one that joins later); and graceful shutdown: SIGTERM drains the requests
 * in flight, then the process exits 0 while the other replica keeps serving.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { rawCall, startEngine, type Child, type EngineProcess } from '../harness.js';
import { startHttpWorker, startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

let engine: EngineProcess;
let a: SvcHttp;
let b: SvcHttp;
let worker: Child;

beforeAll(async () => {
  engine = await startEngine();
  a = await startSvcHttp(engine.url);
  worker = startHttpWorker(engine.url, 'svc', 'r', { LOG_HOLDS: '1' });
  await worker.waitForOutput('ready');
  // b joins after the routes were bound: it gets them replayed.
  b = await startSvcHttp(engine.url);
  await waitForRoute(a.base, '/r/html');
  await waitForRoute(b.base, '/r/html');
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await Promise.all([a?.stop(), b?.stop()]);
  await engine?.stop();
});

it('both replicas serve the same routes', async () => {
  for (const base of [a.base, b.base]) {
    const res = await request(`${base}/r/echo/9`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(201);
    expect(((await res.body.json()) as { got: { path_params: unknown } }).got.path_params).toEqual({ id: '9' });
  }
});

it('SIGTERM drains in-flight requests, exits 0, and the other replica keeps serving', async () => {
  const inFlight = request(`${a.base}/r/slow?hold=1&ms=30000`);
  await worker.waitForOutput('held 1');
  const exit = a.stop(10000);
  // Let the drain begin, then let the held request answer.
  await a.waitForOutput('svc-http stopping');
  expect((await rawCall(engine.url, 'r::release', {})).result).toEqual({ body: { released: 1 } });
  const res = await inFlight;
  expect(res.statusCode).toBe(200);
  expect(await res.body.json()).toEqual({ slept: true });
  expect(await exit).toBe(0);
  await expect(request(`${a.base}/r/html`)).rejects.toThrow();
  const other = await request(`${b.base}/r/html`);
  expect(other.statusCode).toBe(200);
  await other.body.dump();
});

it("a worker's routes are gone (404) once it disconnects", async () => {
  await worker.stop();
  await waitForRoute(b.base, '/r/html', 404);
  const res = await request(`${b.base}/r/echo/1`, { method: 'POST' });
  expect(res.statusCode).toBe(404);
  expect(await res.body.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Not Found' } });
});
