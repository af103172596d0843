/**
 * The capability workers' config schemas, each defined beside its worker (`workers/<name>/src/config.ts`) and
 * exported from its package's `./config` subpath, which imports nothing but zod and the kit: loading it does not
 * load the worker (its Redis, RabbitMQ or SQLite clients).
 */
export {
  HTTP_METHODS,
  corsConfigSchema,
  httpConfigSchema,
  type CorsConfig,
  type HttpConfig,
} from '@svc/worker-http/config';
export {
  STATE_ADAPTERS,
  stateAdapterSchema,
  stateConfigSchema,
  stateKvserverConfigSchema,
  type StateAdapterConfig,
  type StateConfig,
} from '@svc/worker-state/config';
export {
  QUEUE_ADAPTERS,
  brokerQueueConfigSchema,
  builtinQueueConfigSchema,
  kvserverQueueConfigSchema,
  queueAdapterSchema,
  queueConfigSchema,
  queueSettingsSchema,
  type BrokerQueueConfig,
  type BuiltinQueueConfig,
  type KvserverQueueConfig,
  type QueueAdapterConfig,
  type QueueConfig,
  type QueueSettings,
} from '@svc/worker-queue/config';
export {
  CRON_ADAPTERS,
  cronAdapterSchema,
  cronConfigSchema,
  kvCronConfigSchema,
  kvserverCronConfigSchema,
  type CronAdapterConfig,
  type CronConfig,
  type KvCronConfig,
  type KvserverCronConfig,
} from '@svc/worker-cron/config';
export {
  STREAM_ADAPTERS,
  streamAdapterSchema,
  streamConfigSchema,
  streamKvserverConfigSchema,
  streamKvStoreConfigSchema,
  type StreamAdapterConfig,
  type StreamConfig,
} from '@svc/worker-stream/config';
export {
  alertActionSchema,
  alertRuleSchema,
  observabilityConfigSchema,
  samplingConfigSchema,
  samplingRuleSchema,
  type AlertRule,
  type ObservabilityConfig,
  type SamplingRule,
} from '@svc/worker-observability/config';
