/** `modules::cron::CronModule` / `svc-cron`: scheduled triggers with locks (SPEC.md "Cron module"). */
import { z } from 'zod';
import { adapterSchema, kvStoreShape, positiveIntSchema, requireFilePath } from './common.js';

export const CRON_ADAPTERS = {
  kv: 'modules::cron::KvCronAdapter',
  kvserver: 'modules::cron::KvserverCronAdapter',
} as const;

export const kvCronConfigSchema = z
  .object({
    /** A job re-executes if the lock holder crashes and the lock expires. */
    lock_ttl_ms: positiveIntSchema.default(30000),
    lock_index: z.string().min(1).default('cron_locks'),
    ...kvStoreShape,
  })
  .strict()
  .superRefine(requireFilePath);

/**
 * `kvserver_url` is SPEC's only key; `lock_ttl_ms` and `lock_index` are optional svc additions with the same
 * defaults as the local adapter (how long a tick's claim lives, and the key prefix of the claims).
 */
export const kvserverCronConfigSchema = z
  .object({
    kvserver_url: z.string().min(1),
    lock_ttl_ms: positiveIntSchema.default(30000),
    lock_index: z.string().min(1).default('cron_locks'),
  })
  .strict();

export const cronAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(CRON_ADAPTERS.kv, kvCronConfigSchema),
  adapterSchema(CRON_ADAPTERS.kvserver, kvserverCronConfigSchema),
]);

export const cronConfigSchema = z.object({ adapter: cronAdapterSchema }).strict();

export type KvCronConfig = z.infer<typeof kvCronConfigSchema>;
export type KvserverCronConfig = z.infer<typeof kvserverCronConfigSchema>;
export type CronAdapterConfig = z.infer<typeof cronAdapterSchema>;
export type CronConfig = z.infer<typeof cronConfigSchema>;
