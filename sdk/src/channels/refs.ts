/**
 * Channel refs as they travel in payloads (iii's `StreamChannelRef`): `{channel_id, access_key, direction}`.
 * A worker turns a ref into a `ChannelReader` (direction `read`) or a `ChannelWriter` (`write`) and opens
 * `<engine url>/ws/channels/<channel_id>?key=<access_key>&dir=<direction>` on first use.
 */
import { ClientErrorCode } from '../error-codes.js';
export type ChannelDirection = 'read' | 'write';

export const ChannelDirection = { Read: 'read', Write: 'write' } as const;

export interface StreamChannelRef {
  channel_id: string;
  access_key: string;
  direction: ChannelDirection;
}

export function isChannelRef(value: unknown): value is StreamChannelRef {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['channel_id'] === 'string' &&
    typeof v['access_key'] === 'string' &&
    (v['direction'] === 'read' || v['direction'] === 'write')
  );
}

/** Every ref in a JSON-like value, with its dotted path (`request_body`, `items.0.out`). */
export function extractChannelRefs(value: unknown, path = ''): Array<{ path: string; ref: StreamChannelRef }> {
  if (isChannelRef(value)) return [{ path, ref: value }];
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([key, v]) => extractChannelRefs(v, path === '' ? key : `${path}.${key}`));
}

export function channelUrl(engineUrl: string, ref: StreamChannelRef, direction = ref.direction): string {
  const base = engineUrl.replace(/\/+$/, '');
  return `${base}/ws/channels/${encodeURIComponent(ref.channel_id)}?key=${encodeURIComponent(ref.access_key)}&dir=${direction}`;
}

/** Raised by a reader whose channel ended abnormally (the writer dropped, the channel was removed or expired). */
export class ChannelClosedError extends Error {
  readonly code = ClientErrorCode.ChannelClosed;
  constructor(
    readonly closeCode: number,
    readonly reason: string,
  ) {
    super(`channel closed before its end (${closeCode}${reason ? ` ${reason}` : ''})`);
  }
}

/** The error of a channel socket whose upgrade the engine refused with `status`. */
export function refusal(status: number): string {
  return status === 404
    ? 'channel refused: HTTP 404 (no such channel: wrong key, or removed, expired or retired)'
    : `channel refused: HTTP ${status}`;
}
