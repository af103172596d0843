/**
 * After `kill -9` of the engine nothing it spawned is left running. Two mechanisms: on Linux the kernel SIGTERMs each
 * child when the engine dies (setpriv --pdeathsig), and a capability worker also exits on its own once its engine
 * connection is gone for good (SVC_SUPERVISED=1).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startEngine, waitFor, waitForFunction } from '../harness.js';
import { CHILD, processState, readEvents, waitForStarts } from './exec-helpers.js';

const linuxWithSetpriv = process.platform === 'linux' && existsSync('/usr/bin/setpriv');
const stateBuilt = existsSync(join(ROOT, 'workers/state/dist/main.js'));

describe('kill -9 of the engine', () => {
  it.runIf(stateBuilt)('leaves no spawned capability worker running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-orphan-'));
    const engine = await startEngine({
      config: { heartbeat_interval_ms: 1000, heartbeat_timeout_ms: 3000 },
      modules: [
        {
          name: 'svc-state',
          config: {
            adapter: { class: 'modules::state::adapters::KvStore', config: { file_path: join(dir, 'state') } },
          },
        },
      ],
    });
    await waitForFunction(engine.url, 'state::get', 15000);
    const match = /"process":"svc-state","pid":(\d+)/.exec(engine.logs());
    const pid = Number(match?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(processState(pid)).toBe('running');
    await engine.kill();
    // Orphans are re-parented to PID 1; whether it reaps them is up to the host, so a zombie counts as exited.
    await waitFor(() => processState(pid) !== 'running', 10000, `svc-state (pid ${pid}) to exit`);
  });

  it.runIf(linuxWithSetpriv)('leaves no exec-module process running either (the kernel SIGTERMs it)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-orphan-')), 'events.jsonl');
    const engine = await startEngine({
      modules: [{ class: 'modules::shell::ExecModule', config: { exec: [process.execPath, CHILD, file, 'stay'] } }],
    });
    const [start] = await waitForStarts(file, 1);
    const pid = start?.pid ?? 0;
    expect(processState(pid)).toBe('running');
    await engine.kill();
    await waitFor(() => processState(pid) !== 'running', 5000, `exec child (pid ${pid}) to exit`);
    expect(readEvents(file).some((e) => e.event === 'sigterm' && e.pid === pid)).toBe(true);
  });
});
