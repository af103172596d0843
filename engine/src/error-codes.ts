/**
 * The engine's error codes: the core's own (`EngineErrorCode`, re-exported from core/errors.ts) and those of the
 * engine modules (`ModuleErrorCode`). docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the
 * two disagree. Modules answer a few wire codes too (`NOT_FOUND`, `INVALID_ARGUMENTS`): those are the SDK's
 * `ErrorCode`.
 */
export { EngineErrorCode } from './core/errors.js';

export const ModuleErrorCode = Object.freeze({
  /** HTTP functions: the URL (or a redirect hop) is outside the allowlist, not https, or a private address. */
  UrlNotAllowed: 'url_not_allowed',
  /** HTTP functions: the outbound request failed (connection error or a non-2xx status). */
  HttpRequestFailed: 'http_request_failed',
  /** HTTP functions: the upstream did not answer within the function's timeout. */
  HttpTimeout: 'http_timeout',
  /** HTTP functions: more redirects than allowed. */
  TooManyRedirects: 'too_many_redirects',
  /** HTTP functions: the upstream's body exceeds the response size cap. */
  ResponseTooLarge: 'response_too_large',
  /** HTTP functions: the upstream answered 2xx with a body that is not JSON. */
  InvalidResponse: 'invalid_response',
  /** HTTP functions: the auth config names an environment variable that is not set on the engine. */
  SecretNotSet: 'secret_not_set',
  /** Introspection: an unknown id in a batch answer of `engine::functions::info`. */
  NotFoundInBatch: 'not_found',
  /** Pub/sub: a publish named no topic. */
  TopicNotSet: 'topic_not_set',
  /** Pub/sub: the adapter could not deliver a publish. */
  PublishFailed: 'publish_failed',
  /** HTTP functions: a registration carries an HTTP invocation config but no HTTP-functions module runs. */
  HttpFunctionsUnavailable: 'http_functions_unavailable',
  /** RBAC: the session may not call (or see) that function, or may not register it. */
  Forbidden: 'FORBIDDEN',
  /** RBAC: the listener's auth function refused the connection (or failed). */
  AuthError: 'AUTH_ERROR',
  /** configuration::*: no configuration is registered under that id. */
  NotRegistered: 'NOT_REGISTERED',
  /** configuration::*: the id does not match the allowed form. */
  InvalidId: 'INVALID_ID',
  /** configuration::*: the schema is not a JSON Schema object, or the value does not match it. */
  SchemaInvalid: 'SCHEMA_INVALID',
  /** configuration::*: the configuration is larger than `max_entry_bytes`, or all of them would pass `max_total_bytes`. */
  TooLarge: 'TOO_LARGE',
  /** Bridge client: the remote engine is not connected; the call was not sent. */
  BridgeUnavailable: 'bridge_unavailable',
  /** Bridge client: the call was sent but not answered within its `timeout_ms`; the outcome is unknown. */
  BridgeTimeout: 'bridge_timeout',
  /** Bridge client: the connection to the remote engine dropped while the call ran there; the outcome is unknown. */
  BridgeConnectionLost: 'bridge_connection_lost',
  /** Bridge client: the call already crossed the most bridges allowed (a routing loop); not sent. */
  BridgeHopLimit: 'bridge_hop_limit',
  /** Channels: a create with `prefill` would take the engine's channels past their memory budget; not created. */
  ChannelCapacity: 'channel_capacity',
  /** Bridge client: `bridge.invoke` / `bridge.invoke_async` input was refused; the message names the field. */
  InvalidInput: 'invalid_input',
} as const);

export { ClusterErrorCode } from './modules/cluster/errors.js';
