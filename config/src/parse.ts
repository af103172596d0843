/** YAML (a superset of JSON) → plain data. Duplicate keys and anchors-bombs are errors, not silent surprises. */
import { parse } from 'yaml';
import { ConfigError } from './errors.js';

export function parseDocument(text: string, source: string): unknown {
  try {
    return parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'unreadable YAML';
    throw new ConfigError('config_parse_error', [{ path: '', message: `not valid YAML: ${message}` }], source);
  }
}
