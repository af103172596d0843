/**
 * Config errors carry a stable code and one line per problem: the path (`modules[3].config.adapter.class`), the
 * value found (secrets redacted) and what is expected.
 */
import { redactText } from './redact.js';
import type { ConfigErrorCode } from './error-codes.js';

export interface ConfigProblem {
  /** Dotted path with array indices, e.g. `modules[3].config.adapter.class`; empty for the whole document. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: ConfigProblem[];

  constructor(
    readonly code: ConfigErrorCode,
    problems: ConfigProblem[],
    /** Where the config came from (a file path, `SVC_MODULE_CONFIG`, ...). */
    readonly source: string,
  ) {
    // A last line of defence: whatever a message quotes, a password inside a URL never leaves this object.
    const redacted = problems.map((p) => ({ path: p.path, message: redactText(p.message) }));
    super(formatProblems(code, redacted, source));
    this.problems = redacted;
  }
}

function formatProblems(code: ConfigErrorCode, problems: ConfigProblem[], source: string): string {
  const head = `${code}: invalid configuration in ${source}`;
  const lines = problems.map((p) => `  - ${p.path ? `${p.path}: ` : ''}${p.message}`);
  return [head, ...lines].join('\n');
}

/** `['modules', 3, 'config']` → `modules[3].config`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}
