/**
 * The worker manager's config keys: `middleware_function_id`, `rbac` and `listeners` (config/src/worker-manager.ts,
 * docs/rbac.md): defaults, the two spellings of an id filter, metadata filters, and errors that name the path.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, matchPattern, parseConfigText } from '../src/index.js';

const parse = (yaml: string) => parseConfigText(yaml, 'test.yaml', {}).config;

function errorOf(yaml: string): string {
  try {
    parse(yaml);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('worker manager config', () => {
  it('has no rules and no extra listeners by default', () => {
    const config = parse('modules: []');
    expect(config.listeners).toEqual([]);
    expect(config.rbac).toBeUndefined();
    expect(config.middleware_function_id).toBeUndefined();
  });

  it('reads listeners with their own rules; id filters in both spellings, metadata filters as given', () => {
    const config = parse(`
modules: []
rbac:
  expose_functions: ['api::*']
listeners:
  - port: 49135
    middleware_function_id: auth::middleware
    rbac:
      auth_function_id: auth::check
      on_function_registration_function_id: auth::on-fn
      expose_functions:
        - match("test::ew::public::*")
        - match('engine::functions::list')
        - metadata: { ew_public: true, tier: 'match("gold*")' }
`);
    expect(config.rbac?.expose_functions).toEqual([{ match: 'api::*' }]);
    const [listener] = config.listeners;
    expect(listener).toMatchObject({ port: 49135, host: '0.0.0.0', middleware_function_id: 'auth::middleware' });
    expect(listener?.rbac?.expose_functions).toEqual([
      { match: 'test::ew::public::*' },
      { match: 'engine::functions::list' },
      { metadata: { ew_public: true, tier: 'match("gold*")' } },
    ]);
  });

  it('matchPattern unwraps match("…") and match(\'…\') and keeps a bare pattern', () => {
    expect(matchPattern('match("a::*")')).toBe('a::*');
    expect(matchPattern("match('a::*')")).toBe('a::*');
    expect(matchPattern(' a::b ')).toBe('a::b');
  });

  it.each([
    ['an unknown rbac key', 'rbac: { expose: [] }', "unknown key 'expose'"],
    [
      'a filter of the wrong shape',
      'rbac: { expose_functions: [5] }',
      'rbac.expose_functions[0]: expected match("pattern")',
    ],
    ['an empty metadata filter', 'rbac: { expose_functions: [{ metadata: {} }] }', 'at least one key'],
    ['a listener without a port', 'listeners: [{ host: 127.0.0.1 }]', 'listeners[0].port'],
    [
      'a listener on the engine port',
      'port: 49134\nlisteners: [{ port: 49134 }]',
      'port 49134 is already used by port',
    ],
    ['two listeners on one port', 'listeners: [{ port: 5000 }, { port: 5000 }]', 'listeners[1].port'],
  ])('refuses %s, naming where', (_what, yaml, expected) => {
    expect(errorOf(`modules: []\n${yaml}`)).toContain(expected);
  });
});

describe('worker-manager entries (the original engine spelling)', () => {
  it('the first configures the engine listener, the others become listeners', () => {
    const config = parse(`
workers:
  - name: iii-worker-manager
    config: { port: 49199 }
  - name: iii-worker-manager
    config:
      host: 0.0.0.0
      port: 49135
      middleware_function_id: test::rbac-worker::middleware
      rbac:
        auth_function_id: test::rbac-worker::auth
        expose_functions: [match("test::ew::public::*"), { metadata: { ew_public: true } }]
`);
    expect(config.port).toBe(49199);
    expect(config.modules).toEqual([]);
    expect(config.listeners).toHaveLength(1);
    expect(config.listeners[0]).toMatchObject({
      port: 49135,
      middleware_function_id: 'test::rbac-worker::middleware',
      rbac: { auth_function_id: 'test::rbac-worker::auth' },
    });
  });

  it('with a top-level port every entry is an extra listener', () => {
    const config = parse(`
port: 49134
modules:
  - class: modules::worker_manager::WorkerManagerModule
    config: { port: 49135, rbac: { expose_functions: [] } }
`);
    expect(config.port).toBe(49134);
    expect(config.listeners.map((l) => l.port)).toEqual([49135]);
  });
});

/** The size limits every configuration section gets by default. */
const CONFIGURATION_LIMITS = { max_entry_bytes: 1024 * 1024, max_total_bytes: 64 * 1024 * 1024 };

describe('configuration entry (the original engine spelling)', () => {
  it('an fs adapter directory becomes configuration.directory', () => {
    const config = parse(`
workers:
  - name: configuration
    config: { adapter: { name: fs, config: { directory: ./config } }, ttl_seconds: 0 }
`);
    expect(config.configuration).toEqual({ directory: './config', ...CONFIGURATION_LIMITS });
    expect(config.modules).toEqual([]);
  });

  it('defaults to memory only', () => {
    expect(parse('modules: []').configuration).toEqual(CONFIGURATION_LIMITS);
  });
});
