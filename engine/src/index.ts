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
export { EngineCore, DEFAULT_INVOCATION_TIMEOUT_MS, EngineErrorCode } from './core/index.js';
export type { Connection } from './core/index.js';
export { InProcessTransport } from './transport/in-process.js';
export type * from './modules/module.js';
export { createIntrospectionModule, INTROSPECTION_MODULE } from './modules/introspection/index.js';
