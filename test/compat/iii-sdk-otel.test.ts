/**
 * An iii-sdk@0.22.1 worker with telemetry on (its default) opens `/otel` and streams OTLP frames; the engine accepts
 * and drains them (docs/protocol.md, "1.7 Telemetry frames"), and the worker serves calls as usual.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  rawCall,
  spawnWorker,
  startEngine,
  waitFor,
  waitForFunction,
  type Child,
  type EngineProcess,
} from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let worker: Child;

beforeAll(async () => {
  engine = await startEngine();
  worker = spawnWorker('test/compat/fixtures/iii-otel-worker.mjs', { SVC_URL: engine.url, OTEL_ENABLED: 'true' });
  await worker.waitForOutput(/^ready$/m, 15_000);
  await waitForFunction(engine.url, 'otel::echo');
});

afterAll(async () => {
  await worker?.kill();
  await engine?.stop();
});

describe('iii-sdk with telemetry on', () => {
  it('serves calls while its /otel socket is accepted and drained', async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await rawCall(engine.url, 'otel::echo', { i });
      expect(answer.result).toMatchObject({ echo: { i } });
    }
    await waitFor(() => (worker.logs().match(/handled/g) ?? []).length >= 5, 3000);
    expect(worker.logs()).toMatch(/Connected to engine at ws:\/\/127\.0\.0\.1:\d+\/otel/);
    expect(worker.logs()).not.toMatch(/Unexpected server response|ECONNREFUSED|WebSocket error/);
    expect(worker.exited).toBe(false);
  });
});
