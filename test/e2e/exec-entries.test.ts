/**
 * An ExecModule entry as a user writes one: `name` (logs and banner), `cwd`, `env`, `config` (delivered as JSON in
 * `SVC_MODULE_CONFIG`, like a capability worker's), and `watch` with `ignore` patterns; the data directory never
 * restarts anything.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, startEngine, type EngineProcess } from '../harness.js';
import { starts, waitForStarts } from './exec-helpers.js';

const CHILD = join(ROOT, 'test/e2e/exec-fixtures/entry-child.mjs');

let engine: EngineProcess | undefined;
afterEach(async () => {
  await engine?.stop(3000);
  engine = undefined;
});

interface EntryStart {
  cwd: string;
  APP_MODE?: string;
  RETRIES?: string;
  SVC_MODULE_CONFIG?: string;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('ExecModule entries', () => {
  it('name, cwd, env and config reach the process; the log and the banner use the name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-entry-'));
    const file = join(dir, 'events.jsonl');
    engine = await startEngine({
      modules: [
        {
          class: 'modules::shell::ExecModule',
          name: 'billing',
          config: {
            exec: [process.execPath, CHILD, file],
            cwd: dir,
            env: { APP_MODE: 'test', RETRIES: 3 },
            config: { currency: 'EUR', limits: { daily: 100 } },
          },
        },
      ],
    });
    const [first] = (await waitForStarts(file, 1)) as unknown as EntryStart[];
    expect(first?.cwd).toBe(dir);
    expect(first?.APP_MODE).toBe('test');
    expect(first?.RETRIES).toBe('3');
    expect(JSON.parse(first?.SVC_MODULE_CONFIG ?? 'null')).toEqual({ currency: 'EUR', limits: { daily: 100 } });
    await engine.waitForOutput(/"process":"billing"[^\n]*"msg":"entry child \d+ started"/, 10000);
    await engine.waitForOutput('billing (modules::shell::ExecModule)', 15000);
  });

  it('a bad entry is refused before anything runs, naming the key', async () => {
    await expect(
      startEngine({
        modules: [{ class: 'modules::shell::ExecModule', config: { exec: ['node'], env: { 'BAD-NAME': 'x' } } }],
        readyTimeoutMs: 8000,
      }),
    ).rejects.toThrow(/modules\[0\]\.config\.env/);
  });

  it('changes matching `ignore`, and changes in the data directory, do not restart it; others do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-ignore-'));
    const file = join(tmpdir(), `svc-exec-ignore-${process.pid}-${Date.now()}.jsonl`);
    const data = join(dir, 'data');
    mkdirSync(join(dir, 'logs'), { recursive: true });
    mkdirSync(data, { recursive: true });
    engine = await startEngine({
      env: { SVC_DATA_DIR: data },
      modules: [
        {
          class: 'modules::shell::ExecModule',
          name: 'watched',
          config: { exec: [process.execPath, CHILD, file], watch: [dir], ignore: ['*.log', 'logs'] },
        },
      ],
    });
    await waitForStarts(file, 1);
    await pause(500); // the watcher is set up before the first start; let its first events settle
    writeFileSync(join(dir, 'app.log'), 'x');
    writeFileSync(join(dir, 'logs', 'today.txt'), 'x');
    writeFileSync(join(data, 'state.json'), '{}');
    await pause(1500); // well past the debounce: a restart would have happened by now
    expect(starts(file)).toHaveLength(1);
    writeFileSync(join(dir, 'handler.js'), 'export {}');
    await waitForStarts(file, 2);
    expect(readFileSync(file, 'utf8')).toContain('"event":"start"');
    expect(engine.logs()).toContain('file changed: handler.js');
  });
});
