/**
 * A small argv parser: `--flag value`, `--flag=value`, `-c value`, boolean flags, and positionals. Unknown flags
 * are usage errors (a typo must not be silently ignored).
 */
import { UsageError } from './exit-codes.js';

export interface FlagSpec {
  /** Takes a value (`--port 1`) or is a switch (`--help`). */
  value: boolean;
  alias?: string;
}

export interface ParsedArgs {
  flags: Record<string, string | true>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], spec: Record<string, FlagSpec>): ParsedArgs {
  const byAlias = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.alias) byAlias.set(s.alias, name);
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const raw = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : arg.slice(1);
    const name = arg.startsWith('--') ? raw : byAlias.get(raw);
    const flagSpec = name === undefined ? undefined : spec[name];
    if (name === undefined || !flagSpec) throw new UsageError(`unknown option ${arg.split('=')[0]}`);
    if (!flagSpec.value) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    if (eq !== -1 && arg.startsWith('--')) {
      flags[name] = arg.slice(eq + 1);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    flags[name] = value;
    i++;
  }
  return { flags, positionals };
}

export function stringFlag(flags: ParsedArgs['flags'], name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A non-negative decimal integer flag (`--port 49134`), or undefined when absent. */
export function intFlag(
  flags: ParsedArgs['flags'],
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return Number(value);
}
