export { ExecModule, createExecModule, EXEC_MODULE_CLASS, type ExecModuleOptions } from './exec-module.js';
export {
  SupervisedProcess,
  type ProcessSpec,
  type ProcessState,
  type SupervisorOptions,
} from './supervised-process.js';
export { CrashTracker, DEFAULT_RESTART_POLICY, type RestartPolicy, type RestartDecision } from './restart-policy.js';
export { DirectoryWatcher, DEFAULT_DEBOUNCE_MS } from './watcher.js';
