/** `modules::queue::QueueModule` / `svc-queue`: background jobs, retries, dead letters (SPEC.md "Queue module"). */
import { z } from 'zod';
import { adapterSchema, bridgeConfigSchema, kvStoreShape, positiveIntSchema, requireFilePath } from './common.js';

export const QUEUE_ADAPTERS = {
  builtin: 'modules::queue::BuiltinQueueAdapter',
  kvserver: 'modules::queue::KvserverAdapter',
  broker: 'modules::queue::BrokerAdapter',
  bridge: 'modules::queue::adapters::Bridge',
} as const;

export const builtinQueueConfigSchema = z
  .object({
    /** Delivery attempts before a message becomes a dead letter. */
    max_attempts: positiveIntSchema.default(3),
    /** Initial retry delay, doubling per attempt (1000, 2000, 4000 ...). */
    backoff_ms: positiveIntSchema.default(1000),
    concurrency: positiveIntSchema.default(10),
    poll_interval_ms: positiveIntSchema.default(100),
    mode: z.enum(['concurrent', 'fifo']).default('concurrent'),
    ...kvStoreShape,
  })
  .strict()
  .superRefine(requireFilePath);

export const brokerQueueConfigSchema = z
  .object({
    amqp_url: z.string().min(1),
    max_attempts: positiveIntSchema.default(3),
    prefetch_count: positiveIntSchema.default(10),
    queue_mode: z.enum(['standard', 'quorum']).default('standard'),
    /** Initial retry delay, doubling per attempt (one delay queue per attempt). */
    backoff_ms: positiveIntSchema.default(1000),
    /** Queue names are `<prefix>.<queue>`; processes with the same prefix share the work. */
    prefix: z.string().min(1).default('svc'),
  })
  .strict();

/** Redis through BullMQ. Every svc-queue process on the same `kvserver_url` and `prefix` shares the work. */
export const kvserverQueueConfigSchema = z
  .object({
    kvserver_url: z.string().min(1),
    prefix: z.string().min(1).default('svc'),
    max_attempts: positiveIntSchema.default(3),
    backoff_ms: positiveIntSchema.default(1000),
    /** Parallel jobs per queue in each process. */
    concurrency: positiveIntSchema.default(10),
    mode: z.enum(['concurrent', 'fifo']).default('concurrent'),
    /** A job whose worker stops renewing its lock for this long is delivered again. */
    lock_duration_ms: positiveIntSchema.default(30000),
    stalled_interval_ms: positiveIntSchema.default(30000),
  })
  .strict();

export const queueAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(QUEUE_ADAPTERS.builtin, builtinQueueConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.kvserver, kvserverQueueConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.broker, brokerQueueConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.bridge, bridgeConfigSchema),
]);

/**
 * Per-queue settings; unset keys fall back to the adapter's. `max_retries` counts retries after the first
 * delivery (attempts = max_retries + 1); `type` is `fifo`, `concurrent`, or `standard` (the adapter's `mode`).
 */
export const queueSettingsSchema = z
  .object({
    max_retries: z.number().int().min(0).optional(),
    concurrency: positiveIntSchema.optional(),
    type: z.string().min(1).default('standard'),
  })
  .strict();

export const queueConfigSchema = z
  .object({
    queue_configs: z.record(z.string().min(1), queueSettingsSchema).default({}),
    /** How long one attempt of a job may run before it counts as failed (and is retried). */
    job_timeout_ms: positiveIntSchema.default(30000),
    adapter: queueAdapterSchema,
  })
  .strict();

export type BuiltinQueueConfig = z.infer<typeof builtinQueueConfigSchema>;
export type KvserverQueueConfig = z.infer<typeof kvserverQueueConfigSchema>;
export type BrokerQueueConfig = z.infer<typeof brokerQueueConfigSchema>;
export type QueueAdapterConfig = z.infer<typeof queueAdapterSchema>;
export type QueueSettings = z.infer<typeof queueSettingsSchema>;
export type QueueConfig = z.infer<typeof queueConfigSchema>;
