/**
 * The product path: the engine reads `modules::state::StateModule` from its config file and spawns svc-state as a
 * supervised worker. After a `kill -9` of that worker the supervisor starts it again, and the file store still
 * has every acknowledged write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, waitForFunction, type EngineProcess } from '../harness.js';
import { sdkClient } from './state-helpers.js';

let engine: EngineProcess;
let client: SvcClient;

beforeAll(async () => {
  engine = await startEngine({
    modules: [
      {
        class: 'modules::state::StateModule',
        config: {
          adapter: {
            class: 'modules::state::adapters::KvStore',
            config: { store_method: 'file_based', file_path: './data/state' },
          },
        },
      },
    ],
  });
  await waitForFunction(engine.url, 'state::set', 15_000);
  client = await sdkClient(engine.url);
});

afterAll(async () => {
  await client?.shutdown();
  await engine?.stop();
});

/** The pids of svc-state the engine's supervisor reported starting (its log line "started svc-state"). */
function statePids(): number[] {
  return [...engine.logs().matchAll(/"process":"svc-state","pid":(\d+)/g)].map((m) => Number(m[1]));
}

it('serves state::* from the config, and keeps the data across a kill -9 of the worker', async () => {
  const call = (function_id: string, payload: unknown) => client.trigger({ function_id, payload });
  await Promise.all(Array.from({ length: 50 }, (_, i) => call('state::set', { scope: 'cfg', key: `k${i}`, value: i })));
  const [pid] = statePids();
  expect(pid).toBeDefined();
  process.kill(pid as number, 'SIGKILL');
  await waitFor(() => statePids().length >= 2, 20_000, 'svc-state restarted by the supervisor');
  const values = await waitFor(
    () => call('state::list', { scope: 'cfg' }).catch(() => undefined),
    10_000,
    'state::list after the restart',
  );
  const byKey = Array.from({ length: 50 }, (_, i) => `k${i}`).sort();
  expect(values).toEqual(byKey.map((key) => Number(key.slice(1))));
});
