export * from './modules/index.js';
export { ConfigError, formatPath, type ConfigErrorCode, type ConfigProblem } from './errors.js';
export { REDACTED, redactText, redactValue, isSecretKey } from './redact.js';
export { substituteEnv, type Env, type Substituted } from './substitute.js';
export { validateConfig } from './validate.js';
export { parseDocument } from './parse.js';
export { parseModuleConfig, readModuleConfig, type ModuleConfigSources } from './read-module-config.js';
