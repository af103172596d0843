/**
 * Cross-engine triggers: an `http` trigger registered by a worker on engine B is served by svc-http connected to
 * engine A (A mirrors the binding to its provider; each request's call is routed back to B), and is withdrawn
 * from svc-http when the worker leaves.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import type { SvcClient } from '@svc/sdk';
import { waitFor, type EngineProcess } from '../harness.js';
import { NATS_URL, natsPort, ourWorker, portOpen, startCluster } from './cluster-support.js';
import { startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));
if (!natsUp) console.warn(`cluster tests skipped: nats-server is not reachable at ${NATS_URL}`);

describe.skipIf(!natsUp)('triggers across engines', () => {
  let engines: EngineProcess[] = [];
  let http: SvcHttp;
  let worker: SvcClient;

  beforeAll(async () => {
    engines = await startCluster(2);
    http = await startSvcHttp(engines[0]!.url);
    worker = ourWorker(engines[1]!.url, 'routes-on-b');
    worker.registerFunction('b::hello', (req: { path_params?: Record<string, string> }) => ({
      status_code: 200,
      body: { from: 'b', name: req.path_params?.name },
    }));
    worker.registerTrigger({
      type: 'http',
      function_id: 'b::hello',
      config: { api_path: 'hello/:name', http_method: 'GET' },
    });
  });

  afterAll(async () => {
    await worker?.shutdown();
    await http?.stop();
    await Promise.all(engines.map((e) => e.stop()));
  });

  it('serves a route bound on engine B through svc-http on engine A', async () => {
    await waitForRoute(http.base, '/hello/ada');
    const res = await request(`${http.base}/hello/ada`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ from: 'b', name: 'ada' });
  });

  it('withdraws the route when the worker that bound it leaves', async () => {
    await worker.shutdown();
    await waitFor(
      async () => {
        const res = await request(`${http.base}/hello/ada`);
        await res.body.dump();
        return res.statusCode === 404;
      },
      10_000,
      'route withdrawn',
    );
  });
});
