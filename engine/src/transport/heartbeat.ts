/**
 * The engine's own keep-alive: one timer for all sockets. Every interval each socket is pinged; a socket from
 * which nothing (message, ping or pong) arrived for longer than the timeout is terminated, so a half-open peer
 * (killed host, dropped packets) is detected within timeout + one interval.
 */
import type { WebSocket } from 'ws';

export interface Beating {
  readonly ws: WebSocket;
  /** Set on every inbound frame; cheaper than reading the clock per message. */
  seen: boolean;
  lastSeenMs: number;
}

export class Heartbeat {
  private readonly sockets = new Set<Beating>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
    private readonly onDead: (beating: Beating) => void,
  ) {}

  start(): void {
    if (this.timer !== undefined || this.intervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  add(beating: Beating): void {
    beating.lastSeenMs = Date.now();
    this.sockets.add(beating);
  }

  delete(beating: Beating): void {
    this.sockets.delete(beating);
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sockets.clear();
  }

  private tick(): void {
    const now = Date.now();
    for (const b of this.sockets) {
      if (b.seen) {
        b.seen = false;
        b.lastSeenMs = now;
      } else if (now - b.lastSeenMs > this.timeoutMs) {
        this.sockets.delete(b);
        this.onDead(b);
        continue;
      }
      try {
        b.ws.ping();
      } catch {
        // the socket is closing; its close event cleans up
      }
    }
  }
}
