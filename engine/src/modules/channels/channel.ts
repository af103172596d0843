/**
 * One data channel: a bounded pipe of WebSocket frames from its write end to its read end.
 *
 * Each end is taken once. Frames keep their kind (binary or text). At most `bufferSize` frames, and about
 * `MAX_CHANNEL_BYTES`, are held by the engine at a time (queued, or handed to the reader's socket and not yet
 * written out), and all channels together hold about `ChannelMemory.budget`; at either bound the writer's socket is
 * paused, so a slow (or absent) reader slows the writer through TCP backpressure and memory stays bounded.
 * When the writer closes, the reader receives every frame still held, then a Close (1000 after a normal close,
 * 1011 `writer_disconnected` after a dropped one). When the reader goes first, the writer is closed with
 * 1000 `reader_closed` and whatever was held is dropped. The channel is gone once both ends are done.
 */
import type { PeerSocket } from '../module.js';

export type ChannelDirection = 'read' | 'write';

/** Close codes the engine sends on channel sockets. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_WRITER_LOST = 1011;

interface Frame {
  data: Buffer;
  binary: boolean;
}

/**
 * Bytes one channel holds before its writer is paused (one frame may go past it). Frame counts alone did not bound
 * memory: a writer with no reader made the engine hold 1,024 frames of 8 MiB.
 */
export const MAX_CHANNEL_BYTES = 8 * 1024 * 1024;
/** Bytes all channels of an engine hold together before their writers are paused (and prefills refused). */
export const DEFAULT_CHANNEL_MEMORY_BUDGET = 512 * 1024 * 1024;

/** The bytes every channel holds together, against a budget; the channels whose writer waits for room. */
export class ChannelMemory {
  held = 0;
  private readonly waiting = new Set<Channel>();

  constructor(readonly budget = DEFAULT_CHANNEL_MEMORY_BUDGET) {}

  get full(): boolean {
    return this.held >= this.budget;
  }

  hold(bytes: number): void {
    this.held += bytes;
  }

  release(bytes: number): void {
    this.held -= bytes;
    if (this.waiting.size === 0 || this.full) return;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const channel of waiting) channel.roomFreed();
  }

  waitForRoom(channel: Channel): void {
    this.waiting.add(channel);
  }

  forget(channel: Channel): void {
    this.waiting.delete(channel);
  }
}

export interface ChannelInit {
  id: string;
  accessKey: string;
  bufferSize: number;
  createdAtMs: number;
  /** The worker whose disconnect removes the channel; undefined for an ownerless channel. */
  ownerId: string | undefined;
  /** Called once when the channel is finished or removed. */
  onGone: (channel: Channel) => void;
  /** The budget shared by the engine's channels (default: one of its own). */
  memory?: ChannelMemory;
}

export class Channel {
  readonly id: string;
  readonly accessKey: string;
  readonly bufferSize: number;
  readonly createdAtMs: number;
  readonly ownerId: string | undefined;
  private writer: PeerSocket | undefined;
  private reader: PeerSocket | undefined;
  private writerTaken = false;
  private readerTaken = false;
  private readonly queue: Frame[] = [];
  private inflight = 0;
  /** Bytes of the frames held (queued + in flight), counted in `memory` too. */
  private heldBytes = 0;
  private readonly memory: ChannelMemory;
  private writerPaused = false;
  /** Set once the writer closed: the Close the reader gets after the last frame. */
  private ending: { code: number; reason: string } | undefined;
  private gone = false;
  private writerWatchers: Array<(taken: boolean) => void> = [];
  private readonly onGone: (channel: Channel) => void;

  constructor(init: ChannelInit) {
    this.id = init.id;
    this.accessKey = init.accessKey;
    this.bufferSize = init.bufferSize;
    this.createdAtMs = init.createdAtMs;
    this.ownerId = init.ownerId;
    this.onGone = init.onGone;
    this.memory = init.memory ?? new ChannelMemory();
  }

  /** True while an end has not been taken yet (such a channel is swept after its idle deadline). */
  get waitingForAnEnd(): boolean {
    return !this.writerTaken || !this.readerTaken;
  }

  /** Resolves true once the write end is taken (at once if it is), false if the channel goes first. */
  whenWriterTaken(): Promise<boolean> {
    if (this.writerTaken) return Promise.resolve(true);
    if (this.gone) return Promise.resolve(false);
    return new Promise((resolve) => this.writerWatchers.push(resolve));
  }

  /** Frames the engine holds right now (queued + in flight to the reader). */
  get heldFrames(): number {
    return this.queue.length + this.inflight;
  }

  /** Gives `socket` the `direction` end; false (and the socket closed at once) when that end is taken. */
  attach(direction: ChannelDirection, socket: PeerSocket): boolean {
    if (this.gone || (direction === 'write' ? this.writerTaken : this.readerTaken)) {
      socket.close(CLOSE_POLICY, `channel ${direction} end already taken`);
      return false;
    }
    if (direction === 'write') this.attachWriter(socket);
    else this.attachReader(socket);
    return true;
  }

