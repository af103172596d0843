/**
 * `svc` start-up as a user sees it: the embedded default (no -c, no ./svc-config.yaml) starts every capability
 * worker that is built and says which config file it used; a bad config stops start-up with exit 2 naming the path.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  freePort,
  rawCall,
  spawnWorker,
  startEngine,
  waitFor,
  waitForEngine,
  waitForFunction,
  type Child,
} from '../harness.js';
import { readIdleHalt } from '../../cli/src/start/host-notes.js';

const CLI = join(ROOT, 'cli/dist/main.js');
const WORKERS = ['http', 'state', 'queue', 'cron', 'stream'] as const;
/** A function each capability worker registers: proof that it started, connected and did its set-up. */
const PROOF: Record<(typeof WORKERS)[number], string | undefined> = {
  http: undefined, // provides the `http` trigger type (checked by a request below)
  state: 'state::get',
  queue: 'engine::queue::enqueue',
  cron: 'cron::list',
  stream: 'stream::get',
};
const built = WORKERS.filter((dir) => existsSync(join(ROOT, 'workers', dir, 'dist/main.js')));

let svc: Child | undefined;
afterAll(async () => {
  await svc?.stop(8000);
});

describe('svc with the embedded default config', () => {
  it('starts the engine and every built capability worker; the log names the config file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-default-'));
    const [port, httpPort, streamPort] = [await freePort(), await freePort(), await freePort()];
    // cwd = ROOT has no svc-config.yaml, so the embedded default is used; ports and data dir come from ${VAR}s.
    svc = spawnWorker('cli/dist/main.js', {
      SVC_PORT: String(port),
      SVC_HTTP_PORT: String(httpPort),
      SVC_STREAM_PORT: String(streamPort),
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_STREAM_HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
    });
    const url = `ws://127.0.0.1:${port}`;
    await waitForEngine(url, 15000);
    // The banner (stderr) ends with its config line; the JSON 'svc ready' log line (stdout) may come first.
    await svc.waitForOutput(/svc ready in \d+ ms[\s\S]*\n {2}config {3}/, 20000);
    expect(svc.logs()).toContain(join('config', 'svc-config.yaml'));
    expect(svc.logs()).toContain('embedded default');
    // The banner: engine address, the REST and stream ports, the workers and the config file.
    expect(svc.logs()).toContain(`engine   ws://127.0.0.1:${port}`);
    expect(svc.logs()).toContain(`http     :${httpPort}`);
    expect(svc.logs()).toContain(`stream   :${streamPort}`);
    for (const dir of built) expect(svc.logs()).toMatch(new RegExp(`workers .*svc-${dir} \\(`));
    // A host whose idle vCPUs halt at once (a VM's haltpoll driver, not polling) gets a note on latency; others none.
    if (readIdleHalt()?.pollNs === 0) expect(svc.logs()).toMatch(/\n {2}note {5}idle vCPUs halt at once/);
    else expect(svc.logs()).not.toContain('idle vCPUs halt at once');
    const names = await waitFor(
      async () => {
        const answer = await rawCall(url, 'engine::workers::list', {}, 2000);
        const text = JSON.stringify(answer.result);
        return built.every((dir) => text.includes(`"svc-${dir}"`)) ? text : undefined;
      },
      15000,
      `workers ${built.join(', ')} registered`,
    );
    for (const dir of built) expect(names).toContain(`"svc-${dir}"`);
    for (const dir of built) {
      const proof = PROOF[dir];
      if (proof) await waitForFunction(url, proof, 10000);
    }
    if (built.includes('state')) {
      const set = await rawCall(url, 'state::set', { scope: 'cli', key: 'k', value: 1 }, 5000);
      expect(set.error).toBeUndefined();
    }
    if (built.includes('http')) {
      // The REST server answers on the configured port (404 for an unknown route is an answer).
      const res = await fetch(`http://127.0.0.1:${httpPort}/no-such-route`);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    const code = await svc.stop(8000);
    svc = undefined;
    expect(code).toBe(0);
  });
});

describe('svc stops cleanly', () => {
  it('on SIGINT (Ctrl-C) as on SIGTERM: exit 0', async () => {
    const engine = await startEngine();
    engine.proc.kill('SIGINT');
    expect(await engine.exit).toBe(0);
    expect(engine.logs()).toContain('svc stopped');
    await engine.stop();
  });

  it('on one Ctrl-C delivered twice (by the terminal and by npm start): an orderly stop, exit 0', async () => {
    // a worker whose close takes a moment, so the second delivery arrives while svc is still stopping
    const engine = await startEngine({
      modules: [
        {
          class: 'modules::shell::ExecModule',
          config: {
            exec: [process.execPath, join(ROOT, 'sdk/test/fixtures/capability-worker.mjs')],
            env: { CAP_NAME: 'slow-close', CAP_CLOSE_MS: 500 },
          },
        },
      ],
    });
    await engine.waitForOutput('slow-close started', 15000);
    engine.proc.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 10)); // npm forwards it a moment after the terminal sent it
    engine.proc.kill('SIGINT');
    expect(await engine.exit).toBe(0);
    expect(engine.logs()).toContain('svc stopped');
    expect(engine.logs()).not.toContain('second signal');
    expect(engine.logs()).toContain('capability closed'); // the worker closed in order too
    await engine.stop();
  });
});

describe('svc with a bad config', () => {
  function run(yaml: string, env: Record<string, string> = {}): { status: number | null; stderr: string } {
    const dir = mkdtempSync(join(tmpdir(), 'svc-badcfg-'));
    writeFileSync(join(dir, 'c.yaml'), yaml);
    const res = spawnSync(process.execPath, [CLI, '-c', join(dir, 'c.yaml')], {
      encoding: 'utf8',
      timeout: 15000,
      env: { ...process.env, ...env },
    });
    return { status: res.status, stderr: res.stderr };
  }

  it.each([
    [
      'unknown adapter class',
      'modules:\n  - class: modules::state::StateModule\n    config: { adapter: { class: modules::state::adapters::Redis2 } }',
      'modules[0].config.adapter.class',
    ],
    ['unknown key', 'port: 1\nmodules: []\nprot: 2', 'prot'],
    ['unset variable', 'port: ${SVC_TEST_UNSET_PORT}\nmodules: []', 'SVC_TEST_UNSET_PORT'],
  ])('%s: exit 2, the message names the path', (_name, yaml, expected) => {
    const res = run(yaml);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(expected);
  });

  it('PORT=0x1F90 is rejected, and a password in a URL is redacted', () => {
    const res = run(
      'port: ${P}\nmodules:\n  - class: modules::pubsub::PubSubModule\n    config: { adapter: { class: modules::pubsub::KvserverAdapter, config: { kvserver_url: "${U}", extra: 1 } } }',
      { P: '0x1F90', U: 'redis://:hunter2@localhost:6379' },
    );
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('port: got "0x1F90"');
    expect(res.stderr).not.toContain('hunter2');
  });

  it('a missing config file: exit 2', () => {
    const res = spawnSync(process.execPath, [CLI, '-c', '/nonexistent/svc.yaml'], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('config_not_found');
  });
});
