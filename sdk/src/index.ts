export * from './protocol.js';
export * from './codec.js';
export * from './types.js';
export type { ClientTransport, TransportEvents } from './connection/transport.js';
export { WsTransport, type WsTransportOptions } from './connection/ws-transport.js';
export { backoffDelay, DEFAULT_RECONNECTION } from './connection/backoff.js';
export { InvocationError, isErrorBody, type InvocationErrorInit } from './errors.js';
export { TriggerAction } from './trigger-action.js';
export { registerWorker, createClient, DEFAULT_ENGINE_URL } from './worker.js';
export { runCapabilityWorker, type CapabilityWorker, type RunningCapabilityWorker } from './capability-worker.js';
export { createLogger } from './logger.js';
export { childTraceparent, newTraceparent, parseTraceparent } from './trace-context.js';
export { conditionFunctionId } from './client/fire-trigger.js';
export {
  applyUpdateOps,
  parseUpdateOp,
  MAX_MERGE_VALUE_DEPTH,
  MAX_MERGE_VALUE_KEYS,
  MAX_PATH_DEPTH,
  MAX_SEGMENT_BYTES,
  PROTOTYPE_KEYS,
  type JsonObject,
  type JsonValue,
  type ParsedUpdateOp,
  type UpdateOp,
  type UpdateOpError,
  type UpdateOutcome,
} from './update-ops/index.js';
