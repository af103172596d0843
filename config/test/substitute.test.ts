import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../src/index.js';

/** A minimal valid document whose engine port and pubsub adapter URL come from the environment. */
function load(yaml: string, env: Record<string, string> = {}) {
  return parseConfigText(yaml, 'test.yaml', env).config;
}

function loadError(yaml: string, env: Record<string, string> = {}): ConfigError {
  try {
    load(yaml, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const stateWith = (filePath: string) => `
modules:
  - class: modules::state::StateModule
    config:
      adapter:
        class: modules::state::adapters::KvStore
        config: { file_path: "${filePath}" }
`;

function statePath(yaml: string, env: Record<string, string>): unknown {
  const entry = load(yaml, env).modules[0];
  if (entry?.class !== 'modules::state::StateModule') throw new Error('unexpected entry');
  const adapter = entry.config.adapter;
  return adapter.class === 'modules::state::adapters::KvStore' ? adapter.config.file_path : undefined;
}

describe('env substitution (on parsed string scalars only)', () => {
  it.each([
    ['set variable', '${DIR}/s.db', { DIR: '/var/svc' }, '/var/svc/s.db'],
    ['default used when unset', '${DIR:./data}/s.db', {}, './data/s.db'],
    ['set beats default', '${DIR:./data}/s.db', { DIR: '/x' }, '/x/s.db'],
    ['empty default', '${DIR:}s.db', {}, 's.db'],
    ['two references', '${A}-${B:b}', { A: 'a' }, 'a-b'],
    ['$${VAR} is the literal ${VAR}', '$${DIR}/s.db', { DIR: '/x' }, '${DIR}/s.db'],
    ['default may contain a colon', '${U:redis://h:6379}', {}, 'redis://h:6379'],
  ])('%s', (_name, template, env, expected) => {
    expect(statePath(stateWith(template), env)).toBe(expected);
  });

  // Substitution works on string scalars, never on the YAML text: a value can never add keys or change the shape.
  it.each([
    ['newline + new top-level key', 'x\nport: 1\nevil: true'],
    ['": " inside the value', 'a: b'],
    ['" #" inside the value', 'secret #not-a-comment'],
    ['YAML flow syntax', '{ store_method: in_memory }'],
    ['a document marker', '---\nmodules: []'],
  ])('injection stays inside the string: %s', (_name, value) => {
    const config = load(stateWith('${DIR}'), { DIR: value });
    expect(statePath(stateWith('${DIR}'), { DIR: value })).toBe(value);
    expect(config.port).toBe(49134);
    expect(Object.keys(config)).not.toContain('evil');
    expect(config.modules).toHaveLength(1);
  });

  it('an unset ${VAR} without default stops start-up, naming the variable and its path', () => {
    const err = loadError(stateWith('${DATA_DIR}/s.db'));
    expect(err.code).toBe('config_env_missing');
    expect(err.message).toContain('DATA_DIR');
    expect(err.message).toContain('modules[0].config.adapter.config.file_path');
  });

  it('an invalid reference is reported without the password in its default', () => {
    const err = loadError(stateWith('${1BAD:redis://:hunter2@h:6379}'));
    expect(err.message).toContain('invalid reference');
    expect(err.message).not.toContain('hunter2');
  });

  it('rejects an invalid reference', () => {
    expect(loadError(stateWith('${1BAD}')).message).toContain('invalid reference');
  });

  it.each([
    ['8080', 8080],
    ['0', 0],
  ])('a whole-scalar reference in a numeric key is coerced when plain decimal: %s', (value, expected) => {
    expect(load('port: ${PORT}\nmodules: []', { PORT: value }).port).toBe(expected);
  });

  it.each(['0x1F90', '1e3', ' 8080', '8080 ', '08080', '80.5', 'eighty', ''])(
    'PORT=%j is rejected by the schema',
    (value) => {
      const err = loadError('port: ${PORT}\nmodules: []', { PORT: value });
      expect(err.code).toBe('config_invalid');
      expect(err.message).toContain('port');
    },
  );

  it('a reference inside a longer string is never coerced', () => {
    expect(loadError('port: "${P}0"\nmodules: []', { P: '8' }).message).toContain('port: got "80"');
  });

  it('booleans can come from the environment', () => {
    const config = load('modules:\n  - class: modules::observability::OtelModule\n    config: { enabled: "${OTEL}" }', {
      OTEL: 'true',
    });
    expect(config.modules[0]?.config).toMatchObject({ enabled: true });
  });

  it('a string key stays a string even when the value looks like a number', () => {
    const config = load(
      'modules:\n  - class: modules::observability::OtelModule\n    config: { service_version: "${V}" }',
      { V: '2' },
    );
    expect(config.modules[0]?.config).toMatchObject({ service_version: '2' });
  });
});
