export type { StreamAdapter, SetResult, UpdateResult, StreamMetadata } from './adapters/types.js';
export { MemoryStreamAdapter } from './adapters/memory.js';
export { FileStreamAdapter } from './adapters/file.js';
export { RedisStreamAdapter } from './adapters/redis.js';
export { StreamClientServer, type ClientServerHooks, type ClientServerOptions } from './server/client-server.js';
export { applyUpdateOps } from '@svc/sdk';
export type { StreamWrapperMessage, StreamEvent } from './messages.js';
