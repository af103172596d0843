/**
 * `svc init <dir>` as a newcomer uses it: the scaffolded TypeScript project installs (@svc/sdk from its packed
 * tarball, TypeScript from the npm registry), `npm run dev` runs it against a local engine, and a change to
 * src/worker.ts is rebuilt and picked up. The project's svc-config.yaml runs it under the engine's supervisor,
 * where a change under src/ also rebuilds, then restarts it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, freePort, rawCall, startEngine, waitFor, waitForFunction, type EngineProcess } from '../harness.js';
import { npmInstall, packSdk, tempProject } from './sdk-pack-support.js';

const CLI = join(ROOT, 'cli/dist/main.js');
let project: string;
const running: ChildProcess[] = [];

function runIn(dir: string, command: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' });
  running.push(child);
  return child;
}

async function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/** GETs the scaffold's HTTP route until it answers 200 with `wanted` in the greeting. */
async function greeting(port: number, wanted: string): Promise<unknown> {
  return waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/greeter/hello?name=ada`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as { greeting?: string };
      return body.greeting?.includes(wanted) ? body : undefined;
    },
    90000,
    `a greeting with "${wanted}"`,
  );
}

function editGreeting(dir: string, word: string): void {
  const file = join(dir, 'src/worker.ts');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/`\w+ \$\{payload\.name/, `\`${word} \${payload.name`));
}

beforeAll(() => {
  project = join(tempProject('svc-init-parent'), 'greeter');
  const res = spawnSync(process.execPath, [CLI, 'init', project], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`svc init failed: ${res.stderr}`);
  // @svc/sdk from its packed tarball, as it would come from the registry; typescript from the registry (or cache).
  npmInstall(project, [packSdk()]);
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map(stopChild));
});

describe('svc init', () => {
  it('writes a project with a function, an HTTP trigger and a dev script', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.scripts['dev']).toBeDefined();
    expect(pkg.scripts['build']).toBe('tsc');
    expect(Object.keys(pkg.dependencies)).toContain('@svc/sdk');
    const source = readFileSync(join(project, 'src/worker.ts'), 'utf8');
    expect(source).toContain("registerFunction('greeter::greet'");
    expect(source).toContain("type: 'http'");
  });

  it('refuses a directory that is not empty (exit 2)', () => {
    const res = spawnSync(process.execPath, [CLI, 'init', project], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('is not empty');
  });

  it('npm run dev: runs against a local engine, and a change to src/ is rebuilt and picked up', async () => {
    const httpPort = await freePort();
    const engine: EngineProcess = await startEngine({
      modules: [{ name: 'svc-http', config: { port: httpPort, host: '127.0.0.1' } }],
    });
    try {
      const dev = runIn(project, 'npm', ['run', 'dev', '--silent'], { SVC_URL: engine.url });
      await waitForFunction(engine.url, 'greeter::greet', 90000);
      expect(await greeting(httpPort, 'hello ada')).toEqual({ greeting: 'hello ada' });
      editGreeting(project, 'howdy');
      expect(await greeting(httpPort, 'howdy ada')).toEqual({ greeting: 'howdy ada' });
      await stopChild(dev);
      // Stopping `npm run dev` stops the worker too: its functions leave the engine.
      await waitFor(
        async () => (await rawCall(engine.url, 'engine::functions::info', { function_id: 'greeter::greet' })).error,
        15000,
        'greeter::greet to be gone',
      );
    } finally {
      await engine.stop();
    }
  }, 240_000);

  it('svc -c svc-config.yaml: the worker runs under the supervisor; a change rebuilds, then restarts it', async () => {
    const [port, httpPort] = [await freePort(), await freePort()];
    const env = { SVC_PORT: String(port), SVC_HTTP_PORT: String(httpPort) };
    const svc = runIn(project, process.execPath, [CLI, '-c', 'svc-config.yaml'], env);
    await waitForFunction(`ws://127.0.0.1:${port}`, 'greeter::greet', 90000);
    expect(await greeting(httpPort, 'ada')).toBeDefined();
    editGreeting(project, 'bonjour');
    expect(await greeting(httpPort, 'bonjour ada')).toEqual({ greeting: 'bonjour ada' });
    expect(await stopChild(svc)).toBe(0);
  }, 240_000);
});
