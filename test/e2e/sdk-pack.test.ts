/**
 * `@svc/sdk` outside this repository: packed with `npm pack`, installed from the tarball into a temporary project,
 * and the README's tour worker (`hello.mjs`) run from there against a real engine with svc-state and svc-http.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, freePort, startEngine, waitForFunction, type EngineProcess } from '../harness.js';
import { npmInstall, packSdk, tempProject } from './sdk-pack-support.js';

/** The worker of README.md's tour, "2. Write a worker", as written there. */
function tourWorker(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /```js\n(\/\/ hello\.mjs\n[\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error('README.md has no hello.mjs block');
  return match[1];
}

let engine: EngineProcess;
let httpPort: number;
let project: string;
let worker: ReturnType<typeof import('node:child_process').spawn> | undefined;

beforeAll(async () => {
  project = tempProject('svc-sdk-outside');
  npmInstall(project, [packSdk()]);
  httpPort = await freePort();
  engine = await startEngine({
    modules: [
      { name: 'svc-http', config: { port: httpPort, host: '127.0.0.1' } },
      {
        name: 'svc-state',
        config: {
          adapter: { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } },
        },
      },
    ],
  });
}, 300_000);

afterAll(async () => {
  worker?.kill('SIGTERM');
  await engine?.stop();
});

describe('@svc/sdk installed from its packed tarball', () => {
  it('is a package with its own README, types and only its built files', () => {
    const installed = join(project, 'node_modules/@svc/sdk');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg['private']).toBeUndefined();
    expect(existsSync(join(installed, 'README.md'))).toBe(true);
    expect(existsSync(join(installed, 'dist/index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).not.toMatch(/PROTOCOL\.md|SPEC\.md/);
  });

  it("runs the README tour's worker: svc trigger and the HTTP route answer", async () => {
    writeFileSync(join(project, 'hello.mjs'), tourWorker());
    const { spawn } = await import('node:child_process');
    worker = spawn(process.execPath, ['hello.mjs'], {
      cwd: project,
      env: { ...process.env, SVC_URL: engine.url },
      stdio: 'ignore',
    });
    await waitForFunction(engine.url, 'hello::greet', 20000);
    await waitForFunction(engine.url, 'state::get', 30000); // the tour's function keeps a count in svc-state
    const cli = spawnSync(process.execPath, [join(ROOT, 'cli/dist/main.js'), 'trigger', 'hello::greet', 'name=ada'], {
      encoding: 'utf8',
      env: { ...process.env, SVC_URL: engine.url },
      timeout: 20000,
    });
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout)).toEqual({ greeting: 'hello ada', times: 1 });
    await waitForFunction(engine.url, 'hello::http', 10000);
    let body: unknown;
    for (let i = 0; i < 100 && body === undefined; i++) {
      const res = await fetch(`http://127.0.0.1:${httpPort}/hello?name=ada`);
      if (res.status === 200) body = await res.json();
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(body).toEqual({ greeting: 'hello ada', times: 2 });
  });

  it('type-checks a TypeScript worker against the installed types', () => {
    writeFileSync(
      join(project, 'typed.ts'),
      "import { registerWorker, InvocationError } from '@svc/sdk';\n" +
        "const svc = registerWorker(undefined, { workerName: 'typed' });\n" +
        "svc.registerFunction('typed::f', async (p: { n: number }) => ({ doubled: p.n * 2 }));\n" +
        'export const isError = (e: unknown): boolean => e instanceof InvocationError;\n',
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const out = execFileSync(process.execPath, [tsc, ...args, '--skipLibCheck', 'typed.ts'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(out).toBe('');
  });
});
