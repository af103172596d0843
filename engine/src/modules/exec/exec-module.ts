/**
 * `modules::shell::ExecModule`: runs one external process under the supervisor (restart with backoff, stop with
 * SIGTERM → SIGKILL), optionally builds it first (`build`), and rebuilds + restarts it when a watched directory
 * changes. The engine also uses it for every capability worker of the config (svc-http, svc-state, ...).
 *
 * Every child gets `SVC_URL` (this engine), `SVC_SUPERVISED=1` (a capability worker exits when the engine is gone
 * for good, so a `kill -9` of the engine leaves no orphan), its entry's `env`, and its entry's `config` as JSON in
 * `SVC_MODULE_CONFIG`.
 */
import { basename } from 'node:path';
import type { DeepReadonly, ExecConfig } from '@svc/config';
import type { EngineModule, ModuleContext } from '../module.js';
import { BuildStep } from './build-step.js';
import type { RestartPolicy } from './restart-policy.js';
import { SupervisedProcess, type ProcessState } from './supervised-process.js';
import { DirectoryWatcher } from './watcher.js';

export const EXEC_MODULE_CLASS = 'modules::shell::ExecModule';

/** An ExecModule entry's config as the pipeline froze it; the engine builds `{ exec }` alone for a capability worker. */
export type ExecModuleConfig = DeepReadonly<
  Pick<ExecConfig, 'exec'> & Partial<Pick<ExecConfig, 'watch' | 'ignore' | 'build' | 'cwd' | 'env' | 'config'>>
>;

export interface ExecModuleOptions {
  /** Name in logs and the banner (the entry's `name:`); default the command's base name. */
  name?: string;
  /** Extra environment for the child (on top of the engine's, `SVC_URL` and `SVC_SUPERVISED`). */
  env?: Record<string, string>;
  /** SIGTERM → SIGKILL delay; default 5000 ms (the config's `shutdown_grace_ms`). */
  graceMs?: number;
  policy?: Partial<RestartPolicy>;
  watchDebounceMs?: number;
  /** Directories whose changes never restart (the data directory). */
  ignoreDirs?: readonly string[];
  /**
   * The process reports readiness by logging a JSON line with `"svc_ready": true` (capability workers do, once
   * started); an exit before that is a start-up failure, reported and not restarted. Default false.
   */
  reportsReady?: boolean;
  onState?: (state: ProcessState) => void;
  /** Called once the process reports itself ready (see `reportsReady`). */
  onReady?: () => void;
}

export class ExecModule implements EngineModule {
  readonly name = EXEC_MODULE_CLASS;
  private process: SupervisedProcess | undefined;
  private watcher: DirectoryWatcher | undefined;
  private build: BuildStep | undefined;
  private closing: Promise<void> | undefined;
  private logger: ModuleContext['logger'] | undefined;

  constructor(
    /** The entry's resolved config (validated once by the config pipeline), or a command built by the engine. */
    readonly config: ExecModuleConfig,
    private readonly options: ExecModuleOptions = {},
  ) {
    if (config.exec.length === 0 || !config.exec[0])
      throw new Error('exec: the command is missing (exec: [command, ...args])');
  }

  /** The supervised process's name (`svc-state`, the entry's `name:`, or the command's base name). */
  get processName(): string {
    return this.options.name ?? basename(this.config.exec[0] ?? 'exec');
  }

  get state(): ProcessState {
    return this.process?.state ?? 'idle';
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** The process said it finished starting (see `reportsReady`). */
  get ready(): boolean {
    return this.process?.isReady ?? false;
  }

  /** Why the process is `failed` (its last error line), when it is. */
  get failureReason(): string | undefined {
    return this.process?.failureReason;
  }

  async start(ctx: ModuleContext): Promise<void> {
    const logger = ctx.logger.child({ process: this.processName });
    this.logger = logger;
    const env = this.childEnv(ctx.engineUrl);
    const cwd = this.config.cwd;
    if (this.config.build) this.build = new BuildStep(this.config.build, logger, { env, ...(cwd ? { cwd } : {}) });
    this.process = this.supervise(ctx, env);
    this.startWatcher(ctx);
    void this.buildThen(() => this.process?.start(), 'the first build failed; waiting for a change to build again');
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.watcher?.close();
      this.build?.cancel();
      await this.process?.close();
    })();
    return this.closing;
  }

  private childEnv(engineUrl: string): Record<string, string> {
    const env: Record<string, string> = { SVC_URL: engineUrl, SVC_SUPERVISED: '1' };
    for (const [key, value] of Object.entries(this.config.env ?? {})) env[key] = String(value);
    if (this.config.config !== undefined) env['SVC_MODULE_CONFIG'] = JSON.stringify(this.config.config);
    return { ...env, ...this.options.env };
  }

  private supervise(ctx: ModuleContext, env: Record<string, string>): SupervisedProcess {
    const [command, ...args] = this.config.exec as readonly [string, ...string[]];
    const onState = this.options.onState;
    return new SupervisedProcess(
      { name: this.processName, command, args, env, ...(this.config.cwd ? { cwd: this.config.cwd } : {}) },
      {
        logger: ctx.logger,
        failBeforeReady: this.options.reportsReady === true,
        ...(this.options.graceMs !== undefined ? { graceMs: this.options.graceMs } : {}),
        ...(this.options.policy !== undefined ? { policy: this.options.policy } : {}),
        ...(onState ? { onState: (state: ProcessState) => onState(state) } : {}),
        ...(this.options.onReady ? { onReady: this.options.onReady } : {}),
      },
    );
  }

  private startWatcher(ctx: ModuleContext): void {
    const watch = this.config.watch ?? [];
    if (watch.length === 0) return;
    this.watcher = new DirectoryWatcher(
      watch,
      (file) => void this.onChange(file ? `file changed: ${file}` : 'watched directory changed'),
      ctx.logger.child({ process: this.processName }),
      {
        ignore: this.config.ignore ?? [],
        ignoreDirs: this.options.ignoreDirs ?? [],
        ...(this.options.watchDebounceMs !== undefined ? { debounceMs: this.options.watchDebounceMs } : {}),
        ...(this.config.cwd !== undefined ? { cwd: this.config.cwd } : {}),
      },
    );
    this.watcher.start();
  }

  private async onChange(reason: string): Promise<void> {
    const process = this.process;
    if (!process) return;
    await this.buildThen(
      () => void (process.state === 'idle' ? process.start() : process.restart(reason)),
      'build failed; the running process is left as it is',
    );
  }

  /** Runs the build (when there is one), then `next` if it succeeded. */
  private async buildThen(next: () => void, onFailure: string): Promise<void> {
    const ok = this.build ? await this.build.run() : true;
    if (this.closing) return;
    if (ok) next();
    else this.logger?.error(`${this.processName}: ${onFailure}`);
  }
}

/** Factory used by `engine/src/modules/index.ts` (class → module). */
export function createExecModule(config: ExecModuleConfig, options: ExecModuleOptions = {}): ExecModule {
  return new ExecModule(config, options);
}
