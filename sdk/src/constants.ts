/**
 * Defaults shared by the SDK, the engine and the config kit. One place, so a default cannot drift between the
 * side that sends a value and the side that assumes it.
 */

/** The engine's WebSocket port. */
export const DEFAULT_ENGINE_PORT = 49134;
/** Where a worker connects when neither `url` nor `SVC_URL` says otherwise. */
export const DEFAULT_ENGINE_URL = `ws://localhost:${DEFAULT_ENGINE_PORT}`;
/** Deadline of an invocation without its own `timeout_ms` (the SDK's `trigger()` and the engine alike), ms. */
export const DEFAULT_INVOCATION_TIMEOUT_MS = 30_000;
/** The longest delay a Node timer can wait (2^31-1 ms, about 24.8 days); longer deadlines are clamped to it. */
export const MAX_TIMER_MS = 2_147_483_647;
/** How long a peer may stay silent before the engine drops it, ms. */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 30_000;
/** How often the engine pings every socket, ms. */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;
/**
 * Characters of one string attribute a span or a log record keeps (OpenTelemetry's `attributeValueLengthLimit`):
 * the SDK's spans and logs, and the engine's spans (an error's message and stack).
 */
export const SPAN_ATTRIBUTE_CHARS = 8192;
