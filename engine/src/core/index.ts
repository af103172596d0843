export { EngineCore, DEFAULT_INVOCATION_TIMEOUT_MS, type CoreOptions } from './engine-core.js';
export type { Connection } from './connection.js';
export { Worker, type WorkerMetadata } from './worker.js';
export { EngineErrorCode, errorBody } from './errors.js';
export type { FunctionEntry, Replica, FunctionInfo } from './function-registry.js';
export type { Binding, TriggerType } from './trigger-registry.js';
export type { TopologyEvent, TopologyListener, WorkerEventName } from './topology.js';
export type { HttpFunctionRegistrar, HttpFunctionRegistration, HttpFunctionHandle } from './http-function-hook.js';
export { ENQUEUE_FUNCTION_ID, NO_QUEUE_PROVIDER_MESSAGE } from './router.js';
