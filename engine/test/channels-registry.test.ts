/**
 * The channel pipe and registry without sockets: an in-memory `PeerSocket` records what the engine sends and
 * completes sends on demand, so backpressure, ordering, closing and sweeping are checked exactly.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CHANNEL_BYTES } from '../src/modules/channels/channel.js';
import { ChannelRegistry, clampBufferSize } from '../src/modules/channels/channel-registry.js';
import { MemorySocket } from './memory-socket.js';

describe('channel pipe', () => {
  it('forwards frames in order, keeping text and binary apart, then closes the reader after the writer', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(64, undefined, 0);
    const writer = new MemorySocket();
    const reader = new MemorySocket();
    ch.attach('write', writer);
    writer.emit('a', false);
    writer.emit('b');
    ch.attach('read', reader);
    writer.emit('c');
    writer.peerClose(1000, 'stream_complete');
    expect(reader.sent).toEqual([
      { text: 'a', binary: false },
      { text: 'b', binary: true },
      { text: 'c', binary: true },
    ]);
    expect(reader.closed).toEqual({ code: 1000, reason: 'stream_complete' });
    expect(registry.size).toBe(0);
  });

  it('pauses the writer at buffer_size held frames and resumes it as the reader drains', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(3, undefined, 0);
    const writer = new MemorySocket();
    const reader = new MemorySocket();
    reader.autoComplete = false;
    ch.attach('write', writer);
    ch.attach('read', reader);
    writer.emit('1');
    writer.emit('2');
    expect(writer.paused).toBe(false);
    writer.emit('3');
    expect(writer.paused).toBe(true);
    expect(ch.heldFrames).toBe(3);
    reader.completeAll();
    expect(writer.paused).toBe(false);
    expect(ch.heldFrames).toBe(0);
  });

  it('pauses a writer at MAX_CHANNEL_BYTES held, whatever the frame count, and resumes it as the reader drains', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(1024, undefined, 0);
    const writer = new MemorySocket();
    ch.attach('write', writer);
    const frame = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 7; i++) writer.emit(frame);
    expect(writer.paused).toBe(false);
    writer.emit(frame); // 8 MiB held with no reader: before, 1,024 such frames were held
    expect(writer.paused).toBe(true);
    expect(registry.memory.held).toBe(MAX_CHANNEL_BYTES);
    const reader = new MemorySocket();
    ch.attach('read', reader);
    expect(writer.paused).toBe(false);
    expect(registry.memory.held).toBe(0);
  });

  it('holds every writer once all channels together reach the budget, and lets them go as room is made', () => {
    const registry = new ChannelRegistry(undefined, 3 * 1024 * 1024);
    const frame = 'x'.repeat(1024 * 1024);
    const writers = [0, 1, 2, 3].map(() => {
      const ch = registry.create(1024, undefined, 0);
      const writer = new MemorySocket();
      ch.attach('write', writer);
      return { ch, writer };
    });
    writers[0]!.writer.emit(frame);
    writers[1]!.writer.emit(frame);
    expect(writers.map((w) => w.writer.paused)).toEqual([false, false, false, false]);
    writers[2]!.writer.emit(frame); // the budget is full
    writers[3]!.writer.emit('y');
    expect(writers.map((w) => w.writer.paused)).toEqual([false, false, true, true]);
    const reader = new MemorySocket();
    writers[0]!.ch.attach('read', reader); // its megabyte is taken: room again
    expect(writers.map((w) => w.writer.paused)).toEqual([false, false, false, false]);
    writers[1]!.ch.remove();
    expect(registry.memory.held).toBe(1024 * 1024 + 1);
  });

  it('tells the reader when the writer dropped without a close', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(8, undefined, 0);
    const writer = new MemorySocket();
    const reader = new MemorySocket();
    ch.attach('write', writer);
    ch.attach('read', reader);
    writer.peerClose(1006);
    expect(reader.closed).toEqual({ code: 1011, reason: 'writer_disconnected' });
  });

  it('closes the writer and drops what it held when the reader goes first', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(2, undefined, 0);
    const writer = new MemorySocket();
    const reader = new MemorySocket();
    reader.autoComplete = false;
    ch.attach('write', writer);
    ch.attach('read', reader);
    writer.emit('x');
    writer.emit('y');
    reader.peerClose(1000);
    expect(writer.closed).toEqual({ code: 1000, reason: 'reader_closed' });
    expect(writer.paused).toBe(false);
    expect(registry.size).toBe(0);
  });

  it('refuses a second taker of an end', () => {
    const ch = new ChannelRegistry().create(8, undefined, 0);
    expect(ch.attach('read', new MemorySocket())).toBe(true);
    const second = new MemorySocket();
    expect(ch.attach('read', second)).toBe(false);
    expect(second.closed?.code).toBe(1008);
  });
});

describe('channel registry', () => {
  it('finds a channel only with its key', () => {
    const registry = new ChannelRegistry();
    const ch = registry.create(8, undefined, 0);
    expect(registry.find(ch.id, ch.accessKey)).toBe(ch);
    expect(registry.find(ch.id, 'nope')).toBeUndefined();
    expect(registry.find('other', ch.accessKey)).toBeUndefined();
  });

  it('sweeps channels with an end never taken after the idle TTL, and keeps busy ones', () => {
    const registry = new ChannelRegistry(5 * 60_000);
    const idle = registry.create(8, undefined, 0);
    const halfTaken = registry.create(8, undefined, 0);
    const busy = registry.create(8, undefined, 0);
    const reader = new MemorySocket();
    halfTaken.attach('read', reader);
    busy.attach('read', new MemorySocket());
    busy.attach('write', new MemorySocket());
    expect(registry.sweep(5 * 60_000 - 1)).toBe(0);
    expect(registry.sweep(5 * 60_000)).toBe(2);
    expect(registry.find(idle.id, idle.accessKey)).toBeUndefined();
    expect(reader.closed).toEqual({ code: 1001, reason: 'channel_expired' });
    expect(registry.find(busy.id, busy.accessKey)).toBe(busy);
  });

  it('removes the channels a worker owns when it goes', () => {
    const registry = new ChannelRegistry();
    registry.create(8, 'w1', 0);
    const other = registry.create(8, 'w2', 0);
    registry.create(8, undefined, 0);
    expect(registry.removeOwnedBy('w1')).toBe(1);
    expect(registry.size).toBe(2);
    expect(registry.find(other.id, other.accessKey)).toBe(other);
  });

  it('clamps buffer_size to 1..1024 with 64 as the default', () => {
    expect(clampBufferSize(0)).toBe(1);
    expect(clampBufferSize(5000)).toBe(1024);
    expect(clampBufferSize(Number.NaN)).toBe(64);
  });
});
