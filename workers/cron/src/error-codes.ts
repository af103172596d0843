/**
 * svc-cron's error codes. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 * A bad `cron::trigger` input answers the wire's `INVALID_ARGUMENTS` (`ErrorCode.InvalidArguments` of the SDK).
 */
export const CronErrorCode = Object.freeze({
  /** The cron expression does not parse (6 or 7 fields, seconds first). */
  InvalidCronExpression: 'invalid_cron_expression',
  /** No cron job with that id. */
  CronJobNotFound: 'cron_job_not_found',
  /** The lock store is down; jobs do not run until it is back (fail closed). */
  LockStoreUnavailable: 'lock_store_unavailable',
} as const);
