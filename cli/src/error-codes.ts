/**
 * The error codes the `svc` command prints on its own (beside the codes of a failed call, which it prints as it
 * received them). docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 */
export const CliErrorCode = Object.freeze({
  /** `svc trigger` failed for a reason that is neither the engine's nor the function's. */
  TriggerFailed: 'trigger_failed',
  /** A command could not connect to the engine in time (exit code 4). */
  EngineUnreachable: 'engine_unreachable',
  /** The engine answered an introspection call (`svc functions`, `health`, …) with an error. */
  EngineError: 'engine_error',
  /** `svc logs` could not read the log store (the observability module is off, or the call failed). */
  LogsFailed: 'logs_failed',
} as const);
