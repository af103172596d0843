/** YAML (a superset of JSON) → plain data. Duplicate keys and alias bombs are errors, not silent surprises. */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { ConfigError } from './errors.js';
import { ConfigErrorCode } from './error-codes.js';

// Loaded on first use: a worker that gets its config as JSON (SVC_MODULE_CONFIG) never pays for the YAML parser.
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

export function parseDocument(text: string, source: string): unknown {
  yaml ??= require('yaml') as typeof Yaml;
  try {
    return yaml.parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'unreadable YAML';
    throw new ConfigError(ConfigErrorCode.ParseError, [{ path: '', message: `not valid YAML: ${message}` }], source);
  }
}
