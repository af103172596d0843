import type { StreamEvent, StreamWrapperMessage } from './messages.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseEvent(raw: unknown): StreamEvent | undefined {
  if (!isRecord(raw)) return undefined;
  switch (raw.type) {
    case 'unauthorized':
      return { type: 'unauthorized' };
    case 'sync':
    case 'create':
    case 'update':
    case 'delete':
      return { type: raw.type, data: raw.data ?? null };
    case 'event':
      if (!isRecord(raw.event) || typeof raw.event.type !== 'string') return undefined;
      return { type: 'event', event: { type: raw.event.type, data: raw.event.data ?? null } };
    default:
      return undefined;
  }
}

/** Validates a frame read back from a shared backend (another process wrote it, so it is not trusted blindly). */
export function parseWrapperMessage(text: string): StreamWrapperMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || raw.type !== 'stream') return undefined;
  const { timestamp, streamName, groupId, id } = raw;
  if (typeof timestamp !== 'number' || typeof streamName !== 'string' || typeof groupId !== 'string') return undefined;
  if (id !== null && typeof id !== 'string') return undefined;
  const event = parseEvent(raw.event);
  if (!event) return undefined;
  return { type: 'stream', timestamp, streamName, groupId, id, event };
}
