import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseModuleConfig, stateConfigSchema, httpConfigSchema } from '../src/index.js';

const STATE_JSON = JSON.stringify({
  adapter: { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } },
});

describe('readModuleConfig: how a capability worker gets its config', () => {
  it('from SVC_MODULE_CONFIG, with defaults applied', () => {
    const config = parseModuleConfig(stateConfigSchema, { argv: [], env: { SVC_MODULE_CONFIG: STATE_JSON } });
    expect(config.adapter).toMatchObject({ config: { store_method: 'in_memory', save_interval_ms: 5000 } });
  });

  it('from --config <file.yaml>, which wins over the env and may use ${VAR}', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-modcfg-'));
    const file = join(dir, 'http.yaml');
    writeFileSync(file, 'port: ${HTTP_PORT:4000}\nhost: 127.0.0.1\n');
    const config = parseModuleConfig(httpConfigSchema, {
      argv: ['--config', file],
      env: { HTTP_PORT: '4001', SVC_MODULE_CONFIG: '{"port": 1}' },
    });
    expect(config).toMatchObject({ port: 4001, host: '127.0.0.1', default_timeout: 30000 });
  });

  it('all defaults when there is nothing', () => {
    expect(parseModuleConfig(httpConfigSchema, { argv: [], env: {} }).port).toBe(3111);
  });

  it.each([
    ['bad JSON', '{adapter:', 'config_parse_error'],
    ['bad value', '{"adapter":{"class":"modules::state::adapters::Nope"}}', 'adapter.class'],
  ])('errors name the problem: %s', (_name, json, expected) => {
    let caught: unknown;
    try {
      parseModuleConfig(stateConfigSchema, { argv: [], env: { SVC_MODULE_CONFIG: json } });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain(expected);
  });

  it('a worker process with a bad config prints the path and exits 2', () => {
    const script = `import { readModuleConfig, stateConfigSchema } from '@svc/config';
readModuleConfig('svc-state', stateConfigSchema); console.log('unreachable');`;
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...process.env,
        SVC_MODULE_CONFIG:
          '{"adapter":{"class":"modules::state::adapters::KvStore","config":{"save_interval_ms":-1,"store_method":"in_memory"}}}',
      },
      encoding: 'utf8',
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('svc-state');
    expect(res.stderr).toContain('adapter.config.save_interval_ms');
    expect(res.stdout).not.toContain('unreachable');
  });
});
