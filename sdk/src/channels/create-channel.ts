/**
 * `createChannel(client, bufferSize?)`: a new channel from `engine::channels::create`, with both ends ready to use
 * (like iii-sdk's helper). Pass `writerRef`/`readerRef` in a payload to hand an end to another worker.
 */
import { DEFAULT_ENGINE_URL } from '../worker.js';
import type { SvcClient } from '../types.js';
import { ChannelReader } from './channel-reader.js';
import { ChannelWriter } from './channel-writer.js';
import { isChannelRef, type StreamChannelRef } from './refs.js';

export const CREATE_CHANNEL_FUNCTION = 'engine::channels::create';
export const REMOVE_CHANNEL_FUNCTION = 'engine::channels::remove';
export const WATCH_CHANNEL_FUNCTION = 'engine::channels::watch';

export interface Channel {
  writer: ChannelWriter;
  reader: ChannelReader;
  writerRef: StreamChannelRef;
  readerRef: StreamChannelRef;
}

export interface CreateChannelOptions {
  /** Frames the engine holds between the ends (default 64, max 1024). */
  bufferSize?: number;
  /** svc extension: the channel is removed when this worker disconnects. */
  owned?: boolean;
}

export async function createChannel(client: SvcClient, options: number | CreateChannelOptions = {}): Promise<Channel> {
  const { bufferSize, owned } = typeof options === 'number' ? { bufferSize: options, owned: undefined } : options;
  const payload: Record<string, unknown> = {};
  if (bufferSize !== undefined) payload['buffer_size'] = bufferSize;
  if (owned !== undefined) payload['owned'] = owned;
  const refs = await client.trigger<{ writer: unknown; reader: unknown }>({
    function_id: CREATE_CHANNEL_FUNCTION,
    payload,
  });
  if (!isChannelRef(refs?.writer) || !isChannelRef(refs?.reader)) {
    throw new Error(`${CREATE_CHANNEL_FUNCTION} returned no channel refs`);
  }
  const url = engineUrlOf(client);
  return {
    writer: new ChannelWriter(url, refs.writer),
    reader: new ChannelReader(url, refs.reader),
    writerRef: refs.writer,
    readerRef: refs.reader,
  };
}

/** The reader or writer for a ref received in a payload. */
export function openChannel(client: SvcClient, ref: StreamChannelRef): ChannelReader | ChannelWriter {
  const url = engineUrlOf(client);
  return ref.direction === 'read' ? new ChannelReader(url, ref) : new ChannelWriter(url, ref);
}

/** Drops a channel (both ends closed) whose key the caller holds; false when it was already gone. */
export async function removeChannel(client: SvcClient, ref: StreamChannelRef): Promise<boolean> {
  const out = await client.trigger<{ removed?: boolean }>({
    function_id: REMOVE_CHANNEL_FUNCTION,
    payload: { channel_id: ref.channel_id, access_key: ref.access_key },
  });
  return out?.removed === true;
}

function engineUrlOf(client: SvcClient): string {
  return client.engineUrl ?? DEFAULT_ENGINE_URL;
}
