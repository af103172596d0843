/** Library entry of @svc/worker-state (the process entry is main.ts): the stores and the update ops. */
export * from './adapters/types.js';
export { createAdapter } from './adapters/index.js';
export { MemoryAdapter } from './adapters/memory.js';
export { FileAdapter } from './adapters/file.js';
export { RedisAdapter } from './adapters/redis.js';
export { BridgeAdapter } from './adapters/bridge.js';
export { updateMutation } from './update-mutation.js';
export { applyUpdateOps, type UpdateOp, type UpdateOpError } from '@svc/sdk';
