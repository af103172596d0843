/**
 * svc whose output nobody reads any more (the pipe's reader went away: a log collector that died, `svc | head`)
 * keeps running and still stops on SIGTERM, exiting 0; it used to hang at exit retrying the failed write.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, freePort, rawCall, waitFor } from '../harness.js';

describe('svc with its output closed', () => {
  it('keeps serving, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'svc-closed-output-'));
    writeFileSync(join(dir, 'svc-config.yaml'), `port: ${port}\nhost: 127.0.0.1\nmodules: []\n`);
    const svc = spawn(process.execPath, [join(ROOT, 'cli/dist/main.js'), '-c', join(dir, 'svc-config.yaml')], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => svc.once('exit', (code) => resolve(code)));
    try {
      let banner = '';
      svc.stderr.on('data', (chunk: Buffer) => (banner += chunk.toString()));
      await waitFor(() => banner.includes('svc ready in'), 30_000, 'the ready banner');
      svc.stdout.destroy();
      svc.stderr.destroy();
      // still serving with nobody reading its output, and logging (a worker connecting writes a line)
      const answer = await rawCall(`ws://127.0.0.1:${port}`, 'engine::health::check', {});
      expect(answer.result).toBeDefined();
      svc.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
      expect(code).toBe(0);
    } finally {
      svc.kill('SIGKILL');
    }
  });
});
