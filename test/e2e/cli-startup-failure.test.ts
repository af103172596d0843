/**
 * Start-up with a port that is taken, as a user meets it: `svc` stops at once (exit 1) instead of retrying, and
 * its message names the port, what holds it, and how to choose another (the SVC_*_PORT variables of the embedded
 * default, or -c). Nothing it started is left running.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, spawnWorker, type Child } from '../harness.js';
import { processState } from './exec-helpers.js';

let holder: Server | undefined;
let svc: Child | undefined;
afterEach(async () => {
  await svc?.kill();
  svc = undefined;
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  holder = undefined;
});

async function holdPort(): Promise<number> {
  const port = await freePort();
  holder = createServer();
  await new Promise<void>((resolve) => holder?.listen(port, '0.0.0.0', resolve));
  return port;
}

/** The pids of the processes svc spawned, from its log (`started svc-http` lines carry the child's pid). */
function spawnedPids(logs: string): number[] {
  return [...logs.matchAll(/"pid":(\d+),"command"/g)].map((m) => Number(m[1]));
}

async function runDefault(env: Record<string, string>): Promise<{ code: number | null; logs: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-taken-'));
  const ports = { SVC_PORT: String(await freePort()), SVC_HTTP_PORT: String(await freePort()) };
  svc = spawnWorker('cli/dist/main.js', {
    ...ports,
    SVC_STREAM_PORT: String(await freePort()),
    SVC_DATA_DIR: dataDir,
    ...env,
  });
  const code = await svc.exit;
  return { code, logs: svc.logs() };
}

describe('svc when a port is taken', () => {
  it('svc-http: exits 1 naming the port, its holder and SVC_HTTP_PORT; leaves no worker behind', async () => {
    const port = await holdPort();
    const { code, logs } = await runDefault({ SVC_HTTP_PORT: String(port) });
    expect(code).toBe(1);
    expect(logs).toContain(`svc-http cannot listen on port ${port}: it is already in use`);
    expect(logs).toContain(`held by pid ${process.pid}`);
    expect(logs).toContain(`SVC_HTTP_PORT=${port + 100}`);
    expect(logs).toContain('svc -c <file>');
    // Started once, not restarted in a loop.
    expect(logs.match(/"msg":"started svc-http"/g)?.length).toBe(1);
    const pids = spawnedPids(logs);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(processState(pid)).not.toBe('running');
  });

  it('the engine port: exits 1 naming the port and SVC_PORT', async () => {
    const port = await holdPort();
    const { code, logs } = await runDefault({ SVC_PORT: String(port) });
    expect(code).toBe(1);
    expect(logs).toContain(`engine cannot listen on port ${port}: it is already in use`);
    expect(logs).toContain(`SVC_PORT=${port + 100}`);
  });

  it('svc-stream with a config file: names the port and the file to change', async () => {
    const port = await holdPort();
    const dir = mkdtempSync(join(tmpdir(), 'svc-taken-'));
    const file = join(dir, 'svc.yaml');
    writeFileSync(
      file,
      `port: ${await freePort()}\nmodules:\n  - name: svc-stream\n    config:\n      port: ${port}\n      host: 0.0.0.0\n` +
        '      adapter: { class: modules::stream::adapters::KvStore, config: { store_method: in_memory } }\n',
    );
    svc = spawnWorker('cli/dist/main.js', {}, ['-c', file]);
    expect(await svc.exit).toBe(1);
    expect(svc.logs()).toContain(`svc-stream cannot listen on port ${port}: it is already in use`);
    expect(svc.logs()).toContain(`change the port in ${file}`);
  });
});
