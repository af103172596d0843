/**
 * `svc functions`, `svc workers`, `svc triggers`, `svc health` and the "did you mean" of `svc trigger`, run the way
 * a user runs them: from the repository root with `npx svc`, finding the engine through SVC_URL or SVC_PORT.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  freePort,
  spawnWorker,
  startEngine,
  waitFor,
  waitForFunction,
  type Child,
  type EngineProcess,
} from '../harness.js';

let engine: EngineProcess;
let worker: Child;

function npxSvc(
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const clean = { ...process.env };
  delete clean['SVC_URL'];
  delete clean['SVC_PORT'];
  const res = spawnSync('npx', ['--no-install', 'svc', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000,
    env: { ...clean, ...env },
  });
  const stderr = res.stderr.replace(/^npm warn .*\n/gm, '');
  return { status: res.status, stdout: res.stdout, stderr };
}

beforeAll(async () => {
  engine = await startEngine({
    modules: [
      { class: 'modules::pubsub::PubSubModule', config: { adapter: { class: 'modules::pubsub::LocalAdapter' } } },
    ],
  });
  worker = spawnWorker('test/e2e/cli-fixtures/inventory-worker.mjs', { SVC_URL: engine.url });
  await waitForFunction(engine.url, 'inventory::reserve');
});

afterAll(async () => {
  await worker?.stop();
  await engine?.stop();
});

describe('svc functions / workers / triggers', () => {
  it('svc functions --json (SVC_URL): the registered function with its worker', async () => {
    const res = await waitFor<ReturnType<typeof npxSvc> | undefined>(
      () => {
        const r = npxSvc(['functions', '--json'], { SVC_URL: engine.url });
        return r.stdout.includes('inventory::reserve') ? r : undefined;
      },
      20000,
      'inventory::reserve listed',
    );
    expect(res?.status).toBe(0);
    const list = JSON.parse(res?.stdout ?? '[]') as {
      function_id: string;
      worker_name: string;
      description?: string;
    }[];
    expect(list).toContainEqual(
      expect.objectContaining({
        function_id: 'inventory::reserve',
        worker_name: 'inventory',
        description: 'Reserve stock for an order',
      }),
    );
    expect(list.some((f) => f.function_id.startsWith('engine::'))).toBe(false);
  });

  it('svc functions (SVC_PORT): a table with a header row', () => {
    const res = npxSvc(['functions'], { SVC_PORT: String(engine.port) });
    expect(res.status).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^FUNCTION\s+WORKER\s+REPLICAS\s+DESCRIPTION$/);
    expect(lines.some((l) => /^inventory::reserve\s+inventory\s+1\s+Reserve stock/.test(l))).toBe(true);
  });

  it('svc workers and svc triggers', () => {
    const workers = npxSvc(['workers', '--json'], { SVC_URL: engine.url });
    expect(workers.status).toBe(0);
    expect(JSON.parse(workers.stdout)).toContainEqual(expect.objectContaining({ name: 'inventory' }));
    const triggers = npxSvc(['triggers', '--json'], { SVC_URL: engine.url });
    expect(triggers.status).toBe(0);
    expect(JSON.parse(triggers.stdout)).toContainEqual(
      expect.objectContaining({
        trigger_type: 'subscribe',
        function_id: 'inventory::reserve',
        worker_name: 'inventory',
      }),
    );
    const table = npxSvc(['triggers'], { SVC_URL: engine.url });
    expect(table.stdout).toMatch(/subscribe\s+inventory::reserve\s+inventory\s+\{"topic":"orders.created"\}/);
  });
});

describe('svc health', () => {
  it('exit 0 and "healthy" when the engine answers', () => {
    const res = npxSvc(['health'], { SVC_URL: engine.url });
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^healthy: engine at ws:\/\/127\.0\.0\.1:\d+/);
    const json = npxSvc(['health', '--json'], { SVC_PORT: String(engine.port) });
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'healthy' });
  });

  it('exit 4 when no engine listens there', async () => {
    const res = npxSvc(['health'], { SVC_PORT: String(await freePort()) });
    expect(res.status).toBe(4);
    expect(JSON.parse(res.stderr)).toMatchObject({ code: 'engine_unreachable' });
  });
});

describe('svc trigger with an unknown function id', () => {
  it('says which registered ids are close ("did you mean")', () => {
    const res = npxSvc(['trigger', 'inventory::reserv', 'sku=a'], { SVC_URL: engine.url });
    expect(res.status).toBe(1);
    const error = JSON.parse(res.stderr) as { code: string; message: string };
    expect(error.code).toBe('function_not_found');
    expect(error.message).toContain("did you mean 'inventory::reserve'?");
  });

  it('a mistyped command gets a suggestion too', () => {
    const res = npxSvc(['fucntions'], { SVC_URL: engine.url });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('did you mean "functions"?');
  });
});
