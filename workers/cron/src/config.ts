/**
 * svc-cron's config: the `config:` object of `modules::cron::CronModule` / `svc-cron` (docs/config.md,
 * `modules::cron::CronModule`), `{ adapter: { class, config } }`. The engine validates it with this schema at start-up
 * (@svc/config's catalogue imports it from `@svc/worker-cron/config`) and the worker reads it with the same schema.
 */
import { z } from 'zod';
import {
  adapterSchema,
  kvStoreShape,
  positiveIntSchema,
  kvserverUrlSchema,
  readModuleConfig,
  requireFilePath,
} from '@svc/config-kit';

export const CRON_ADAPTERS = {
  kv: 'modules::cron::KvCronAdapter',
  kvserver: 'modules::cron::KvserverCronAdapter',
} as const;

export const kvCronConfigSchema = z
  .object({
    lock_ttl_ms: positiveIntSchema
      .describe("How long a tick's claim lives, in ms (svc addition; a late tick may still run within half of it).")
      .default(30000)
      .describe('A job re-executes if the lock holder crashes and the lock expires.'),
    lock_index: z.string().min(1).default('cron_locks').describe('Key prefix of the tick claims.'),
    ...kvStoreShape,
  })
  .strict()
  .superRefine(requireFilePath);

/**
 * `kvserver_url` is the adapter's one documented key; `lock_ttl_ms` and `lock_index` are optional svc additions with
 * the same defaults as the local adapter (how long a tick's claim lives, and the key prefix of the claims).
 */
export const kvserverCronConfigSchema = z
  .object({
    kvserver_url: kvserverUrlSchema,
    lock_ttl_ms: positiveIntSchema
      .default(30000)
      .describe("How long a tick's claim lives, in ms (svc addition; a late tick may still run within half of it)."),
    lock_index: z.string().min(1).default('cron_locks').describe('Key prefix of the tick claims.'),
  })
  .strict();

export const cronAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(CRON_ADAPTERS.kv, kvCronConfigSchema),
  adapterSchema(CRON_ADAPTERS.kvserver, kvserverCronConfigSchema),
]);

export const cronConfigSchema = z
  .object({
    adapter: cronAdapterSchema.describe(
      'The lock store: `class` picks it (one of the classes below), `config` holds its keys.',
    ),
  })
  .strict();

export type KvCronConfig = z.infer<typeof kvCronConfigSchema>;
export type KvserverCronConfig = z.infer<typeof kvserverCronConfigSchema>;
export type CronAdapterConfig = z.infer<typeof cronAdapterSchema>;
export type CronConfig = z.infer<typeof cronConfigSchema>;

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readCronConfig(): CronConfig {
  return readModuleConfig('svc-cron', cronConfigSchema);
}
