/** `modules::cron::CronModule` / `svc-cron`: scheduled triggers with locks (SPEC.md "Cron module"). */
import { z } from 'zod';
import { adapterSchema, kvserverConfigSchema, kvStoreShape, positiveIntSchema, requireFilePath } from './common.js';

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

export const cronAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(CRON_ADAPTERS.kv, kvCronConfigSchema),
  adapterSchema(CRON_ADAPTERS.kvserver, kvserverConfigSchema),
]);

export const cronConfigSchema = z.object({ adapter: cronAdapterSchema }).strict();

export type KvCronConfig = z.infer<typeof kvCronConfigSchema>;
export type CronAdapterConfig = z.infer<typeof cronAdapterSchema>;
export type CronConfig = z.infer<typeof cronConfigSchema>;
