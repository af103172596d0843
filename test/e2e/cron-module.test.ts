/**
 * svc-cron as the engine runs it: `modules::cron::CronModule` in the config file, spawned and supervised by the
 * engine with its config in SVC_MODULE_CONFIG. A job fires, and the KvCronAdapter's claims file is written where the
 * config says.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
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
  // The claims file is a SQLite database (better-sqlite3); the claims of this job's ticks are in it.
  const keys = await waitFor(
    () => {
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare('SELECT key FROM claims').all() as { key: string }[];
        return rows.some((r) => r.key.startsWith(`cron_locks:${trigger.id}:`)) ? rows : undefined;
      } finally {
        db.close();
      }
    },
    5000,
    "this job's claims saved",
  );
  expect(keys?.length).toBeGreaterThan(0);
  trigger.unregister();
});
