/**
 * Every error code used in the sources is documented in docs/errors.md. A code is found three ways: a string in a
 * `code` position (`code: 'x'`, `readonly code = 'x'`), a value of an `…ErrorCode`/`…Errors` map, or a
 * snake-case/dotted string that reads like an error (`store_open_failed`, `SET_ERROR`, `merge.value.too_deep`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['engine/src', 'sdk/src', 'cli/src', 'config/src', 'workers'];
const ERRORISH =
  /(error|fail|not_found|unavailable|timeout|too_large|too_long|too_deep|too_many|conflict|denied|invalid|forbidden|closed|stalled|shutdown|stopped|polluted|refused|unsupported|exceeded|missing|mismatch|not_allowed|not_set|empty_segment)/i;

/** Strings the scan picks up that are not error codes. */
const NOT_CODES = new Map<string, string>([
  ['custom', 'zod issue code'],
  ['invalid_type', 'zod issue code'],
  ['invalid_union', 'zod issue code'],
  ['invalid_value', 'zod issue code'],
  ['invalid_field', 'codec decode-failure reason (reported as invalid_frame)'],
  ['not_an_object', 'codec decode-failure reason (reported as invalid_frame)'],
  ['error_id', 'a field of the svc-http error envelope'],
  ['timeout_ms', 'a field name'],
  ['unknown', 'fallback label in a log line'],
  ['method_not_allowed', 'a route-lookup outcome in svc-http (answered as METHOD_NOT_ALLOWED)'],
]);

/** Node's and its HTTP parser's own codes (`ERR_HTTP_REQUEST_TIMEOUT`, `HPE_HEADER_OVERFLOW`): matched, not produced. */
const NODE_CODE = /^(ERR|HPE)_[A-Z_]+$/;

function* sourceFiles(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'test') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) yield path;
  }
}

function codesIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bcode\s*[:=]\s*['"]([A-Za-z][A-Za-z0-9_.]*)['"]/g)) found.push(m[1]!);
  for (const block of text.matchAll(/\b\w*(?:ErrorCode|ErrorCodes|Errors)\s*=\s*\{([\s\S]*?)\}/g)) {
    for (const m of block[1]!.matchAll(/:\s*['"]([A-Za-z][A-Za-z0-9_.]*)['"]/g)) found.push(m[1]!);
  }
  for (const m of text.matchAll(/['"]([A-Za-z]+(?:[_.][A-Za-z]+)+)['"]/g)) if (ERRORISH.test(m[1]!)) found.push(m[1]!);
  return found;
}

describe('docs/errors.md', () => {
  it('documents every error code used in the sources', () => {
    const docs = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const documented = new Set([...docs.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    const isDocumented = (code: string): boolean =>
      documented.has(code) ||
      [...documented].some((d) => new RegExp(`(^|[^A-Za-z_])${escape(code)}($|[^A-Za-z_])`).test(d));
    const missing = new Map<string, string>();
    for (const root of SOURCES) {
      for (const file of sourceFiles(join(ROOT, root))) {
        for (const code of codesIn(readFileSync(file, 'utf8'))) {
          if (NOT_CODES.has(code) || NODE_CODE.test(code)) continue;
          if (!isDocumented(code)) missing.set(code, file.slice(ROOT.length + 1));
        }
      }
    }
    expect(
      [...missing].map(([code, file]) => `${code} (${file})`),
      'add these codes to docs/errors.md (or, if one is not an error code, to NOT_CODES here with a reason)',
    ).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
