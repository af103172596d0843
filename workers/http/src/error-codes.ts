/**
 * svc-http's error codes: the `code` of the error envelope of every response svc-http itself produces
 * (docs/protocol.md, "5. HTTP (svc-http)"), and of the errors of its body reader and route table. The upper-case ones
 * keep the spelling of the wire protocol we are compatible with. docs/errors.md lists each one;
 * test/docs/error-codes.test.ts fails when the two disagree.
 */
export const HttpErrorCode = Object.freeze({
  /** 400: the request is not valid HTTP (a malformed request line or header). */
  BadRequest: 'BAD_REQUEST',
  /** 431: the request's headers exceed Node's header size limit. */
  HeadersTooLarge: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  /** 404: no route matches the path. */
  NotFound: 'NOT_FOUND',
  /** 405: a route matches the path with another method. */
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  /** 400: the body is not valid JSON for its content type. */
  InvalidJson: 'INVALID_JSON',
  /** 413: the body exceeds the configured limit. */
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** 408: the client sent the request too slowly. */
  RequestTimeout: 'REQUEST_TIMEOUT',
  /** 422: the route's condition function returned false. */
  ConditionNotMet: 'CONDITION_NOT_MET',
  /** 503: over `concurrency_request_limit`. */
  Overloaded: 'SERVICE_UNAVAILABLE',
  /** 503: svc-http is draining for shutdown. */
  ShuttingDown: 'SHUTTING_DOWN',
  /** 504: the function did not answer within `default_timeout`. */
  GatewayTimeout: 'GATEWAY_TIMEOUT',
  /** 504: a route's middleware function did not answer in time. */
  MiddlewareTimeout: 'MIDDLEWARE_TIMEOUT',
  /** 500: the handler failed; the stack is in the log under `error_id`. */
  InternalError: 'INTERNAL_ERROR',
  /** 500: the handler's (or middleware's) result is not a valid HTTP response shape. */
  InvalidResponse: 'invalid_response',
  /** The error value of a failed call was not a `{ code, message }` object. */
  Unknown: 'UNKNOWN',
  /** Body reader: the body exceeds the limit (answered as `PAYLOAD_TOO_LARGE`). */
  BodyTooLarge: 'body_too_large',
  /** Body reader: the body is not valid JSON (answered as `INVALID_JSON`). */
  InvalidJsonBody: 'invalid_json',
  /** A trigger's route conflicts with an existing one (carried by `trigger_registration_failed`). */
  RouteConflict: 'route_conflict',
} as const);
