/**
 * svc-cron as the engine runs it: `modules::cron::CronModule` in the config file, spawned and supervised by the
 * engine with its config in SVC_MODULE_CONFIG. A job fires, and the KvCronAdapter's claims file is written where the
 * config says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { recorder } from './cron-support.js';

let engine: EngineProcess | undefined;
let client: SvcClient | undefined;
afterAll(async () => {
  await client?.shutdown();
  await engine?.stop();
});

it('the engine spawns svc-cron from the config and jobs fire', async () => {
  engine = await startEngine({
    modules: [
      {
        class: 'modules::cron::CronModule',
        config: {
          adapter: {
            class: 'modules::cron::KvCronAdapter',
            config: { store_method: 'file_based', file_path: 'data/cron-claims.json', save_interval_ms: 100 },
          },
        },
      },
    ],
  });
  const fn = `cron-e2e::module-${randomUUID().slice(0, 8)}`;
  const rec = await recorder(engine.url, fn);
  client = rec.client;
  const trigger = client.registerTrigger({ type: 'cron', function_id: fn, config: { expression: '* * * * * *' } });
  await waitFor(() => rec.runs.filter((r) => r.job_id === trigger.id).length >= 2, 8000, 'two runs');
  const file = join(engine.dir, 'data/cron-claims.json');
  await waitFor(() => existsSync(file), 2000, 'the claims file');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { claims: Record<string, unknown> };
  expect(Object.keys(saved.claims).some((key) => key.startsWith(`cron_locks:${trigger.id}:`))).toBe(true);
  trigger.unregister();
});
