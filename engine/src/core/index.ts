export { EngineCore, type CoreOptions } from './engine-core.js';
export type { Connection, ForwardOutcome, RawFrame } from './connection.js';
export type { CallOptions, CallRequest, InvocationOutcome } from './call.js';
export type { CoreLogger } from './logger.js';
export { Worker, type WorkerMetadata } from './worker.js';
export { EngineErrorCode, errorBody } from './errors.js';
export type { FunctionEntry, Replica, FunctionInfo } from './function-registry.js';
export type { Binding, TriggerType } from './trigger-registry.js';
export type { TopologyEvent, TopologyListener, WorkerEventName } from './topology.js';
export type {
  ActionHandler,
  Claim,
  DispatchMiddleware,
  DispatchVerdict,
  Hooks,
  CallCancelled,
  InvocationSettled,
  InvocationStarted,
  LifecycleObserver,
  Registration,
  RegistrationInterceptor,
  RegistrationVerdict,
} from './hooks.js';
