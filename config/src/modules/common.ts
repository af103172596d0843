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

/** Keys shared by the built-in key-value stores (state, stream, cron, builtin queue). */
export const kvStoreShape = {
  store_method: storeMethodSchema.default('file_based'),
  /** File (state/stream/cron) or directory (queue) on disk; required when `store_method` is `file_based`. */
  file_path: z.string().min(1).optional(),
  save_interval_ms: positiveIntSchema.default(5000),
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

export const kvStoreConfigSchema = z.object(kvStoreShape).strict().superRefine(requireFilePath);
export type KvStoreConfig = z.infer<typeof kvStoreConfigSchema>;

export const kvserverConfigSchema = z.object({ kvserver_url: z.string().min(1) }).strict();
export type KvserverConfig = z.infer<typeof kvserverConfigSchema>;

export const bridgeConfigSchema = z.object({ bridge_url: z.string().min(1) }).strict();
export type BridgeConfig = z.infer<typeof bridgeConfigSchema>;

/**
 * An adapter entry `{ class, config }`. `config` may be omitted when every key has a default; it is then
 * validated as `{}` so the defaults (and the "required" checks) still apply.
 */
export function adapterSchema<C extends string, S extends z.ZodType>(cls: C, config: S) {
  return z
    .object({ class: z.literal(cls), config: config.prefault({} as z.input<S>) as unknown as z.ZodPrefault<S> })
    .strict();
}
