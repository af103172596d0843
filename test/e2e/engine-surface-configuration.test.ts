/**
 * configuration::* with a directory (`configuration: {directory}`): values survive an engine restart, and a worker
 * registering its configuration again after the restart keeps the stored value.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess | undefined;
const clients: IIIClient[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown()));
  await engine?.stop();
});

function connect(url: string): IIIClient {
  const client = registerWorker(url, { otel: { enabled: false } });
  clients.push(client);
  return client;
}

const schema = { type: 'object', properties: { limit: { type: 'integer' } }, required: ['limit'] };

describe('configuration persistence', () => {
  it('keeps values across a restart', async () => {
    engine = await startEngine({ config: { configuration: { directory: 'configs' } } });
    const first = connect(engine.url);
    await first.trigger({
      function_id: 'configuration::register',
      payload: { id: 'svc-limits', name: 'Limits', description: 'rate limits', schema, initial_value: { limit: 1 } },
    });
    await first.trigger({ function_id: 'configuration::set', payload: { id: 'svc-limits', value: { limit: 7 } } });
    expect(existsSync(join(engine.dir, 'configs', 'svc-limits.json'))).toBe(true);
    await first.shutdown();

    engine = await engine.restart();
    const second = connect(engine.url);
    const read = () => second.trigger({ function_id: 'configuration::get', payload: { id: 'svc-limits' } });
    expect(await waitFor(read, 10_000)).toEqual({ id: 'svc-limits', value: { limit: 7 } });
    const again = await second.trigger<unknown, { value: unknown }>({
      function_id: 'configuration::register',
      payload: { id: 'svc-limits', name: 'Limits', description: 'rate limits', schema, initial_value: { limit: 1 } },
    });
    expect(again.value).toEqual({ limit: 7 });
    const list = await second.trigger<unknown, { configurations: { id: string }[] }>({
      function_id: 'configuration::list',
      payload: {},
    });
    expect(list.configurations.map((c) => c.id)).toContain('svc-limits');
  });
});
