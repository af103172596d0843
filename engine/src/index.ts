/**
 * The engine as a library (@svc/engine): `startEngine` (engine.ts) for an engine with explicit modules, the
 * module interface and hook types (modules/module.ts, docs/hooks.md), and the built-in modules. `runSvc` (config →
 * engine) is exported separately as `@svc/engine/run`.
 */
export {
  startEngine,
  DEFAULT_PORT,
  DEFAULT_MAX_PAYLOAD,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  type EngineOptions,
  type RunningEngine,
} from './engine.js';
export { ENGINE_VERSION } from './internals.js';
export { EngineCore, EngineErrorCode } from './core/index.js';
export { DEFAULT_INVOCATION_TIMEOUT_MS } from '@svc/sdk';
export type { Connection } from './core/index.js';
export { InProcessTransport } from './transport/in-process.js';
export type * from './modules/module.js';
export { createIntrospectionModule, INTROSPECTION_MODULE } from './modules/introspection/index.js';
