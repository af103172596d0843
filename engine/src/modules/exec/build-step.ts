/**
 * An ExecModule's `build` command (e.g. `[npx, tsc]`): run to completion, without a shell, before the process
 * starts and before each restart on a change. Its output goes to the engine's log under the process's name.
 * `cancel()` stops a build in progress (SIGTERM) when the module closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { relayOutput } from './output-relay.js';

export class BuildStep {
  private running: ChildProcess | undefined;

  constructor(
    private readonly command: readonly string[],
    private readonly logger: Logger,
    private readonly options: { cwd?: string; env: Record<string, string> },
  ) {}

  /** Resolves true when the build exited 0. */
  run(): Promise<boolean> {
    const [command, ...args] = this.command as [string, ...string[]];
    this.logger.info({ command, args }, `building: ${this.command.join(' ')}`);
    const child = spawn(command, args, {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.options.env },
      ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
    });
    this.running = child;
    relayOutput(child.stdout, this.logger, 'info');
    relayOutput(child.stderr, this.logger, 'warn');
    return new Promise((resolve) => {
      child.once('error', (err) => {
        this.logger.error({ err }, `cannot run the build command ${command}: ${err.message}`);
        resolve(false);
      });
      child.once('close', (code, signal) => {
        if (this.running === child) this.running = undefined;
        if (code !== 0) this.logger.error({ code, signal }, `build failed (${signal ?? `exit code ${code}`})`);
        resolve(code === 0);
      });
    });
  }

  cancel(): void {
    this.running?.kill('SIGTERM');
  }
}
