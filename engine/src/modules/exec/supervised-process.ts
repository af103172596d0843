/**
 * One supervised child process: spawn → running → (crash → backoff → spawn ...) | failed; `close()` sends SIGTERM,
 * then SIGKILL after the grace period, and resolves once the child has exited (so it is reaped: no zombie).
 * The command is spawned without a shell: every argument reaches the child literally.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { redactText } from '@svc/config';
import { relayOutput } from './output-relay.js';
import { withParentDeathSignal } from './parent-death.js';
import { CrashTracker, DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.js';

export type ProcessState = 'idle' | 'running' | 'backoff' | 'restarting' | 'failed' | 'stopped';

export interface ProcessSpec {
  /** Shown in logs (`process` field) and the failure message. */
  name: string;
  command: string;
  args: readonly string[];
  /** Added to the engine's environment. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface SupervisorOptions {
  logger: Logger;
  policy?: Partial<RestartPolicy>;
  /** SIGTERM → SIGKILL delay on close and on a watched-file restart. Default 5000 ms. */
  graceMs?: number;
  /** Linux: the kernel SIGTERMs the child if the engine dies (even by SIGKILL). Default true. */
  parentDeathSignal?: boolean;
  /**
   * An exit before `markReady()` (or before the process logs a JSON line with `"svc_ready": true`) is a start-up
   * failure: the process is marked failed with its reason instead of being restarted (capability workers: a taken port or a bad config does not heal by retrying). Default false.
   */
  failBeforeReady?: boolean;
  /** Called once the process reports itself ready (`markReady()`, or its `"svc_ready": true` line). */
  onReady?: () => void;
  /** Called on every state change (tests, introspection). */
  onState?: (state: ProcessState, detail: { pid?: number; exitCode?: number | null; signal?: string | null }) => void;
}

