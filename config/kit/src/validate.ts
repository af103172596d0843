/** Runs a zod schema and turns its issues into user-facing problems: path, value found (redacted), expectation. */
import type { z } from 'zod';
import { ConfigError, formatPath, type ConfigProblem } from './errors.js';
import { redactValue } from './redact.js';
import { ConfigErrorCode } from './error-codes.js';

type Issue = z.core.$ZodIssue & { input?: unknown };

const PLAIN_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * `coercible`: formatted paths of strings that came from one whole `${VAR}` reference; where the schema expects a
 * number (plain decimal only) or a boolean (`true`/`false`) they are converted once and validation runs again.
 */
export function validateConfig<S extends z.ZodType>(
  schema: S,
  data: unknown,
  source: string,
  coercible: ReadonlySet<string> = new Set(),
): z.output<S> {
  let result = schema.safeParse(data, { reportInput: true });
  if (!result.success && coercible.size > 0 && coerceIssues(data, result.error.issues, coercible)) {
    result = schema.safeParse(data, { reportInput: true });
  }
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => describeIssue(issue));
  throw new ConfigError(ConfigErrorCode.Invalid, problems, source);
}

function show(value: unknown, key: PropertyKey | undefined): string {
  if (value === undefined) return 'nothing';
  const redacted = redactValue(value, typeof key === 'symbol' ? undefined : key);
  const text = JSON.stringify(redacted);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function describeIssue(issue: Issue): ConfigProblem[] {
  const path = formatPath(issue.path);
  const last = issue.path[issue.path.length - 1];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key]),
        message: `unknown key '${key}'; remove it or fix its spelling${
          issue.path[issue.path.length - 1] === 'adapter' ? " (an adapter's settings go under its 'config:')" : ''
        }`,
      }));
    case 'invalid_union': {
      const options = 'options' in issue ? (issue.options as unknown[]) : undefined;
      if (options && 'discriminator' in issue) {
        const expected = options.map((o) => `'${String(o)}'`).join(', ');
        const key = String(issue.discriminator);
        const input = issue.input as Record<string, unknown> | undefined;
        const found = input && typeof input === 'object' ? input[key] : undefined;
        if (found === undefined) return [{ path, message: `is required; expected one of ${expected}` }];
        return [{ path, message: `unknown value ${show(found, key)}; expected one of ${expected}` }];
      }
      return [{ path, message: `${issue.message}; got ${show(issue.input, last)}` }];
    }
    case 'invalid_type':
      if (issue.input === undefined) return [{ path, message: `is required (expected ${issue.expected})` }];
      return [{ path, message: `got ${show(issue.input, last)}; expected ${issue.expected}` }];
    case 'invalid_value': {
      const expected = issue.values.map((v) => JSON.stringify(v)).join(', ');
      return [{ path, message: `got ${show(issue.input, last)}; expected one of ${expected}` }];
    }
    case 'too_small':
    case 'too_big':
      return [{ path, message: `got ${show(issue.input, last)}; ${issue.message.replace(/^Too (small|big): /, '')}` }];
    case 'custom':
      return [{ path, message: issue.message }];
    default:
      return [
        {
          path,
          message: issue.input === undefined ? issue.message : `${issue.message}; got ${show(issue.input, last)}`,
        },
      ];
  }
}

/** Converts, in place, env-substituted strings the schema wanted as numbers or booleans; true if any changed. */
function coerceIssues(data: unknown, issues: Issue[], coercible: ReadonlySet<string>): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || typeof issue.input !== 'string') continue;
    if (!coercible.has(formatPath(issue.path))) continue;
    let next: number | boolean | undefined;
    if ((issue.expected === 'number' || issue.expected === 'int') && PLAIN_DECIMAL.test(issue.input)) {
      next = Number(issue.input);
    } else if (issue.expected === 'boolean' && (issue.input === 'true' || issue.input === 'false')) {
      next = issue.input === 'true';
    }
    if (next !== undefined && setAt(data, issue.path, next)) changed = true;
  }
  return changed;
}

function setAt(root: unknown, path: ReadonlyArray<PropertyKey>, value: unknown): boolean {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return false;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  const last = path[path.length - 1];
  if (!node || typeof node !== 'object' || last === undefined) return false;
  (node as Record<PropertyKey, unknown>)[last] = value;
  return true;
}
