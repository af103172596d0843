/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) `traceparent` values:
 * `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`. The SDK carries an invocation's trace onward
 * (same trace id, a new span id) so a future tracer that reads these headers sees one connected trace.
 */
import { randomHex } from './random-ids.js';

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

export interface TraceParent {
  version: string;
  traceId: string;
  spanId: string;
  flags: string;
}

/** Parses a traceparent; undefined when it is absent or not valid (version ff, all-zero ids, bad shape). */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  if (value === undefined) return undefined;
  const m = TRACEPARENT_RE.exec(value.trim().toLowerCase());
  if (m === null) return undefined;
  const [, version, traceId, spanId, flags] = m as unknown as [string, string, string, string, string];
  if (version === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { version, traceId, spanId, flags };
}

export function formatTraceparent(tp: TraceParent): string {
  return `00-${tp.traceId}-${tp.spanId}-${tp.flags}`;
}

export function newSpanId(): string {
  let id = randomHex(8);
  while (id === ZERO_SPAN) id = randomHex(8);
  return id;
}

export function newTraceId(): string {
  let id = randomHex(16);
  while (id === ZERO_TRACE) id = randomHex(16);
  return id;
}

/** A fresh sampled trace (no parent). */
export function newTraceparent(): string {
  return `00-${newTraceId()}-${newSpanId()}-01`;
}

/**
 * The traceparent for an outgoing call made within `parent`'s trace: same trace id and flags, a new span id.
 * Starts a new trace when `parent` is absent or invalid.
 */
export function childTraceparent(parent: string | undefined): string {
  const tp = parseTraceparent(parent);
  if (tp === undefined) return newTraceparent();
  return `00-${tp.traceId}-${newSpanId()}-${tp.flags}`;
}
