/**
 * The compose files, validated by the real `docker-compose` client (`config` resolves anchors, interpolation and
 * the service graph exactly as `docker compose up` would; no Docker engine runs here, so nothing is started). Checks
 * the topology docs/deploying.md describes: the engine (its config spawns no worker), one service per capability
 * worker running `svc worker <name>` against the engine with a config its schema accepts, Redis and RabbitMQ with
 * volumes, health checks and `service_healthy` dependencies, no fixed host port on a service meant to scale, and
 * one proxy publishing the HTTP and stream ports.
 */
import { spawnSync } from 'node:child_process';
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
  entrypoint?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  image?: string;
  build?: unknown;
  ports?: { published: number | string; target: number; host_ip?: string }[];
  volumes?: (string | { source?: string; target: string })[];
}

const hasCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;
const WORKERS = CAPABILITY_WORKERS.map((w) => w.name);
const SCALABLE = [...WORKERS];
const RABBITMQ_PASSWORD = 'test-secret';

const cache = new Map<string, ReturnType<typeof runConfig>>();

/** `docker-compose -f <file> config`, parsed (once per file and environment: the client is slow to start). */
function resolved(file: string, env: Record<string, string> = {}): ReturnType<typeof runConfig> {
  const key = `${file} ${JSON.stringify(env)}`;
  if (!cache.has(key)) cache.set(key, runConfig(file, env));
  return cache.get(key)!;
}

function runConfig(
  file: string,
  env: Record<string, string> = {},
): { status: number; stderr: string; services: Record<string, Service>; volumes: Record<string, unknown> } {
  const out = spawnSync('docker-compose', ['-f', join(ROOT, file), 'config'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  const doc =
    out.status === 0
      ? (parse(out.stdout) as { services: Record<string, Service>; volumes?: Record<string, unknown> })
      : undefined;
  return { status: out.status ?? -1, stderr: out.stderr, services: doc?.services ?? {}, volumes: doc?.volumes ?? {} };
}

const files: { file: string; env: Record<string, string>; svc: string[] }[] = [
  { file: 'docker-compose.yml', env: { RABBITMQ_PASSWORD }, svc: ['svc'] },
  { file: 'docker-compose.dev.yml', env: {}, svc: ['node', '/app/cli/dist/main.js'] },
];

describe.each(files)('$file', ({ file, env, svc }) => {
  const it_ = (name: string, fn: (c: ReturnType<typeof resolved>) => void) =>
    it(name, (ctx) => {
      if (!hasCompose) ctx.skip('docker-compose is not installed (scripts/services.sh installs it)');
      fn(resolved(file, env));
    });

  it_('docker-compose config accepts it', (c) => {
    expect(c.stderr).not.toMatch(/error|invalid/i);
    expect(c.status).toBe(0);
  });

  it_('has the engine, one service per capability worker, a proxy, redis and rabbitmq', (c) => {
    expect(Object.keys(c.services).sort()).toEqual(['engine', 'proxy', 'rabbitmq', 'redis', ...WORKERS].sort());
  });

  it_('runs the engine with a config that validates and spawns no capability worker (exec supervision off)', (c) => {
    const engine = c.services['engine'];
    const command = engine?.command ?? [];
    const configFile = command[command.indexOf('-c') + 1] ?? '';
    const { config } = loadConfig(join(ROOT, configFile), { env: engine?.environment ?? {} });
    expect(config.port).toBe(49134);
    expect(config.host).toBe('0.0.0.0');
    expect(config.modules.filter((m) => workerForClass(m.class))).toEqual([]);
    expect(config.modules.some((m) => m.class === 'modules::shell::ExecModule')).toBe(false);
    expect(engine?.ports).toContainEqual(expect.objectContaining({ published: 49134, target: 49134 }));
    expect(engine?.depends_on?.['redis']?.condition).toBe('service_healthy');
  });

  for (const worker of CAPABILITY_WORKERS) {
    const name = worker.name;
    it_(`${name}: \`svc worker\` against the engine, a valid config, healthy dependencies`, (c) => {
      const service = c.services[name];
      expect([...(service?.entrypoint ?? svc), ...(service?.command ?? [])].slice(-2)).toEqual(['worker', name]);
      expect(service?.environment?.['SVC_URL']).toBe('ws://engine:49134');
      expect(service?.environment?.['SVC_SUPERVISED']).toBeUndefined();
      const config = parseModuleConfig(MODULE_CONFIG_SCHEMAS[worker.class], {
        argv: [],
        env: { SVC_MODULE_CONFIG: service?.environment?.['SVC_MODULE_CONFIG'] ?? '' },
      });
      expect(service?.depends_on?.['engine']?.condition).toBe('service_healthy');
      const text = JSON.stringify(config);
      if (text.includes('redis://redis')) expect(service?.depends_on?.['redis']?.condition).toBe('service_healthy');
      if (text.includes('@rabbitmq')) expect(service?.depends_on?.['rabbitmq']?.condition).toBe('service_healthy');
      expect(text).not.toContain('in_memory');
      expect(service?.healthcheck?.test[0]).toBe('CMD');
    });
  }

  it_('no service meant to scale has a fixed host port or a container name', (c) => {
    for (const name of SCALABLE) {
      expect(c.services[name]?.ports, name).toBeUndefined();
      expect((c.services[name] as { container_name?: string }).container_name, name).toBeUndefined();
    }
  });

  it_('one proxy publishes the HTTP and stream ports of the scaled replicas', (c) => {
    const proxy = c.services['proxy'];
    expect(proxy?.ports).toContainEqual(expect.objectContaining({ published: 3111, target: 3111 }));
    expect(proxy?.ports).toContainEqual(expect.objectContaining({ published: 3112, target: 3112 }));
    expect(proxy?.depends_on?.['svc-http']?.condition).toBe('service_healthy');
    expect(proxy?.depends_on?.['svc-stream']?.condition).toBe('service_healthy');
  });

  it_('every svc service has a health check; redis and rabbitmq keep their data in volumes', (c) => {
    for (const name of ['engine', ...WORKERS, 'redis', 'rabbitmq']) {
      expect(c.services[name]?.healthcheck?.test.length, name).toBeGreaterThan(1);
    }
    const targets = (name: string) =>
      (c.services[name]?.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':')[1] : v.target));
    expect(targets('redis')).toContain('/data');
    expect(targets('rabbitmq')).toContain('/var/lib/rabbitmq');
    expect(Object.keys(c.volumes).sort()).toEqual(['rabbitmq-data', 'redis-data']);
  });
});

describe('docker-compose.yml secrets', () => {
  it('refuses to resolve without RABBITMQ_PASSWORD (no default password in production)', (ctx) => {
    if (!hasCompose) ctx.skip('docker-compose is not installed (scripts/services.sh installs it)');
    const c = resolved('docker-compose.yml');
    expect(c.status).not.toBe(0);
    expect(c.stderr).toContain('set RABBITMQ_PASSWORD');
  });

  it('builds the engine image from the Dockerfile and runs every svc service on it', (ctx) => {
    if (!hasCompose) ctx.skip('docker-compose is not installed (scripts/services.sh installs it)');
    const c = resolved('docker-compose.yml', { RABBITMQ_PASSWORD });
    expect(c.services['engine']?.build).toBeDefined();
    for (const name of ['engine', ...WORKERS]) expect(c.services[name]?.image, name).toBe('svc:latest');
  });
});
