/**
 * svc-http spawned by the engine from the config file (`name: svc-http`), with its config keys applied: port,
 * host, cors and the body limit. A `kill -9` of the engine leaves no svc-http behind (supervised mode).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { freePort, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { startHttpWorker, waitForRoute } from './http-fixtures/support.js';

let engine: EngineProcess;
let worker: Child;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  engine = await startEngine({
    modules: [
      {
        name: 'svc-http',
        config: {
          port,
          host: '127.0.0.1',
          body_limit_bytes: 1024,
          cors: { allowed_origins: ['https://app.test'], allowed_methods: ['GET', 'POST'] },
        },
      },
    ],
  });
  worker = startHttpWorker(engine.url, 'svc', 'cfg');
  await worker.waitForOutput('ready');
  await waitForRoute(base, '/cfg/html', 200, 15000);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await engine?.stop();
});

it('applies cors: allowed origin gets headers, another origin none', async () => {
  const ok = await request(`${base}/cfg/html`, { headers: { origin: 'https://app.test' } });
  expect(ok.headers['access-control-allow-origin']).toBe('https://app.test');
  await ok.body.dump();
  const pre = await request(`${base}/cfg/echo/1`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.test', 'access-control-request-method': 'POST' },
  });
  expect(pre.statusCode).toBe(204);
  expect(pre.headers['access-control-allow-methods']).toBe('GET, POST');
  await pre.body.dump();
  const other = await request(`${base}/cfg/html`, { headers: { origin: 'https://evil.test' } });
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
  await other.body.dump();
});

it('applies body_limit_bytes', async () => {
  const res = await request(`${base}/cfg/echo/1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pad: 'x'.repeat(2000) }),
  });
  expect(res.statusCode).toBe(413);
  await res.body.dump();
});

it('exits when the engine is killed with -9 (no orphan)', async () => {
  await engine.kill();
  await waitFor(
    async () => {
      try {
        const res = await request(`${base}/cfg/html`);
        await res.body.dump();
        return false;
      } catch {
        return true;
      }
    },
    10000,
    'svc-http to exit after the engine died',
  );
});
