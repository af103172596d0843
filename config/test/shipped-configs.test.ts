import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_WORKERS, EMBEDDED_CONFIG_PATH, PRODUCTION_CONFIG_PATH, loadConfig } from '../src/index.js';

const examples = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const env = { REDIS_URL: 'redis://localhost:6379', AMQP_URL: 'amqp://guest:guest@localhost:5672' };

describe('the config files we ship are valid', () => {
  it('the embedded default runs all five capability workers with file-based stores under ./data', () => {
    const { config, warnings } = loadConfig(EMBEDDED_CONFIG_PATH, { env: {} });
    expect(warnings).toEqual([]);
    for (const worker of CAPABILITY_WORKERS) {
      expect(
        config.modules.some((m) => m.class === worker.class),
        worker.name,
      ).toBe(true);
    }
    const text = JSON.stringify(config);
    expect(text).not.toContain('in_memory');
    expect(text).toContain('./data/');
  });

  it('production.yaml needs REDIS_URL and AMQP_URL and uses them', () => {
    expect(() => loadConfig(PRODUCTION_CONFIG_PATH, { env: {} })).toThrow(/REDIS_URL/);
    const { config } = loadConfig(PRODUCTION_CONFIG_PATH, { env });
    expect(JSON.stringify(config)).toContain('amqp://guest:guest@localhost:5672');
  });

  it.each(readdirSync(examples))('examples/%s', (file) => {
    expect(loadConfig(join(examples, file), { env }).config.modules.length).toBeGreaterThan(0);
  });
});
