/**
 * An engine restart under svc-http (started by hand, so it reconnects instead of exiting): svc-http and the
 * workers (both SDKs) reconnect, the engine re-delivers the bindings, and every route serves again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { startEngine, type Child, type EngineProcess } from '../harness.js';
import { startHttpWorker, startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

let engine: EngineProcess;
let http: SvcHttp;
const workers: Child[] = [];

beforeAll(async () => {
  engine = await startEngine();
  http = await startSvcHttp(engine.url);
  for (const [sdk, prefix] of [
    ['svc', 'rs'],
    ['iii', 'ri'],
  ] as const) {
    const worker = startHttpWorker(engine.url, sdk, prefix);
    workers.push(worker);
    await worker.waitForOutput('ready');
    await waitForRoute(http.base, `/${prefix}/html`);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await http?.stop();
  await engine?.stop();
});

it('serves every route again after the engine restarts', async () => {
  engine = await engine.restart();
  for (const prefix of ['rs', 'ri']) {
    await waitForRoute(http.base, `/${prefix}/html`, 200, 20000);
    const res = await request(`${http.base}/${prefix}/echo/5`, { method: 'POST' });
    expect(res.statusCode).toBe(201);
    await res.body.dump();
  }
}, 40_000);
