/** Non-fatal findings about a valid config, logged at start-up. */
import { formatPath } from '@svc/config-kit';
import type { SvcConfig } from './schema.js';

/** Every adapter config with `store_method: in_memory` (anywhere in a module's config) loses its data on restart. */
export function collectWarnings(config: SvcConfig): string[] {
  const warnings: string[] = [];
  config.modules.forEach((entry, index) => {
    findInMemory(entry.config, ['modules', index, 'config'], (path) => {
      warnings.push(
        `${formatPath(path)}.store_method is in_memory: ${entry.class} keeps its data in memory only and a restart loses it; use file_based (or a server adapter) in production`,
      );
    });
  });
  return warnings;
}

function findInMemory(value: unknown, path: PropertyKey[], found: (path: PropertyKey[]) => void): void {
  if (!value || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  if (record['store_method'] === 'in_memory') found(path);
  for (const [key, child] of Object.entries(record)) findInMemory(child, [...path, key], found);
}
