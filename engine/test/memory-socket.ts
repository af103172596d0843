/**
 * An in-memory `PeerSocket` for channel tests: records what the engine sends and completes sends on demand, so
 * backpressure, ordering and closing are checked exactly.
 */
import type { PeerSocket } from '../src/modules/module.js';

export class MemorySocket implements PeerSocket {
  sent: Array<{ text: string; binary: boolean }> = [];
  pending: Array<() => void> = [];
  paused = false;
  closed: { code: number; reason: string } | undefined;
  autoComplete = true;
  private message: ((d: Buffer, b: boolean) => void) | undefined;
  private closeListener: ((code: number, reason: string) => void) | undefined;

  send(data: Buffer, binary: boolean, done: (err?: Error) => void): void {
    this.sent.push({ text: data.toString(), binary });
    if (this.autoComplete) done();
    else this.pending.push(() => done());
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }
  terminate(): void {
    this.closed ??= { code: 1006, reason: '' };
  }
  onMessage(listener: (d: Buffer, b: boolean) => void): void {
    this.message = listener;
  }
  onClose(listener: (code: number, reason: string) => void): void {
    this.closeListener = listener;
  }
  /** The peer sends a frame. */
  emit(text: string, binary = true): void {
    this.message?.(Buffer.from(text), binary);
  }
  /** The peer's socket closes. */
  peerClose(code = 1000, reason = ''): void {
    this.closeListener?.(code, reason);
  }
  completeAll(): void {
    for (const done of this.pending.splice(0)) done();
  }
}
