/**
 * svc-otel's error codes. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 * It has none of its own: a bad query input answers the wire's `INVALID_ARGUMENTS` (`ErrorCode.InvalidArguments`
 * of the SDK), naming the function and the field.
 */
export const ObservabilityErrorCode = Object.freeze({} as const);
