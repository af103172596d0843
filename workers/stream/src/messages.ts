/**
 * The frames of the stream client socket (docs/protocol.md §6), field for field as they are on the wire: camelCase
 * envelope, `type` tags in lowercase, `id` always present (null for group-level frames).
 */
import { frameTimestamp } from './clock.js';
import { nameFits } from './limits.js';

/** The body of a server → client frame. */
export type StreamEvent =
  | { type: 'unauthorized' }
  | { type: 'sync'; data: unknown }
  | { type: 'create'; data: unknown }
  | { type: 'update'; data: unknown }
  | { type: 'delete'; data: unknown }
  | { type: 'event'; event: { type: string; data: unknown } };

/** Every server → client frame, and the payload of `stream` triggers. Never carries a subscriptionId. */
export interface StreamWrapperMessage {
  type: 'stream';
  timestamp: number;
  streamName: string;
  groupId: string;
  id: string | null;
  event: StreamEvent;
}

/** `join` / `leave` data from a client. `id` set means an item subscription, absent or null a group one. */
export interface SubscriptionRequest {
  subscriptionId: string;
  streamName: string;
  groupId: string;
  id: string | null;
}

export type ClientMessage = { type: 'join'; data: SubscriptionRequest } | { type: 'leave'; data: SubscriptionRequest };

export function wrap(streamName: string, groupId: string, id: string | null, event: StreamEvent): StreamWrapperMessage {
  return { type: 'stream', timestamp: frameTimestamp(), streamName, groupId, id, event };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses one client frame. Returns undefined for anything that is not a well-formed join or leave: the protocol ignores
 * such frames without a reply (docs/protocol.md, "6. The stream client socket").
 */
export function parseClientMessage(text: string): ClientMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || (raw.type !== 'join' && raw.type !== 'leave') || !isRecord(raw.data)) return undefined;
  const { subscriptionId, streamName, groupId, id } = raw.data;
  if (typeof subscriptionId !== 'string' || typeof streamName !== 'string' || typeof groupId !== 'string') {
    return undefined;
  }
  if (id !== undefined && id !== null && typeof id !== 'string') return undefined;
  // Names over the limit could never have been written (stream::set refuses them): nothing to join.
  if (![subscriptionId, streamName, groupId, id ?? ''].every(nameFits)) return undefined;
  return { type: raw.type, data: { subscriptionId, streamName, groupId, id: id ?? null } };
}
