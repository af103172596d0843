/**
 * The config pipeline's error codes (a `ConfigError`'s `code`). docs/errors.md lists each one;
 * test/docs/error-codes.test.ts fails when the two disagree.
 */
export const ConfigErrorCode = Object.freeze({
  /** The config file (or a worker's `--config`) cannot be read. */
  NotFound: 'config_not_found',
  /** The file is not valid YAML, or `SVC_MODULE_CONFIG` is not valid JSON. */
  ParseError: 'config_parse_error',
  /** A key has a wrong value; the message names the path, the value and what is expected. */
  Invalid: 'config_invalid',
  /** A `${VAR}` without a default is not set. */
  EnvMissing: 'config_env_missing',
  /** A `${…}` reference is malformed. */
  EnvInvalid: 'config_env_invalid',
} as const);

export type ConfigErrorCode = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];