export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private childExit: Promise<void> | undefined;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private crashes: CrashTracker;
  private readonly policy: RestartPolicy;
  private readonly graceMs: number;
  private readonly logger: Logger;
  state: ProcessState = 'idle';
  /** How many times the process was spawned. */
  spawns = 0;
  /** Set once the process reported itself ready (see `failBeforeReady`). */
  private ready = false;
  /** The last error line the process wrote: why it failed, when it does. */
  private lastProblem: string | undefined;
  /** Why the process is `failed`, when it is. */
  failureReason: string | undefined;

  constructor(
    readonly spec: ProcessSpec,
    private readonly options: SupervisorOptions,
  ) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.policy };
    this.crashes = new CrashTracker(this.policy);
    this.graceMs = options.graceMs ?? 5000;
    this.logger = options.logger.child({ process: spec.name });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.state !== 'idle') return;
    this.spawnChild();
  }

  /** The process is up and doing its job: from now on an exit is a crash, restarted with backoff. */
  markReady(): void {
    if (this.ready) return;
    this.ready = true;
    this.options.onReady?.();
  }

  get isReady(): boolean {
    return this.ready;
  }

  /**
   * Stops the current child (SIGTERM, grace, SIGKILL) and starts a fresh one; not counted as a crash. Also revives
   * a process marked failed, with a clean crash history: a watched file changed, so the fix may be in.
   */
  async restart(reason: string): Promise<void> {
    if (this.closing) return;
    if (this.state === 'failed') this.crashes = new CrashTracker(this.policy);
    this.logger.info({ reason }, `restarting ${this.spec.name}`);
    this.clearTimer();
    this.setState('restarting');
    await this.stopChild();
    if (this.closing) return;
    this.spawnChild();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.clearTimer();
      await this.stopChild();
      this.setState('stopped');
    })();
    return this.closing;
  }

  private spawnChild(): void {
    const { command, args, env, cwd } = this.spec;
    this.spawns++;
    this.startedAt = Date.now();
    const line =
      this.options.parentDeathSignal === false ? { command, args: [...args] } : withParentDeathSignal(command, args);
    const child = spawn(line.command, line.args, {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      ...(cwd !== undefined ? { cwd } : {}),
    });
    this.child = child;
    this.lastProblem = undefined;
    const onProblem = (text: string): void => {
      this.lastProblem = text;
    };
    const onReady = (): void => this.markReady();
    relayOutput(child.stdout, this.logger, 'info', { onProblem, onReady });
    relayOutput(child.stderr, this.logger, 'warn', { onProblem, onReady });
    this.childExit = new Promise((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (done) return;
        done = true;
        resolve();
        if (this.child === child) this.child = undefined;
        // The last output lines may still be in the pipes: read them before deciding why it exited.
        afterOutput(child, () => this.onExit(code, signal));
      };
      child.once('exit', finish);
      child.once('error', (err) => {
        this.lastProblem = `cannot start ${command}: ${err.message}`;
        this.logger.error({ err, command }, `cannot start ${this.spec.name}: ${err.message}`);
        // 'exit' may not follow a spawn error (ENOENT): treat it as a crash.
        finish(null, null);
      });
    });
    this.setState('running', { pid: child.pid });
    // Arguments may carry credentials (a URL with a password): they are redacted in the log.
    this.logger.info({ pid: child.pid, command, args: args.map(redactText) }, `started ${this.spec.name}`);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.closing || this.state === 'restarting') return;
    if (this.options.failBeforeReady && !this.ready) {
      this.failStartup(code, signal);
      return;
    }
    const ranForMs = Date.now() - this.startedAt;
    const decision = this.crashes.onCrash(Date.now(), ranForMs);
    if (decision.action === 'fail') {
      this.failureReason = `crashed ${decision.crashes} times within the restart window${this.lastProblem ? `; last error: ${this.lastProblem}` : ''}`;
      this.setState('failed', { exitCode: code, signal });
      this.logger.error(
        { exitCode: code, signal, crashes: decision.crashes },
        `${this.spec.name} FAILED: it crashed ${decision.crashes} times in a row within the restart window; it will not be restarted until a watched file changes or svc restarts`,
      );
      return;
    }
    this.setState('backoff', { exitCode: code, signal });
    this.logger.warn(
      { exitCode: code, signal, ranForMs, restartInMs: decision.delayMs, attempt: decision.attempt },
      `${this.spec.name} exited unexpectedly; restarting in ${decision.delayMs} ms`,
    );
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closing) this.spawnChild();
    }, decision.delayMs);
  }

  private failStartup(code: number | null, signal: NodeJS.Signals | null): void {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.failureReason = this.lastProblem ?? `${this.spec.name} ${how} before it was ready`;
    this.setState('failed', { exitCode: code, signal });
    this.logger.error(
      { exitCode: code, signal, reason: this.failureReason },
      `${this.spec.name} failed to start (${how}): ${this.failureReason}`,
    );
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves when the child has exited. */
  private async stopChild(): Promise<void> {
    const child = this.child;
    const exited = this.childExit;
    if (!child || !exited || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    let killTimer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      killTimer = setTimeout(() => {
        this.logger.warn(
          { pid: child.pid, graceMs: this.graceMs },
          `${this.spec.name} ignored SIGTERM; sending SIGKILL`,
        );
        child.kill('SIGKILL');
        resolve();
      }, this.graceMs);
    });
    await Promise.race([exited, killed]);
    clearTimeout(killTimer);
    await exited;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setState(
    state: ProcessState,
    detail: { pid?: number | undefined; exitCode?: number | null; signal?: string | null } = {},
  ): void {
    this.state = state;
    const clean: { pid?: number; exitCode?: number | null; signal?: string | null } = {};
    if (detail.pid !== undefined) clean.pid = detail.pid;
    if (detail.exitCode !== undefined) clean.exitCode = detail.exitCode;
    if (detail.signal !== undefined) clean.signal = detail.signal;
    this.options.onState?.(state, clean);
  }
}

/** Calls `then` once the child's stdout/stderr are drained, or after 200 ms (a grandchild may hold the pipes). */
function afterOutput(child: ChildProcess, then: () => void): void {
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    clearTimeout(timer);
    then();
  };
  const timer = setTimeout(once, 200);
  if (child.stdout === null || child.stdout.readableEnded) once();
  else child.once('close', once);
}
