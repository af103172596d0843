/**
 * The `configuration` engine module (`configuration::*`, docs/compatibility.md): where it keeps values. Without a
 * directory they live in memory for the engine's lifetime; with one, each configuration is one JSON file there and
 * survives restarts.
 */
import { z } from 'zod';
import { positiveIntSchema } from '@svc/config-kit';

export const configurationModuleSchema = z
  .object({
    directory: z
      .string()
      .min(1)
      .optional()
      .describe('Directory of `<id>.json` files, one per configuration (created if missing); absent: in memory only.'),
    max_entry_bytes: positiveIntSchema
      .default(1024 * 1024)
      .describe(
        'Characters of JSON one configuration may take (schema, value, name, description, metadata); a larger `configuration::register` or `set` is refused with `TOO_LARGE`.',
      ),
    max_total_bytes: positiveIntSchema
      .default(64 * 1024 * 1024)
      .describe(
        "Characters of JSON all configurations may take together: they live in the engine's memory (and are read back from `directory` at start).",
      ),
  })
  .strict();

export const configurationModuleShape = {
  configuration: configurationModuleSchema.prefault({}),
};

/**
 * `{ name: configuration, config: { adapter: { name: fs, config: { directory } } } }` (the original engine's entry)
 * → the top-level `configuration:` key. Other adapters have no equivalent and are left for validation to report.
 */
export function liftConfigurationEntry(doc: Record<string, unknown>): Record<string, unknown> {
  const modules = doc['modules'];
  if (!Array.isArray(modules)) return doc;
  const index = modules.findIndex(
    (m) => typeof m === 'object' && m !== null && (m as { name?: unknown }).name === 'configuration',
  );
  if (index === -1 || 'configuration' in doc) return doc;
  const adapter = ((modules[index] as { config?: { adapter?: unknown } }).config?.adapter ?? {}) as {
    name?: unknown;
    config?: { directory?: unknown };
  };
  if (adapter.name !== undefined && adapter.name !== 'fs') return doc;
  const directory = adapter.config?.directory;
  return {
    ...doc,
    modules: modules.filter((_, i) => i !== index),
    configuration: typeof directory === 'string' ? { directory } : {},
  };
}

export type ConfigurationModuleConfig = z.output<typeof configurationModuleSchema>;
