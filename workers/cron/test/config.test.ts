/**
 * svc-cron's config: the documented defaults, the svc additions, and a bad config refused at start with a message that
 * names the path (the real `workers/cron/dist/main.js`, exit code 2).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cronConfigSchema, parseModuleConfig, pubsubConfigSchema } from '@svc/config';

const MAIN = join(import.meta.dirname, '../dist/main.js');
const fromEnv = (schema: typeof cronConfigSchema | typeof pubsubConfigSchema, config: unknown) =>
  parseModuleConfig(schema, { argv: [], env: { SVC_MODULE_CONFIG: JSON.stringify(config) } });

describe('cron config', () => {
  it('KvCronAdapter defaults: lock_ttl_ms 30000, lock_index cron_locks, file_based, save_interval_ms 5000', () => {
    const config = fromEnv(cronConfigSchema, {
      adapter: { class: 'modules::cron::KvCronAdapter', config: { file_path: 'data/cron' } },
    });
    expect(config.adapter.config).toEqual({
      lock_ttl_ms: 30000,
      lock_index: 'cron_locks',
      store_method: 'file_based',
      file_path: 'data/cron',
      save_interval_ms: 5000,
    });
  });

  it('KvserverCronAdapter needs kvserver_url and takes the same lock defaults', () => {
    const config = fromEnv(cronConfigSchema, {
      adapter: { class: 'modules::cron::KvserverCronAdapter', config: { kvserver_url: 'redis://h:6379' } },
    });
    expect(config.adapter.config).toEqual({
      kvserver_url: 'redis://h:6379',
      lock_ttl_ms: 30000,
      lock_index: 'cron_locks',
    });
    expect(() =>
      fromEnv(cronConfigSchema, { adapter: { class: 'modules::cron::KvserverCronAdapter', config: {} } }),
    ).toThrow(/kvserver_url/);
  });

  it('file_based without file_path is refused, naming the key', () => {
    expect(() => fromEnv(cronConfigSchema, { adapter: { class: 'modules::cron::KvCronAdapter' } })).toThrow(
      /file_path is required/,
    );
  });

  it('pubsub: LocalAdapter has no keys; KvserverAdapter needs kvserver_url', () => {
    expect(fromEnv(pubsubConfigSchema, { adapter: { class: 'modules::pubsub::LocalAdapter' } }).adapter).toEqual({
      class: 'modules::pubsub::LocalAdapter',
      config: {},
    });
    expect(() => fromEnv(pubsubConfigSchema, { adapter: { class: 'modules::pubsub::KvserverAdapter' } })).toThrow(
      /kvserver_url/,
    );
  });

  it('svc-cron exits with code 2 and names the bad path when the adapter class is unknown', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      env: {
        ...process.env,
        SVC_URL: 'ws://127.0.0.1:1',
        SVC_MODULE_CONFIG: '{"adapter":{"class":"modules::cron::Nope"}}',
      },
      encoding: 'utf8',
      timeout: 10000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^svc-cron: /);
    expect(result.stderr).toMatch(/adapter\.class: unknown value "modules::cron::Nope"; expected one of/);
  });
});
