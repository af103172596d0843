/**
 * svc-queue's config: the `config:` object of `modules::queue::QueueModule` / `svc-queue` (docs/config.md,
 * `modules::queue::QueueModule`). The engine validates it with this schema at start-up (@svc/config's catalogue imports
 * it from `@svc/worker-queue/config`) and the worker reads it with the same schema.
 */
import { z } from 'zod';
import {
  adapterSchema,
  DEFAULT_MAX_STORE_BYTES,
  bridgeConfigSchema,
  kvStoreShape,
  positiveIntSchema,
  kvserverUrlSchema,
  readModuleConfig,
  requireFilePath,
} from '@svc/config-kit';

export const QUEUE_ADAPTERS = {
  builtin: 'modules::queue::BuiltinQueueAdapter',
  kvserver: 'modules::queue::KvserverAdapter',
  broker: 'modules::queue::BrokerAdapter',
  bridge: 'modules::queue::adapters::Bridge',
} as const;

export const builtinQueueConfigSchema = z
  .object({
    max_attempts: positiveIntSchema.default(3).describe('Delivery attempts before a message becomes a dead letter.'),
    backoff_ms: positiveIntSchema
      .default(1000)
      .describe('Initial retry delay, doubling per attempt (1000, 2000, 4000 ...).'),
    concurrency: positiveIntSchema.default(10).describe('Parallel jobs per queue in one process.'),
    poll_interval_ms: positiveIntSchema
      .default(100)
      .describe(
        'Accepted for compatibility: the built-in queue is push-based, a job starts as soon as it is durable and a slot is free.',
      ),
    mode: z
      .enum(['concurrent', 'fifo'])
      .default('concurrent')
      .describe('`concurrent` runs up to `concurrency` jobs at once; `fifo` runs one job at a time, in order.'),
    ...kvStoreShape,
    max_store_bytes: positiveIntSchema
      .default(DEFAULT_MAX_STORE_BYTES)
      .describe(
        'With `store_method: in_memory`: jobs held at most (their data as JSON text and ids, bytes counted as characters, plus a fixed amount per job). An enqueue that would go past it is refused with `queue_store_full` and not acknowledged. A `file_based` store keeps its jobs on disk and a bounded amount of their data in memory.',
      ),
  })
  .strict()
  .superRefine(requireFilePath);

export const brokerQueueConfigSchema = z
  .object({
    amqp_url: z.string().min(1).describe('RabbitMQ URL, `amqp://user:password@host:port[/vhost]`.'),
    max_attempts: positiveIntSchema.default(3).describe('Deliveries before a job becomes a dead letter.'),
    prefetch_count: positiveIntSchema
      .default(10)
      .describe('Unacknowledged messages a consumer may hold (RabbitMQ prefetch).'),
    queue_mode: z
      .enum(['standard', 'quorum'])
      .default('standard')
      .describe('`standard` (classic) or `quorum` RabbitMQ queues.'),
    backoff_ms: positiveIntSchema
      .default(1000)
      .describe('Initial retry delay, doubling per attempt (one delay queue per attempt).'),
    prefix: z
      .string()
      .min(1)
      .default('svc')
      .describe('Queue names are `<prefix>.<queue>`; processes with the same prefix share the work.'),
  })
  .strict();

/** Redis through BullMQ. Every svc-queue process on the same `kvserver_url` and `prefix` shares the work. */
export const kvserverQueueConfigSchema = z
  .object({
    kvserver_url: kvserverUrlSchema,
    prefix: z
      .string()
      .min(1)
      .default('svc')
      .describe('Key (or queue name) prefix; processes with the same prefix share the queues.'),
    max_attempts: positiveIntSchema.default(3).describe('Deliveries before a job becomes a dead letter.'),
    backoff_ms: positiveIntSchema.default(1000).describe('Delay before the first retry, in ms; doubles per attempt.'),
    concurrency: positiveIntSchema.default(10).describe('Parallel jobs per queue in each process.'),
    mode: z
      .enum(['concurrent', 'fifo'])
      .default('concurrent')
      .describe('`concurrent` runs up to `concurrency` jobs at once; `fifo` runs one job at a time, in order.'),
    lock_duration_ms: positiveIntSchema
      .default(30000)
      .describe('A job whose worker stops renewing its lock for this long is delivered again.'),
    stalled_interval_ms: positiveIntSchema
      .default(30000)
      .describe('How often BullMQ looks for jobs whose worker stopped renewing its lock.'),
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
    max_retries: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Retries after the first delivery (attempts = `max_retries` + 1); default: the adapter's `max_attempts` − 1.",
      ),
    concurrency: positiveIntSchema.optional().describe('Parallel jobs per queue in one process.'),
    type: z
      .string()
      .min(1)
      .default('standard')
      .describe("`fifo` (one at a time, in order), `concurrent`, or `standard` (the adapter's `mode`)."),
  })
  .strict();

export const queueConfigSchema = z
  .object({
    queue_configs: z
      .record(z.string().min(1), queueSettingsSchema)
      .default({})
      .describe("Per-queue settings by queue name; unset keys fall back to the adapter's."),
    job_timeout_ms: positiveIntSchema
      .default(30000)
      .describe('How long one attempt of a job may run before it counts as failed (and is retried).'),
    max_queues: positiveIntSchema
      .default(1000)
      .describe(
        'Queues one svc-queue process consumes at most. Each costs a consumer, and with KvserverAdapter a Redis connection; an enqueue, publish or subscription that would start one more is refused with `queue_limit`. The queues of `queue_configs` always run.',
      ),
    adapter: queueAdapterSchema.describe(
      'The backend: `class` picks it (one of the classes below), `config` holds its keys.',
    ),
  })
  .strict()
  .superRefine((config, ctx) => {
    // A bridged queue runs with the settings of the svc-queue that serves it; settings here would be ignored.
    if (config.adapter.class === QUEUE_ADAPTERS.bridge && Object.keys(config.queue_configs).length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['queue_configs'],
        message: `queue_configs do not apply to ${QUEUE_ADAPTERS.bridge}: set them on the svc-queue of the engine at bridge_url`,
      });
    }
  });

export type BuiltinQueueConfig = z.infer<typeof builtinQueueConfigSchema>;
export type KvserverQueueConfig = z.infer<typeof kvserverQueueConfigSchema>;
export type BrokerQueueConfig = z.infer<typeof brokerQueueConfigSchema>;
export type QueueAdapterConfig = z.infer<typeof queueAdapterSchema>;
export type QueueSettings = z.infer<typeof queueSettingsSchema>;
export type QueueConfig = z.infer<typeof queueConfigSchema>;

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readQueueConfig(): QueueConfig {
  return readModuleConfig('svc-queue', queueConfigSchema);
}
