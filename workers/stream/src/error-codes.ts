/**
 * svc-stream's error codes. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two
 * disagree. Update-op problems are the SDK's `UpdateOpErrorCode` (the same rules as `state::update`).
 */
export const StreamErrorCode = Object.freeze({
  /** A `stream::*` input was refused; the message lists the problems. */
  InvalidInput: 'invalid_input',
  /** A concurrent update kept winning; retry. */
  StreamUpdateConflict: 'stream_update_conflict',
  /** The stream adapter is closed (svc-stream is stopping). */
  StreamAdapterClosed: 'stream_adapter_closed',
  /** The stream's auth function did not answer in time; the connection was refused. */
  AuthTimeout: 'auth_timeout',
  /** A write would take the store (`KvStore`, in memory) past `max_store_bytes`. */
  StoreFull: 'stream_store_full',
  /** The file store could not be opened (in use by another process). */
  StoreOpenFailed: 'store_open_failed',
  /** The Bridge store forwards update ops only; an update without ops cannot be bridged. */
  UpdateUnsupported: 'update_unsupported',
} as const);
