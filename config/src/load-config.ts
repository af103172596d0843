/**
 * The one config pipeline (every config is read this way, nowhere else): find the file → parse YAML → substitute
 * `${VAR}` in string scalars → validate with the one schema (defaults applied) → deeply frozen resolved config.
 *
 * File lookup: the explicit path (`-c/--config`), else `svc-config.yaml` in the working directory, else the
 * embedded default that ships with this package (`config/svc-config.yaml`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  ConfigErrorCode,
  deepFreeze,
  parseDocument,
  substituteEnv,
  validateConfig,
  type DeepReadonly,
  type Env,
} from '@svc/config-kit';
import { svcConfigSchema, type SvcConfig } from './schema.js';
import { collectWarnings } from './warnings.js';

/** The embedded default config file (all five capability workers, file-based stores under ./data). */
export const EMBEDDED_CONFIG_PATH = fileURLToPath(new URL('../svc-config.yaml', import.meta.url));
export const PRODUCTION_CONFIG_PATH = fileURLToPath(new URL('../production.yaml', import.meta.url));
export const CWD_CONFIG_NAME = 'svc-config.yaml';

export type ConfigSourceKind = 'flag' | 'cwd' | 'embedded' | 'inline';

export interface LoadedConfig {
  config: DeepReadonly<SvcConfig>;
  /** Absolute path of the file used (or `<inline>`), and how it was chosen. */
  source: { path: string; kind: ConfigSourceKind };
  /** Things a user should know but that do not stop start-up (e.g. an in-memory store loses data on restart). */
  warnings: readonly string[];
}

export interface LoadOptions {
  env?: Env;
  cwd?: string;
}

export function findConfigFile(path: string | undefined, cwd: string): { path: string; kind: ConfigSourceKind } {
  if (path !== undefined) {
    const abs = resolve(cwd, path);
    if (!existsSync(abs)) {
      throw new ConfigError(
        ConfigErrorCode.NotFound,
        [{ path: '', message: `no such file; check the -c/--config path` }],
        abs,
      );
    }
    return { path: abs, kind: 'flag' };
  }
  const local = resolve(cwd, CWD_CONFIG_NAME);
  if (existsSync(local)) return { path: local, kind: 'cwd' };
  return { path: EMBEDDED_CONFIG_PATH, kind: 'embedded' };
}

export function loadConfig(path?: string, options: LoadOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const source = findConfigFile(path, cwd);
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      ConfigErrorCode.NotFound,
      [{ path: '', message: `cannot read: ${(err as Error).message}` }],
      source.path,
    );
  }
  return { ...parseConfigText(text, source.path, options.env ?? process.env), source };
}

/** The pipeline on text already read (tests, and configs not on disk). */
export function parseConfigText(text: string, sourceName: string, env: Env): Omit<LoadedConfig, 'source'> {
  const doc = parseDocument(text, sourceName);
  if (doc === null || doc === undefined || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(
      ConfigErrorCode.Invalid,
      [{ path: '', message: 'expected a mapping with at least `modules:` (a list of modules)' }],
      sourceName,
    );
  }
  const { value, wholeReferences } = substituteEnv(doc, env, sourceName);
  const config = validateConfig(svcConfigSchema, value, sourceName, wholeReferences);
  return { config: deepFreeze(config), warnings: collectWarnings(config) };
}
