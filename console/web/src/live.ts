/**
 * Live updates over the stream socket (`/ws/streams`, proxied by the console server to svc-stream). One socket per
 * page; it reconnects with a growing delay. `useLive(types, onEvent)` listens to the console's own live stream
 * (`svc:console`/`live`: topology, queues, traces); `useStreamGroup` follows any stream group's items.
 */
import { useEffect, useRef, useState } from 'react';

const LIVE_STREAM = 'svc:console';
const LIVE_GROUP = 'live';

export interface StreamFrame {
  streamName: string;
  groupId: string;
  id: string | null;
  event: { type: string; data?: unknown; event?: { type: string; data: unknown } };
}

type Handler = (frame: StreamFrame) => void;

function subscribe(
  streamName: string,
  groupId: string,
  onFrame: Handler,
  onOpen?: (open: boolean) => void,
): () => void {
  let socket: WebSocket | undefined;
  let closed = false;
  let delay = 500;
  let timer: number | undefined;
  const subscriptionId = `console-${Math.random().toString(36).slice(2)}`;
  // Live once svc-stream has answered the join (its sync, or a change it sent after subscribing us): from then on
  // every change reaches this socket. An open socket alone is not enough: a change made before the join is taken
  // would never arrive.
  let joined = false;
  const connect = (): void => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/streams`;
    socket = new WebSocket(url);
    socket.onopen = () => {
      delay = 500;
      socket?.send(JSON.stringify({ type: 'join', data: { subscriptionId, streamName, groupId } }));
    };
    socket.onmessage = (msg) => {
      const frame = parse(msg.data);
      if (!frame || frame.streamName !== streamName || frame.groupId !== groupId) return;
      if (!joined && frame.event.type !== 'unauthorized') {
        joined = true;
        onOpen?.(true);
      }
      onFrame(frame);
    };
    socket.onclose = () => {
      joined = false;
      onOpen?.(false);
      if (closed) return;
      timer = window.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  connect();
  return () => {
    closed = true;
    window.clearTimeout(timer);
    socket?.close();
  };
}

function parse(data: unknown): StreamFrame | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const frame = JSON.parse(data) as Partial<StreamFrame> & { type?: string };
    return frame.type === 'stream' && frame.event ? (frame as StreamFrame) : undefined;
  } catch {
    return undefined;
  }
}

/** Calls `onEvent` for each live event of one of `types`; returns whether the subscription is live. */
export function useLive(types: string[], onEvent: (type: string, data: unknown) => void): boolean {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [open, setOpen] = useState(false);
  const key = types.join(',');
  useEffect(
    () =>
      subscribe(
        LIVE_STREAM,
        LIVE_GROUP,
        (frame) => {
          // The join's answer: whatever changed before the subscription took is read again.
          if (frame.event.type === 'sync') {
            for (const type of key.split(',')) handler.current(type, undefined);
            return;
          }
          const custom = frame.event.event;
          if (frame.event.type === 'event' && custom && key.split(',').includes(custom.type)) {
            handler.current(custom.type, custom.data);
          }
        },
        setOpen,
      ),
    [key],
  );
  return open;
}

/** Follows a stream group: the items keyed by id, kept current by sync/create/update/delete frames. */
export function useStreamGroup(
  streamName: string | undefined,
  groupId: string | undefined,
  onFrame: (frame: StreamFrame) => void,
): boolean {
  const handler = useRef(onFrame);
  handler.current = onFrame;
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!streamName || !groupId) return undefined;
    return subscribe(streamName, groupId, (frame) => handler.current(frame), setOpen);
  }, [streamName, groupId]);
  return open;
}
