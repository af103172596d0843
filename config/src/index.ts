/**
 * @svc/config: the engine's config pipeline (load YAML → substitute `${VAR:default}` → validate → defaults → a
 * frozen resolved config), the catalogue of every module class and its schema, and the schemas of the engine
 * modules. The kit it is built on (@svc/config-kit) and the capability workers' schemas (`@svc/worker-<name>/config`)
 * are re-exported, so a caller needs this one import.
 */
export * from '@svc/config-kit';
export * from './modules/index.js';
export * from './worker-schemas.js';
export { ConfigErrorCode } from './error-codes.js';
export * from './catalog.js';
export {
  engineKeysSchema,
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
export { collectWarnings } from './warnings.js';
export { clusterConfigSchema, type ClusterConfig } from './cluster.js';
export { renderConfigReference } from './reference.js';
export {
  functionFilterSchema,
  listenerSchema,
  matchPattern,
  rbacConfigSchema,
  type FunctionFilter,
  type ListenerConfig,
  type RbacConfig,
} from './worker-manager.js';
export { configurationModuleSchema, type ConfigurationModuleConfig } from './configuration-module.js';
