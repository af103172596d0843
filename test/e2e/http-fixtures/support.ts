/** Shared set-up of the svc-http end-to-end tests: start svc-http by hand against an engine, wait for routes. */
import { request } from 'undici';
import { freePort, spawnWorker, waitFor, type Child } from '../../harness.js';

export const SVC_HTTP_MAIN = 'workers/http/dist/main.js';
export const HTTP_WORKER = 'test/e2e/http-fixtures/http-worker.mjs';

export interface SvcHttp extends Child {
  port: number;
  base: string;
}

/** Spawns svc-http with `config` (as SVC_MODULE_CONFIG) on a free port of 127.0.0.1. */
export async function startSvcHttp(engineUrl: string, config: Record<string, unknown> = {}): Promise<SvcHttp> {
  const port = await freePort();
  const child = spawnWorker(SVC_HTTP_MAIN, {
    SVC_URL: engineUrl,
    SVC_MODULE_CONFIG: JSON.stringify({ host: '127.0.0.1', port, ...config }),
  });
  await child.waitForOutput('svc-http listening', 10000);
  return Object.assign(child, { port, base: `http://127.0.0.1:${port}` });
}

/** Waits until `path` answers with `status` (the binding reached svc-http). */
export async function waitForRoute(base: string, path: string, status = 200, timeoutMs = 10000): Promise<void> {
  await waitFor(
    async () => {
      const res = await request(`${base}${path}`);
      await res.body.dump();
      return res.statusCode === status;
    },
    timeoutMs,
    `route ${path} → ${status}`,
  );
}

export function startHttpWorker(
  engineUrl: string,
  sdk: 'svc' | 'iii',
  prefix: string,
  env: Record<string, string> = {},
) {
  return spawnWorker(HTTP_WORKER, { SVC_URL: engineUrl, SDK: sdk, PREFIX: prefix, OTEL_ENABLED: 'false', ...env });
}
