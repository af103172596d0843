/**
 * configuration::* with a directory (`configuration: {directory}`): values survive an engine restart, and a worker
 * registering its configuration again after the restart keeps the stored value; `max_entry_bytes` and
 * `max_total_bytes` bound what the engine holds.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, type IIIClient } from 'iii-sdk';
import pino from 'pino';
import { registerWorker as registerSvcWorker } from '@svc/sdk';
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

describe('configuration size', () => {
  it('refuses a configuration past max_entry_bytes or max_total_bytes with TOO_LARGE, and keeps what it holds', async () => {
    const limits = { directory: 'configs', max_entry_bytes: 4096, max_total_bytes: 12_000 };
    const bounded = await startEngine({ config: { configuration: limits } });
    const c = registerSvcWorker(bounded.url, { workerName: 'config-size', logger: pino({ level: 'silent' }) });
    try {
      await c.ready();
      const register = (id: string, chars: number) =>
        c.trigger({
          function_id: 'configuration::register',
          payload: { id, schema: { type: 'string' }, initial_value: 'v'.repeat(chars) },
        });
      // Before, nothing was refused: configurations of 8 MiB ran the engine out of heap at about 500 of them.
      await expect(register('huge', 5000)).rejects.toMatchObject({
        code: 'TOO_LARGE',
        message: expect.stringMatching(/'huge' has \d+ characters, past configuration\.max_entry_bytes \(4096\)/),
      });
      for (const id of ['a', 'b', 'c']) await register(id, 3500);
      await expect(register('d', 3500)).rejects.toMatchObject({
        code: 'TOO_LARGE',
        message: expect.stringContaining('past configuration.max_total_bytes (12000)'),
      });
      // a smaller value always fits where a larger one was
      await c.trigger({ function_id: 'configuration::set', payload: { id: 'a', value: 'small' } });
      await register('d', 3000);
      const list = await c.trigger<{ configurations: { id: string }[] }>({
        function_id: 'configuration::list',
        payload: {},
      });
      expect(list.configurations.map((x) => x.id)).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      await c.shutdown();
      await bounded.stop();
    }
  });
});
