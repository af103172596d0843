/** YAML (a superset of JSON) → plain data. Duplicate keys and alias bombs are errors, not silent surprises. */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { ConfigError } from './errors.js';
import { ConfigErrorCode } from './error-codes.js';

// Loaded on first use: a worker that gets its config as JSON (SVC_MODULE_CONFIG) never pays for the YAML parser.
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

/**
 * Loads the YAML parser ahead of the first `parseDocument`, as an ES import. In a bundled program that import is a
 * chunk of the bundle (the parser in one file), where `parseDocument`'s own `require` reads the package's ~70
 * modules from node_modules one by one; the `svc` command awaits this before it reads its config. Optional: without
 * it, `parseDocument` requires the parser when it first needs it.
 */
export async function loadYamlParser(): Promise<void> {
  if (yaml !== undefined) return;
  const loaded = (await import('yaml')) as typeof Yaml & { default?: typeof Yaml };
  yaml ??= loaded.default ?? loaded;
}

export function parseDocument(text: string, source: string): unknown {
  yaml ??= require('yaml') as typeof Yaml;
  try {
    return yaml.parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'unreadable YAML';
    throw new ConfigError(ConfigErrorCode.ParseError, [{ path: '', message: `not valid YAML: ${message}` }], source);
  }
}
