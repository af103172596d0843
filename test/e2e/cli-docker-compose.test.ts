/**
 * docker-compose.yml topology (no Docker engine on these machines, so the file is checked, not run): the engine,
 * one service per capability worker started with SVC_URL and a SVC_MODULE_CONFIG that its schema accepts, Redis
 * and RabbitMQ, with the right depends_on; the engine's config validates and spawns no worker itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_WORKERS,
  MODULE_CONFIG_SCHEMAS,
  loadConfig,
  parseModuleConfig,
  workerForClass,
} from '../../config/src/index.js';
import { ROOT } from '../harness.js';

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: string[];
  image?: string;
  ports?: string[];
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has the engine, one service per capability worker, redis and rabbitmq', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['engine', 'rabbitmq', 'redis', ...CAPABILITY_WORKERS.map((w) => w.name)].sort(),
    );
  });

  it('runs the engine with a config that validates and lists no capability worker (they are services here)', () => {
    const engine = services['engine'];
    expect(engine?.command?.slice(0, 2)).toEqual(['node', 'cli/dist/main.js']);
    const configFile = engine?.command?.[engine.command.indexOf('-c') + 1] ?? '';
    expect(existsSync(join(ROOT, configFile))).toBe(true);
    const { config } = loadConfig(join(ROOT, configFile), { env: engine?.environment ?? {} });
    expect(config.port).toBe(49134);
    expect(config.host).toBe('0.0.0.0');
    expect(config.modules.filter((m) => workerForClass(m.class))).toEqual([]);
    expect(engine?.ports).toContain('49134:49134');
  });

  it.each(CAPABILITY_WORKERS.map((w) => [w.name, w] as const))(
    '%s: started by hand with SVC_URL and a valid SVC_MODULE_CONFIG, after the engine',
    (name, worker) => {
      const service = services[name];
      expect(service?.command).toEqual(['node', `workers/${worker.dir}/dist/main.js`]);
      expect(service?.environment?.['SVC_URL']).toBe('ws://engine:49134');
      expect(service?.environment?.['SVC_SUPERVISED']).toBeUndefined();
      const config = parseModuleConfig(MODULE_CONFIG_SCHEMAS[worker.class], {
        argv: [],
        env: { SVC_MODULE_CONFIG: service?.environment?.['SVC_MODULE_CONFIG'] ?? '' },
      });
      expect(service?.depends_on).toContain('engine');
      // Whatever backend the config names must be a service it depends on.
      const text = JSON.stringify(config);
      if (text.includes('redis://redis')) expect(service?.depends_on).toContain('redis');
      if (text.includes('@rabbitmq')) expect(service?.depends_on).toContain('rabbitmq');
      expect(text).not.toContain('in_memory');
    },
  );

  it('publishes the HTTP and stream ports of their workers', () => {
    expect(services['svc-http']?.ports).toContain('3111:3111');
    expect(services['svc-stream']?.ports).toContain('3112:3112');
  });
});
