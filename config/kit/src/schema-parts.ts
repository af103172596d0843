/**
 * Building blocks shared by the module schemas. Every object is `.strict()`: an unknown key is a config error,
 * never silently ignored (a typo such as `file_pth` would otherwise fall back to a default unnoticed).
 *
 * Adapter layout (one rule for every module): `adapter: { class: '<adapter class>', config: { ...keys } }`.
 * The adapter's keys always live under `config:`; keys written inline next to `class` are rejected.
 */
import { z } from 'zod';

export const portSchema = z.number().int().min(0).max(65535);
export const positiveIntSchema = z.number().int().positive();
export const nonNegativeIntSchema = z.number().int().min(0);
export const ratioSchema = z.number().min(0).max(1);

export const storeMethodSchema = z.enum(['file_based', 'in_memory']);
export type StoreMethod = z.infer<typeof storeMethodSchema>;

/**
 * `max_store_bytes` by default: 512 MiB, what a store holding everything in the worker's memory (svc-state and the
 * builtin queue in memory, svc-stream's KvStore) keeps at most.
 */
export const DEFAULT_MAX_STORE_BYTES = 512 * 1024 * 1024;

/** Keys shared by the built-in key-value stores (state, stream, cron, builtin queue). */
export const kvStoreShape = {
  store_method: storeMethodSchema
    .default('file_based')
    .describe(
      '`file_based` keeps the data on disk (SQLite or a file under `file_path`); `in_memory` loses it on restart (not for production).',
    ),
  file_path: z
    .string()
    .min(1)
    .optional()
    .describe('File (state/stream/cron) or directory (queue) on disk; required when `store_method` is `file_based`.'),
  save_interval_ms: positiveIntSchema
    .default(5000)
    .describe("How often the store is saved to disk, in ms (the worker's README says what it means for durability)."),
};

/** `file_path` is required when the store is file based. */
export function requireFilePath(
  value: { store_method: StoreMethod; file_path?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (value.store_method === 'file_based' && !value.file_path) {
    ctx.addIssue({
      code: 'custom',
      path: ['file_path'],
      message: "file_path is required when store_method is 'file_based' (or set store_method: in_memory)",
    });
  }
}

/** A Redis URL (state, stream, cron, queue and pub/sub adapters on Redis). */
export const kvserverUrlSchema = z.string().min(1).describe('Redis URL, `redis://[user:password@]host:port[/db]`.');

export const kvStoreConfigSchema = z.object(kvStoreShape).strict().superRefine(requireFilePath);
export type KvStoreConfig = z.infer<typeof kvStoreConfigSchema>;

export const kvserverConfigSchema = z.object({ kvserver_url: kvserverUrlSchema }).strict();
export type KvserverConfig = z.infer<typeof kvserverConfigSchema>;

export const bridgeConfigSchema = z
  .object({ bridge_url: z.string().min(1).describe('WebSocket URL of the other engine that serves this capability.') })
  .strict();
export type BridgeConfig = z.infer<typeof bridgeConfigSchema>;

/**
 * An adapter entry `{ class, config }`. `config` may be omitted when every key has a default; it is then
 * validated as `{}` so the defaults (and the "required" checks) still apply.
 */
export function adapterSchema<C extends string, S extends z.ZodType>(cls: C, config: S) {
  return z.object({ class: z.literal(cls), config: config.prefault({} as z.input<S>) }).strict();
}
