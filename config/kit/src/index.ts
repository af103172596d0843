/**
 * @svc/config-kit: what the engine's config pipeline and every capability worker share to read a config. It knows
 * no module: each schema lives with what it configures (a worker's in `workers/<name>/src/config.ts`, an engine
 * module's in @svc/config), and the catalogue of every module is @svc/config's.
 */
export { ConfigErrorCode } from './error-codes.js';
export { ConfigError, formatPath, type ConfigProblem } from './errors.js';
export { REDACTED, redactText, redactValue, isSecretKey } from './redact.js';
export { substituteEnv, type Env, type Substituted } from './substitute.js';
export { validateConfig } from './validate.js';
export { loadYamlParser, parseDocument } from './parse.js';
export { parseModuleConfig, readModuleConfig, type ModuleConfigSources } from './read-module-config.js';
export { deepFreeze, type DeepReadonly } from './freeze.js';
export * from './schema-parts.js';
