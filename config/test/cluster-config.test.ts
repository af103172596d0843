import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../src/index.js';

function errorOf(yaml: string): ConfigError {
  try {
    parseConfigText(yaml, 'test.yaml', {});
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('the cluster key', () => {
  it('is absent by default, and takes one NATS address or several with defaults applied', () => {
    expect(parseConfigText('modules: []', 't.yaml', {}).config.cluster).toBeUndefined();
    const one = parseConfigText('cluster: { nats: nats://10.0.0.5:4222, name: prod }\nmodules: []', 't.yaml', {});
    expect(one.config.cluster).toEqual({
      nats: ['nats://10.0.0.5:4222'],
      name: 'prod',
      heartbeat_interval_ms: 500,
      heartbeat_timeout_ms: 3000,
    });
    const many = parseConfigText('cluster: { nats: "nats://a:4222, nats://b:4222" }\nmodules: []', 't.yaml', {});
    expect(many.config.cluster?.nats).toEqual(['nats://a:4222', 'nats://b:4222']);
    expect(many.config.cluster?.name).toBe('svc');
  });

  it.each([
    ['a bad address', 'cluster: { nats: "http://x y" }', 'cluster.nats', 'is not a NATS server address'],
    ['a name NATS subjects cannot carry', 'cluster: { nats: nats://a:1, name: "a.b" }', 'cluster.name', 'letters'],
    [
      'a timeout not above the interval',
      'cluster: { nats: nats://a:1, heartbeat_interval_ms: 500, heartbeat_timeout_ms: 500 }',
      'cluster.heartbeat_timeout_ms',
      'greater than heartbeat_interval_ms',
    ],
    ['an unknown key', 'cluster: { nats: nats://a:1, natz: 1 }', 'cluster', 'natz'],
  ])('refuses %s, naming where', (_what, yaml, path, message) => {
    const err = errorOf(`${yaml}\nmodules: []`);
    expect(err.message).toContain(path);
    expect(err.message).toContain(message);
  });
});