  /**
   * Takes the write end for the engine itself: the channel holds `body` (binary frames of at most `frameSize`
   * bytes, none when it is empty), then ends as if its writer had closed normally.
   */
  prefill(body: Buffer, frameSize: number): void {
    this.writerTaken = true;
    for (let at = 0; at < body.length; at += frameSize) {
      this.queue.push({ data: body.subarray(at, at + frameSize), binary: true });
    }
    this.hold(body.length);
    this.ending = { code: CLOSE_NORMAL, reason: 'stream_complete' };
  }

  /** Ends the channel now: both sockets are closed and held frames dropped. Idempotent. */
  remove(code = CLOSE_GOING_AWAY, reason = 'channel_removed'): void {
    if (this.gone) return;
    this.gone = true;
    this.queue.length = 0;
    this.releaseAll();
    if (this.writerPaused) this.writer?.resume(); // so its close handshake can be read
    this.writer?.close(code, reason);
    this.reader?.close(code, reason);
    this.writer = undefined;
    this.reader = undefined;
    this.notifyWatchers(false);
    this.onGone(this);
  }

  private notifyWatchers(taken: boolean): void {
    const watchers = this.writerWatchers;
    this.writerWatchers = [];
    for (const resolve of watchers) resolve(taken);
  }

  private attachWriter(socket: PeerSocket): void {
    this.writerTaken = true;
    this.writer = socket;
    this.notifyWatchers(true);
    socket.onMessage((data, binary) => this.push({ data, binary }));
    socket.onClose((code, reason) => this.writerClosed(code, reason));
  }

  private attachReader(socket: PeerSocket): void {
    this.readerTaken = true;
    this.reader = socket;
    // A reader has nothing to say on a channel; what it sends is dropped.
    socket.onClose(() => this.readerClosed(socket));
    this.pump();
  }

  private push(frame: Frame): void {
    if (this.gone) return;
    this.queue.push(frame);
    this.hold(frame.data.length);
    if (!this.writerPaused && this.writer && this.mustHoldWriter()) {
      this.writerPaused = true;
      this.writer.pause();
    }
    this.pump();
  }

  /** True while the writer must wait: this channel's bounds, or the engine's budget for all of them. */
  private mustHoldWriter(): boolean {
    if (this.heldFrames >= this.bufferSize || this.heldBytes >= MAX_CHANNEL_BYTES) return true;
    if (!this.memory.full) return false;
    this.memory.waitForRoom(this);
    return true;
  }

  /** The engine's budget has room again: a writer held for it (alone) goes on. */
  roomFreed(): void {
    this.resumeWriterIfRoom();
  }

  private resumeWriterIfRoom(): void {
    if (this.gone || !this.writerPaused || !this.writer || this.mustHoldWriter()) return;
    this.writerPaused = false;
    this.writer.resume();
  }

  private hold(bytes: number): void {
    this.heldBytes += bytes;
    this.memory.hold(bytes);
  }

  private releaseAll(): void {
    const bytes = this.heldBytes;
    this.heldBytes = 0;
    this.memory.forget(this);
    this.memory.release(bytes);
  }

  private pump(): void {
    const reader = this.reader;
    while (reader && !this.gone && this.queue.length > 0 && this.inflight < this.bufferSize) {
      const frame = this.queue.shift() as Frame;
      this.inflight++;
      const bytes = frame.data.length;
      reader.send(frame.data, frame.binary, (err) => this.sent(err, bytes));
    }
    this.finishIfDrained();
  }

  private sent(err: Error | undefined, bytes: number): void {
    this.inflight--;
    if (this.gone) return; // remove() released what was held
    this.heldBytes -= bytes;
    this.memory.release(bytes);
    if (err) {
      this.readerClosed(this.reader);
      return;
    }
    this.resumeWriterIfRoom();
    this.pump();
  }

  private writerClosed(code: number, reason: string): void {
    this.writer = undefined;
    if (this.gone) return;
    const normal = code === CLOSE_NORMAL || code === CLOSE_GOING_AWAY || code === 1005;
    this.ending = normal
      ? { code: CLOSE_NORMAL, reason: reason || 'writer_closed' }
      : { code: CLOSE_WRITER_LOST, reason: 'writer_disconnected' };
    this.finishIfDrained();
  }

  private finishIfDrained(): void {
    if (!this.ending || this.gone || !this.reader || this.heldFrames > 0) return;
    const { code, reason } = this.ending;
    this.reader.close(code, reason);
    this.reader = undefined;
    this.gone = true;
    this.releaseAll();
    this.notifyWatchers(false);
    this.onGone(this);
  }

  private readerClosed(socket: PeerSocket | undefined): void {
    if (this.gone || socket !== this.reader) return;
    this.reader = undefined;
    this.remove(CLOSE_NORMAL, 'reader_closed');
  }
}
