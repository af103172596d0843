/**
 * How a capability worker gets its config, the same whether the engine spawned it or a person (or docker compose)
 * started it by hand: `--config <file.yaml|json>` on the command line, else the JSON in env `SVC_MODULE_CONFIG`
 * (what the engine's supervisor hands over), else `{}` (every key at its default). The file may use `${VAR}`
 * substitution like the engine's config file.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { parseDocument } from './parse.js';
import { ConfigError } from './errors.js';
import { substituteEnv, type Env } from './substitute.js';
import { validateConfig } from './validate.js';
import { ConfigErrorCode } from './error-codes.js';

export interface ModuleConfigSources {
  argv?: readonly string[];
  env?: Env;
}

/** Parses and validates; throws `ConfigError` (tests and callers that want to handle it themselves). */
export function parseModuleConfig<S extends z.ZodType>(schema: S, sources: ModuleConfigSources = {}): z.output<S> {
  const argv = sources.argv ?? process.argv.slice(2);
  const env = sources.env ?? process.env;
  const file = configFlag(argv);
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(
        ConfigErrorCode.NotFound,
        [{ path: '', message: `cannot read ${file}: ${(err as Error).message}` }],
        file,
      );
    }
    const doc = parseDocument(text, file);
    const { value, wholeReferences } = substituteEnv(doc ?? {}, env, file);
    return validateConfig(schema, value, file, wholeReferences);
  }
  const json = env['SVC_MODULE_CONFIG'];
  if (json !== undefined && json.trim() !== '') {
    let doc: unknown;
    try {
      doc = JSON.parse(json);
    } catch (err) {
      throw new ConfigError(
        ConfigErrorCode.ParseError,
        [{ path: '', message: `not valid JSON: ${(err as Error).message}` }],
        'SVC_MODULE_CONFIG',
      );
    }
    return validateConfig(schema, doc ?? {}, 'SVC_MODULE_CONFIG');
  }
  return validateConfig(schema, {}, 'the defaults (no --config and no SVC_MODULE_CONFIG)');
}

/**
 * For a worker's `main.ts`: returns the validated config with defaults, or prints a clear message naming the bad
 * path to stderr and exits with code 2 (the config-error exit code of every svc program).
 */
export function readModuleConfig<S extends z.ZodType>(
  name: string,
  schema: S,
  sources: ModuleConfigSources = {},
): z.output<S> {
  try {
    return parseModuleConfig(schema, sources);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    process.exit(2);
  }
}

function configFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--config' || arg === '-c') return argv[i + 1];
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return undefined;
}
