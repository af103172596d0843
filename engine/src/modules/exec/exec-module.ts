/**
 * `modules::shell::ExecModule`: runs one external process under the supervisor (restart with backoff, stop with
 * SIGTERM → SIGKILL) and restarts it when a watched directory changes. The engine also uses it for every
 * capability worker of the config (svc-http, svc-state, ...), with the worker's resolved config in
 * `SVC_MODULE_CONFIG`.
 *
 * Every child gets `SVC_URL` (this engine) and `SVC_SUPERVISED=1` (a capability worker exits when the engine is
 * gone for good, so a `kill -9` of the engine leaves no orphan).
 */
import { basename } from 'node:path';
import type { ExecConfig } from '@svc/config';
import type { EngineModule, ModuleContext } from '../module.js';
import type { RestartPolicy } from './restart-policy.js';
import { SupervisedProcess, type ProcessState } from './supervised-process.js';
import { DirectoryWatcher } from './watcher.js';

export const EXEC_MODULE_CLASS = 'modules::shell::ExecModule';

export interface ExecModuleOptions {
  /** Name in logs; default the command's base name. */
  name?: string;
  /** Extra environment for the child (on top of the engine's, `SVC_URL` and `SVC_SUPERVISED`). */
  env?: Record<string, string>;
  cwd?: string;
  /** SIGTERM → SIGKILL delay; default 5000 ms (the config's `shutdown_grace_ms`). */
  graceMs?: number;
  policy?: Partial<RestartPolicy>;
  watchDebounceMs?: number;
  onState?: (state: ProcessState) => void;
}

export class ExecModule implements EngineModule {
  readonly name = EXEC_MODULE_CLASS;
  private process: SupervisedProcess | undefined;
  private watcher: DirectoryWatcher | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    readonly config: Pick<ExecConfig, 'exec'> & Partial<Pick<ExecConfig, 'watch'>>,
    private readonly options: ExecModuleOptions = {},
  ) {
    if (config.exec.length === 0 || !config.exec[0])
      throw new Error('exec: the command is missing (exec: [command, ...args])');
  }

  /** The supervised process's name (`svc-state`, or the command's base name). */
  get processName(): string {
    return this.options.name ?? basename(this.config.exec[0] ?? 'exec');
  }

  get state(): ProcessState {
    return this.process?.state ?? 'idle';
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  async start(ctx: ModuleContext): Promise<void> {
    const [command, ...args] = this.config.exec as [string, ...string[]];
    const onState = this.options.onState;
    this.process = new SupervisedProcess(
      {
        name: this.processName,
        command,
        args,
        env: { SVC_URL: ctx.engineUrl, SVC_SUPERVISED: '1', ...this.options.env },
        ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
      },
      {
        logger: ctx.logger,
        ...(this.options.graceMs !== undefined ? { graceMs: this.options.graceMs } : {}),
        ...(this.options.policy !== undefined ? { policy: this.options.policy } : {}),
        ...(onState ? { onState: (state: ProcessState) => onState(state) } : {}),
      },
    );
    const watch = this.config.watch ?? [];
    if (watch.length > 0) {
      const supervised = this.process;
      this.watcher = new DirectoryWatcher(
        watch,
        (file) => void supervised.restart(file ? `file changed: ${file}` : 'watched directory changed'),
        ctx.logger,
        this.options.watchDebounceMs,
        this.options.cwd,
      );
      this.watcher.start();
    }
    this.process.start();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.watcher?.close();
      await this.process?.close();
    })();
    return this.closing;
  }
}

/** Factory used by `engine/src/modules/index.ts` (class → module). */
export function createExecModule(config: ExecModule['config'], options: ExecModuleOptions = {}): ExecModule {
  return new ExecModule(config, options);
}
