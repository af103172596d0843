/** `modules::queue::QueueModule` / `svc-queue`: background jobs, retries, dead letters (SPEC.md "Queue module"). */
import { z } from 'zod';
import {
  adapterSchema,
  bridgeConfigSchema,
  kvserverConfigSchema,
  kvStoreShape,
  positiveIntSchema,
  requireFilePath,
} from './common.js';

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
  })
  .strict();

export const queueAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(QUEUE_ADAPTERS.builtin, builtinQueueConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.kvserver, kvserverConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.broker, brokerQueueConfigSchema),
  adapterSchema(QUEUE_ADAPTERS.bridge, bridgeConfigSchema),
]);

/** Per-queue settings; unset keys fall back to the adapter's. */
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
    adapter: queueAdapterSchema,
  })
  .strict();

export type BuiltinQueueConfig = z.infer<typeof builtinQueueConfigSchema>;
export type BrokerQueueConfig = z.infer<typeof brokerQueueConfigSchema>;
export type QueueAdapterConfig = z.infer<typeof queueAdapterSchema>;
export type QueueSettings = z.infer<typeof queueSettingsSchema>;
export type QueueConfig = z.infer<typeof queueConfigSchema>;
