/** The queue backends, for programs that embed them (the benchmark, tests). The worker itself is `main.ts`. */
export { BuiltinQueueAdapter, type BuiltinOptions } from './adapters/builtin.js';
export { KvserverAdapter, type KvserverOptions } from './adapters/bullmq.js';
export { BrokerAdapter, type BrokerOptions } from './adapters/rabbitmq.js';
export * from './adapters/types.js';
