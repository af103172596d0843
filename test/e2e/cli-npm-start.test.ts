/**
 * `npm start` as a user runs it: the engine runs under npm with no shell in between, so SIGTERM to the npm process
 * stops the engine and its capability workers, and their ports are free again (no orphans).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ROOT, freePort, waitFor } from '../harness.js';
import { processState } from './exec-helpers.js';

/** The banner's lines as `label: shape` (numbers, pids and paths blanked), e.g. `http: :N`. */
function bannerShape(banner: string): string[] {
  return (
    banner
      .split('\n')
      // `note` lines tell of the host and the build (a VM's idle vCPUs, a missing bundle), not what the README shows
      .filter((line) => /^svc ready| {2}[a-z]+ /.test(line) && !line.startsWith('  note '))
      .map((line) =>
        line
          .replace(/\d+/g, 'N')
          .replace(/ {2}config {3}\S+/, '  config   <file>')
          .trim(),
      )
  );
}

/** The banner block README.md shows under "1. Start the engine". */
function readmeBanner(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```\n(svc ready in [\s\S]*?)```/.exec(readme);
  if (!block?.[1]) throw new Error('README.md shows no banner');
  return block[1];
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

describe('npm start', () => {
  it('SIGTERM to npm stops the engine and every worker; their ports are free again', async () => {
    const [port, httpPort, streamPort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      ...process.env,
      SVC_PORT: String(port),
      SVC_HTTP_PORT: String(httpPort),
      SVC_STREAM_PORT: String(streamPort),
      SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-npm-start-')),
    };
    // `--ignore-scripts` skips only prestart's build: the suite runs on a built tree, and a rebuild here would
    // rewrite the worker bundles that other test files' workers are loading
    const npm = spawn('npm', ['start', '--silent', '--ignore-scripts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /svc ready in \d+ ms[\s\S]*\n {2}config {3}.*\n/.test(output), 60000, 'the ready banner');
      // The README shows the banner a user really gets (the same lines, in the same order).
      const banner = output.slice(output.indexOf('svc ready in'));
      expect(bannerShape(banner)).toEqual(bannerShape(readmeBanner()));
      const pids = [...output.matchAll(/"pid":(\d+),"command"/g)].map((m) => Number(m[1]));
      expect(pids.length).toBeGreaterThan(0);
      npm.kill('SIGTERM');
      await exited;
      await waitFor(() => output.includes('"msg":"svc stopped"'), 15000, 'svc stopped');
      const engine = /"pid":(\d+),"hostname":"[^"]*","name":"svc","msg":"svc stopped"/.exec(output);
      expect(engine?.[1]).toBeDefined();
      for (const pid of [...pids, Number(engine?.[1])]) {
        await waitFor(() => processState(pid) !== 'running', 10000, `process ${pid} to exit`);
      }
      for (const p of [port, httpPort, streamPort]) expect(await portIsFree(p)).toBe(true);
    } finally {
      // After a failed assertion: stop svc the way the test does (SIGKILL to npm alone would leave svc and its
      // workers running, and they would weigh on every later test), and kill npm only if that does not end it.
      if (npm.exitCode === null && npm.signalCode === null) {
        npm.kill('SIGTERM');
        const ended = await Promise.race([exited.then(() => true), delay(10000, false, { ref: false })]);
        if (!ended) npm.kill('SIGKILL');
      }
    }
  }, 120000);
});
