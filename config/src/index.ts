export * from './modules/index.js';
export { ConfigError, formatPath, type ConfigErrorCode, type ConfigProblem } from './errors.js';
export { REDACTED, redactText, redactValue, isSecretKey } from './redact.js';
export { substituteEnv, type Env, type Substituted } from './substitute.js';
export { validateConfig } from './validate.js';
export { parseDocument } from './parse.js';
export { parseModuleConfig, readModuleConfig, type ModuleConfigSources } from './read-module-config.js';
export * from './catalog.js';
export {
  svcConfigSchema,
  moduleEntrySchema,
  type SvcConfig,
  type SvcConfigInput,
  type ModuleEntry,
  type ModuleEntryOf,
} from './schema.js';
export {
  loadConfig,
  parseConfigText,
  findConfigFile,
  EMBEDDED_CONFIG_PATH,
  PRODUCTION_CONFIG_PATH,
  CWD_CONFIG_NAME,
  type LoadedConfig,
  type LoadOptions,
  type ConfigSourceKind,
} from './load-config.js';
export { deepFreeze, type DeepReadonly } from './freeze.js';
export { collectWarnings } from './warnings.js';
