/**
 * `${VAR}` / `${VAR:default}` substitution, done on the parsed document's string scalars only (never on the raw
 * text), so a variable's value can never add keys or change the shape of the config: a value containing a newline,
 * `: ` or ` #` stays inside its string. `$${VAR}` is the literal text `${VAR}`. An unset `${VAR}` without a default
 * is an error naming the variable and where it is used.
 *
 * The result is always a string. The paths of scalars that were exactly one reference (`port: ${PORT}`) are
 * returned so validation can coerce them where the schema expects a number (plain decimal only: `0x1F90`, `1e3`,
 * ` 8080` are rejected) or a boolean (`true` / `false`).
 */
import { ConfigError, formatPath, type ConfigProblem } from './errors.js';
import { ConfigErrorCode } from './error-codes.js';

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}$/;

export type Env = Readonly<Record<string, string | undefined>>;

export interface Substituted {
  value: unknown;
  /** Formatted paths of scalars that were one whole `${VAR}` reference. */
  wholeReferences: Set<string>;
}

export function substituteEnv(doc: unknown, env: Env, source: string): Substituted {
  const problems: ConfigProblem[] = [];
  const wholeReferences = new Set<string>();
  const out = walk(doc, [], { env, problems, wholeReferences });
  if (problems.length > 0) {
    const code = problems.some((p) => p.message.startsWith('environment variable'))
      ? ConfigErrorCode.EnvMissing
      : ConfigErrorCode.EnvInvalid;
    throw new ConfigError(code, problems, source);
  }
  return { value: out, wholeReferences };
}

interface WalkState {
  env: Env;
  problems: ConfigProblem[];
  wholeReferences: Set<string>;
}

function walk(value: unknown, path: PropertyKey[], state: WalkState): unknown {
  if (typeof value === 'string') return substituteString(value, path, state);
  if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i], state));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k], state);
    return out;
  }
  return value;
}

function substituteString(text: string, path: PropertyKey[], state: WalkState): string {
  const { env, problems } = state;
  if (!text.includes('$')) return text;
  let failed = false;
  const result = text.replace(REFERENCE, (match: string, body: string | undefined) => {
    if (match === '$${') return '${';
    const ref = body ?? '';
    const colon = ref.indexOf(':');
    const name = colon === -1 ? ref : ref.slice(0, colon);
    if (!VAR_NAME.test(name)) {
      failed = true;
      problems.push({
        path: formatPath(path),
        message: `invalid reference '\${${ref}}'; expected \${NAME} or \${NAME:default}`,
      });
      return match;
    }
    const found = env[name];
    if (found !== undefined) return found;
    if (colon !== -1) return ref.slice(colon + 1);
    failed = true;
    problems.push({
      path: formatPath(path),
      message: `environment variable ${name} is not set and '\${${name}}' has no default; set ${name} or write \${${name}:default}`,
    });
    return match;
  });
  if (failed) return text;
  if (WHOLE_REFERENCE.test(text)) state.wholeReferences.add(formatPath(path));
  return result;
}
