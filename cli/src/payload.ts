/**
 * `svc trigger` payload from the command line: `--json '{…}'` as the base object, then `key=value` pairs on top.
 * Values parse as a user expects: `n=3` → 3, `ok=true` → true, `x=null` → null, `tags=["a"]` → an array,
 * `o={"a":1}` → an object, anything else a string (`name=ada`); `key:=text` forces a string (`zip:=01234`).
 * Dotted keys nest: `user.name=ada` → `{ user: { name: 'ada' } }`.
 */
import { UsageError } from './exit-codes.js';

export function parseValue(raw: string): unknown {
  const text = raw.trim();
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return Number(text);
  if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

export function buildPayload(pairs: readonly string[], json: string | undefined): unknown {
  let payload: unknown = {};
  if (json !== undefined) {
    try {
      payload = JSON.parse(json) as unknown;
    } catch (err) {
      throw new UsageError(`--json is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (pairs.length === 0) return payload;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new UsageError('key=value pairs need --json to be an object (or no --json at all)');
  }
  const out = payload as Record<string, unknown>;
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`expected key=value, got "${pair}"`);
    const forceString = pair[eq - 1] === ':';
    const key = pair.slice(0, forceString ? eq - 1 : eq);
    const raw = pair.slice(eq + 1);
    setPath(out, key, forceString ? raw : parseValue(raw));
  }
  return out;
}

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  if (parts.some((p) => p === '' || FORBIDDEN.has(p))) throw new UsageError(`invalid key "${key}"`);
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next && typeof next === 'object' && !Array.isArray(next)) node = next as Record<string, unknown>;
    else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
  }
  node[parts[parts.length - 1] as string] = value;
}
