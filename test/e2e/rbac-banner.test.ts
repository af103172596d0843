/**
 * The start-up banner names every listener and warns about each one that any client on the network can reach
 * without access rules; loopback-only and RBAC listeners get no warning.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort, startEngine, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const engines: EngineProcess[] = [];

afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

describe('start-up banner', () => {
  it('warns about an open listener beyond loopback, not about guarded or loopback ones', async () => {
    const [guarded, local] = [await freePort(), await freePort()];
    const engine = await startEngine({
      config: {
        host: '0.0.0.0',
        listeners: [
          { name: 'guarded', port: guarded, rbac: { expose_functions: ['match("api::*")'] } },
          { name: 'local', port: local, host: '127.0.0.1' },
        ],
      },
    });
    engines.push(engine);
    await engine.waitForOutput(/ {2}config {3}.*\n/);
    const logs = engine.logs();
    expect(logs).toMatch(new RegExp(`listener ws://127\\.0\\.0\\.1:${guarded} {2}\\(guarded; rbac\\)`));
    expect(logs).toMatch(new RegExp(`WARNING {2}engine \\(0\\.0\\.0\\.0:${engine.port}\\) has no rbac`));
    expect(logs).toContain('can register and call every function');
    expect(logs).not.toMatch(/WARNING {2}guarded/);
    expect(logs).not.toMatch(/WARNING {2}local/);
  });

  it('says nothing when every listener is on loopback', async () => {
    const engine = await startEngine({ config: { host: '127.0.0.1' } });
    engines.push(engine);
    await engine.waitForOutput(/ {2}config {3}.*\n/);
    expect(engine.logs()).not.toContain('has no rbac');
  });
});
