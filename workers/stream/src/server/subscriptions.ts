import type { StreamWrapperMessage, SubscriptionRequest } from '../messages.js';
import { OutgoingFrame } from './frame.js';

/** Something that can receive a serialized frame: a client connection. */
export interface FrameSink {
  /** `frame` is one text message, shared by every sink (its buffers must not be modified). */
  sendFrame(frame: OutgoingFrame): void;
}

interface Entry {
  sink: FrameSink;
  request: SubscriptionRequest;
}

/**
 * Every live subscription of this process, indexed by (stream, group) so a change reaches its subscribers without
 * scanning the others. Routing follows docs/protocol.md §6: a group subscription gets every frame of its group,
 * an item subscription only frames whose `id` is its item; a socket with N matching subscriptions gets N copies.
 */
export class SubscriptionIndex {
  private readonly byGroup = new Map<string, Set<Entry>>();
  private count = 0;

  private static key(stream: string, group: string): string {
    return `${stream}\u0000${group}`;
  }

  /** Returns a handle that removes the subscription. */
  add(sink: FrameSink, request: SubscriptionRequest): () => void {
    const key = SubscriptionIndex.key(request.streamName, request.groupId);
    let entries = this.byGroup.get(key);
    if (!entries) this.byGroup.set(key, (entries = new Set()));
    const entry: Entry = { sink, request };
    entries.add(entry);
    this.count++;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      this.count--;
      entries.delete(entry);
      if (entries.size === 0 && this.byGroup.get(key) === entries) this.byGroup.delete(key);
    };
  }

  get size(): number {
    return this.count;
  }

  /**
   * Sends `message` to every matching subscription. It is serialized and encoded once, whatever the number of
   * subscribers (the cost that matters when one change goes to thousands of clients). Returns the frames sent.
   */
  deliver(message: StreamWrapperMessage): number {
    const entries = this.byGroup.get(SubscriptionIndex.key(message.streamName, message.groupId));
    if (!entries) return 0;
    let frame: OutgoingFrame | undefined;
    let sent = 0;
    for (const { sink, request } of entries) {
      if (request.id !== null && request.id !== message.id) continue;
      frame ??= OutgoingFrame.json(message);
      sink.sendFrame(frame);
      sent++;
    }
    return sent;
  }
}
