/** Exit codes of the `svc` command (documented in README.md "Exit codes"). */
export const EXIT = {
  /** Success; `svc` stopped cleanly on SIGTERM/SIGINT. */
  ok: 0,
  /** `svc trigger`: the function returned an error. `svc`: the engine failed at start-up or at run time. */
  error: 1,
  /** Bad command line, or an invalid config file (the message names the path, the value, what is expected). */
  usage: 2,
  /** `svc trigger`: no result within `--timeout-ms`. */
  timeout: 3,
  /** `svc trigger`: the engine could not be reached. */
  unreachable: 4,
} as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}
