/**
 * svc-state's error codes: what a `state::*` call answers, and what the store behind it reports (carried in the
 * message of the function's `…_ERROR`). The upper-case ones keep the spelling of the wire protocol we are
 * compatible with. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 * Bad input answers the wire's `INVALID_ARGUMENTS` (`ErrorCode.InvalidArguments` of the SDK).
 */
export const StateErrorCode = Object.freeze({
  /** `state::get` failed in the store. */
  GetError: 'GET_ERROR',
  /** `state::set` failed in the store. */
  SetError: 'SET_ERROR',
  /** `state::delete` failed in the store. */
  DeleteError: 'DELETE_ERROR',
  /** `state::update` failed in the store. */
  UpdateError: 'UPDATE_ERROR',
  /** `state::list` / `state::list_entries` failed in the store. */
  ListError: 'LIST_ERROR',
  /** `state::list_groups` failed in the store. */
  ListGroupsError: 'LIST_GROUPS_ERROR',
  /** The value exceeds `max_value_bytes`. */
  ValueTooLarge: 'VALUE_TOO_LARGE',
  /** The store could not be opened (file or Redis unreachable). */
  StoreOpenFailed: 'store_open_failed',
  /** A write was lost in a failed batch; it was not acknowledged. */
  StoreIoError: 'store_io_error',
  /** The file store hit an I/O error and refuses writes until svc-state restarts. */
  StoreFailed: 'store_failed',
  /** A write would take the in-memory store past `max_store_bytes`; it was not made. */
  StoreFull: 'store_full',
  /** The store is closed (svc-state is stopping). */
  AdapterClosed: 'adapter_closed',
  /** A value in Redis is not valid JSON (written there by another program); it cannot be answered. */
  StoredValueInvalid: 'stored_value_invalid',
  /** A concurrent update kept winning; retry. */
  UpdateConflict: 'update_conflict',
  /** The bridge store forwards update ops only; an update without ops cannot be bridged. */
  UpdateUnsupported: 'update_unsupported',
} as const);
