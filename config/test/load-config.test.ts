import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, EMBEDDED_CONFIG_PATH, loadConfig, loadYamlParser, parseConfigText } from '../src/index.js';

function errorOf(yaml: string, env: Record<string, string> = {}): ConfigError {
  try {
    parseConfigText(yaml, 'test.yaml', env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const STATE = (adapter: string) => `
modules:
  - class: modules::pubsub::PubSubModule
    config: { adapter: { class: modules::pubsub::LocalAdapter } }
  - class: modules::state::StateModule
    config:
      adapter:
${adapter}
`;

describe('config validation: every bad input names the path, the value and what is expected', () => {
  it.each([
    ['modules missing', 'port: 1', 'modules', 'is required'],
    ['not a mapping', '- a\n- b', '', 'expected a mapping'],
    ['unknown top-level key', 'modules: []\nprot: 1', 'prot', "unknown key 'prot'"],
    ['port not a number', 'port: abc\nmodules: []', 'port', 'got "abc"; expected number'],
    ['port out of range', 'port: 70000\nmodules: []', 'port', '70000'],
    [
      'unknown class',
      'modules:\n  - class: modules::nope::Nope',
      'modules[0].class',
      'unknown value "modules::nope::Nope"; expected one of',
    ],
    ['entry without class or name', 'modules:\n  - config: {}', 'modules[0].class', 'is required'],
    ['unknown worker name', 'modules:\n  - name: svc-nope', 'modules[0].name', 'svc-nope'],
    ['modules and workers both', 'modules: []\nworkers: []', 'workers', 'only one'],
    [
      'unknown adapter class',
      STATE('        class: modules::state::adapters::Redis2'),
      'modules[1].config.adapter.class',
      'unknown value "modules::state::adapters::Redis2"; expected one of \'modules::state::adapters::KvStore\'',
    ],
    [
      'adapter key inline instead of under config',
      STATE('        class: modules::state::adapters::KvStore\n        file_path: ./x'),
      'modules[1].config.adapter.file_path',
      "unknown key 'file_path'",
    ],
    [
      'unknown adapter key',
      STATE('        class: modules::state::adapters::KvStore\n        config: { file_pth: ./x }'),
      'modules[1].config.adapter.config.file_pth',
      'unknown key',
    ],
    [
      'file_path required when file based',
      STATE('        class: modules::state::adapters::KvStore'),
      'modules[1].config.adapter.config.file_path',
      'required',
    ],
    [
      'wrong enum value',
      STATE('        class: modules::state::adapters::KvStore\n        config: { store_method: disk }'),
      'modules[1].config.adapter.config.store_method',
      'got "disk"; expected one of "file_based", "in_memory"',
    ],
    [
      'adapter missing',
      STATE('        {}').replace('adapter:\n        {}', 'adapter: null'),
      'modules[1].config.adapter',
      'expected object',
    ],
    [
      'exec empty',
      'modules:\n  - class: modules::shell::ExecModule\n    config: { exec: [] }',
      'modules[0].config.exec',
      'at least',
    ],
    ['exec missing', 'modules:\n  - class: modules::shell::ExecModule', 'modules[0].config.exec', 'is required'],
    [
      'queue mode',
      'modules:\n  - name: svc-queue\n    config: { adapter: { class: modules::queue::BuiltinQueueAdapter, config: { mode: lifo, store_method: in_memory } } }',
      'modules[0].config.adapter.config.mode',
      'lifo',
    ],
    [
      'sampling rate above 1',
      'modules:\n  - class: modules::observability::OtelModule\n    config: { sampling: { rules: [ { operation: "a*", rate: 2 } ] } }',
      'modules[0].config.sampling.rules[0].rate',
      '2',
    ],
    [
      'alert operator',
      'modules:\n  - class: modules::observability::OtelModule\n    config: { alerts: [ { name: a, metric: m, threshold: 1, operator: "=>", window_seconds: 60, action: { type: webhook, url: "https://x" } } ] }',
      'modules[0].config.alerts[0].operator',
      '=>',
    ],
    [
      'two listeners on one port',
      'port: 3111\nmodules:\n  - name: svc-http\n    config: { port: 3111 }',
      'modules[0].config.port',
      'port 3111 is already used by port (the engine)',
    ],
    [
      'http and stream on one port',
      'modules:\n  - name: svc-http\n    config: { port: 4000 }\n  - name: svc-stream\n    config: { port: 4000, adapter: { class: modules::stream::adapters::KvStore, config: { store_method: in_memory } } }',
      'modules[1].config.port',
      'already used by modules[0].config.port',
    ],
    ['duplicate key', 'port: 1\nport: 2\nmodules: []', '', 'not valid YAML'],
    ['broken YAML', 'modules: [', '', 'not valid YAML'],
  ])('%s', (_name, yaml, path, expected) => {
    const err = errorOf(yaml);
    const line = err.problems.find((p) => p.path === path);
    expect(line, `${err.message}\n(expected a problem at '${path}')`).toBeDefined();
    expect(`${line?.path}: ${line?.message}`).toContain(expected);
  });

  it.each([
    ['URL password', 'amqp://guest:hunter2@rabbit:5672', 'hunter2'],
    ['redis password', 'redis://:s3cr3t@redis:6379/0', 's3cr3t'],
  ])('redacts secrets in error output: %s', (_name, url, secret) => {
    const yaml = `modules:\n  - class: modules::queue::QueueModule\n    config: { adapter: { class: modules::queue::BrokerAdapter, config: { amqp_url: "${url}", prefetch_count: "${url}" } } }`;
    const err = errorOf(yaml);
    expect(err.message).toContain('prefetch_count');
    expect(err.message).not.toContain(secret);
    expect(err.message).toContain('<redacted>');
  });

  it('redacts an api key even when its value is wrong', () => {
    const yaml =
      'modules:\n  - class: modules::telemetry::TelemetryModule\n    config: { sdk_api_key: [ "k-12345-secret" ] }';
    const err = errorOf(yaml);
    expect(err.message).toContain('modules[0].config.sdk_api_key');
    expect(err.message).not.toContain('k-12345-secret');
  });

  it('redacts a secret that came from the environment', () => {
    const yaml =
      'modules:\n  - class: modules::queue::QueueModule\n    config: { adapter: { class: modules::queue::BrokerAdapter, config: { amqp_url: "${AMQP}", max_attempts: "${AMQP}" } } }';
    const err = errorOf(yaml, { AMQP: 'amqp://u:topsecret@h' });
    expect(err.message).not.toContain('topsecret');
  });
});

describe('config resolution', () => {
  it('applies the documented defaults and accepts name: entries under workers:', () => {
    const { config, warnings } = parseConfigText(
      `workers:
  - name: svc-http
  - name: svc-state
    config: { adapter: { class: modules::state::adapters::KvStore, config: { store_method: in_memory } } }
  - class: modules::queue::QueueModule
    config: { adapter: { class: modules::queue::BuiltinQueueAdapter, config: { file_path: ./q } } }
  - class: modules::http_functions::HttpFunctionsModule
`,
      'test.yaml',
      {},
    );
    expect(config.port).toBe(49134);
    expect(config.modules.map((m) => m.class)).toEqual([
      'modules::api::RestApiModule',
      'modules::state::StateModule',
      'modules::queue::QueueModule',
      'modules::http_functions::HttpFunctionsModule',
    ]);
    expect(config.modules[0]).toMatchObject({
      name: 'svc-http',
      config: { port: 3111, host: '0.0.0.0', default_timeout: 30000, concurrency_request_limit: 1024 },
    });
    expect(config.modules[2]?.config).toMatchObject({
      adapter: {
        config: {
          max_attempts: 3,
          backoff_ms: 1000,
          concurrency: 10,
          poll_interval_ms: 100,
          mode: 'concurrent',
          store_method: 'file_based',
          save_interval_ms: 5000,
        },
      },
    });
    expect(config.modules[3]?.config).toMatchObject({
      security: { url_allowlist: [], block_private_ips: true, require_https: true },
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('modules[1].config.adapter.config.store_method is in_memory');
    expect(warnings[0]).toContain('restart loses');
  });

  it('returns a deeply frozen config', () => {
    const { config } = parseConfigText('modules:\n  - name: svc-http', 'test.yaml', {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.modules[0]?.config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('finds the file: flag, then ./svc-config.yaml, then the embedded default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    expect(loadConfig(undefined, { cwd: dir, env: {} }).source).toEqual({
      path: EMBEDDED_CONFIG_PATH,
      kind: 'embedded',
    });
    writeFileSync(join(dir, 'svc-config.yaml'), 'port: 5000\nmodules: []\n');
    const local = loadConfig(undefined, { cwd: dir, env: {} });
    expect(local.source.kind).toBe('cwd');
    expect(local.config.port).toBe(5000);
    writeFileSync(join(dir, 'other.yaml'), 'port: 5001\nmodules: []\n');
    const flagged = loadConfig('other.yaml', { cwd: dir, env: {} });
    expect(flagged.source).toEqual({ path: join(dir, 'other.yaml'), kind: 'flag' });
    expect(flagged.config.port).toBe(5001);
    expect(() => loadConfig('missing.yaml', { cwd: dir, env: {} })).toThrow(/config_not_found/);
  });
});

describe('the YAML parser loaded ahead (what the svc command does before it reads its config)', () => {
  it('reads documents and refuses bad YAML as the parser loaded on first use does', async () => {
    await loadYamlParser();
    await loadYamlParser(); // a second call keeps the parser it has
    expect(parseConfigText('port: 5002\nmodules: []\n', 'test.yaml', {}).config.port).toBe(5002);
    expect(`${errorOf('port: 1\nport: 2\nmodules: []').message}`).toContain('not valid YAML');
    expect(`${errorOf('modules: [').message}`).toContain('not valid YAML');
  });
});
