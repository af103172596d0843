import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';
import { frameTimestamp } from '../clock.js';
import { parseClientMessage, wrap, type SubscriptionRequest } from '../messages.js';
import { OutgoingFrame } from './frame.js';
import type { FrameSink } from './subscriptions.js';
import { corkUntilTurnEnds, rawSocket } from './write-batch.js';

export interface ConnectionLimits {
  maxBufferedBytes: number;
  maxMessagesPerSecond: number;
  maxMissedPongs: number;
  maxSubscriptions: number;
}

/** What a connection needs from the server: join/leave decisions, the snapshot read and the index. */
export interface ConnectionHost {
  /** Runs the `stream:join` handlers; resolves true when the join is allowed. */
  authorizeJoin(connection: ClientConnection, request: SubscriptionRequest): Promise<boolean>;
  /** Fires the `stream:leave` handlers (results are ignored). */
  notifyLeave(connection: ClientConnection, request: SubscriptionRequest): void;
  /** The `sync` data: the group's items, or the item (null when missing). */
  snapshot(request: SubscriptionRequest): Promise<unknown>;
  subscribe(sink: FrameSink, request: SubscriptionRequest): () => void;
  onClosed(connection: ClientConnection): void;
}

/** Close codes (RFC 6455) used when the server drops a client. */
export const CLOSE = { goingAway: 1001, policy: 1008, tryAgainLater: 1013 } as const;

/** Grace for a close handshake before the socket is destroyed (a slow or dead client never answers it). */
const CLOSE_GRACE_MS = 1000;

/**
 * One client socket: its subscriptions (keyed by the client's `subscriptionId`), its auth context, and its limits
 * (unsent-buffer cap, message rate, missed pongs). Messages are handled one after another, so a `leave` never
 * overtakes the `join` before it.
 */
export class ClientConnection implements FrameSink {
  readonly id = randomUUID();
  private readonly subscriptions = new Map<string, { request: SubscriptionRequest; remove: () => void }>();
  private queue: Promise<void> = Promise.resolve();
  private tokens: number;
  private lastRefill = Date.now();
  private missedPongs = 0;
  private closed = false;
  /**
   * The size of a frame larger than `maxBufferedBytes` that this socket took while nothing waited for it (the sync
   * of a large group, a large item): it may drain on top of the cap. 0 once the unsent data is back under the cap.
   */
  private oversize = 0;
  /**
   * True when no extension was negotiated (the server offers none): every frame this socket sends is a plain
   * frame, so a shared pre-encoded frame can be written to the TCP socket directly, between whole frames of ws's
   * own (pings, close). With an extension, frames go through `ws.send`.
   */
  private readonly direct: boolean;

  constructor(
    private readonly socket: WebSocket,
    readonly context: unknown,
    private readonly host: ConnectionHost,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {
    this.tokens = limits.maxMessagesPerSecond;
    this.direct = socket.extensions === '';
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('pong', () => (this.missedPongs = 0));
    socket.on('close', () => this.onClose());
    // ws reports oversize frames (it closes with 1009 itself) and protocol errors here; without a listener the
    // process would crash.
    socket.on('error', (error) => this.logger.debug({ err: error, connection: this.id }, 'client socket error'));
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  sendFrame(frame: OutgoingFrame): void {
    if (this.closed || this.socket.readyState !== WebSocket.OPEN) return;
    const tcp = this.direct ? rawSocket(this.socket) : undefined;
    const buffered = tcp !== undefined ? tcp.writableLength : this.socket.bufferedAmount;
    const cap = this.limits.maxBufferedBytes;
    if (buffered <= cap) this.oversize = 0;
    // A client is slow when more than the cap waits for it beyond one large frame: a frame over the cap still goes to
    // a client that has nothing waiting (else every subscriber of a large group is dropped at its sync, rejoins and
    // is dropped again).
    if (buffered + frame.payload.length > cap + this.oversize) {
      if (buffered === 0) {
        this.oversize = frame.payload.length;
      } else {
        this.logger.warn({ connection: this.id, buffered }, 'disconnecting a slow client');
        this.drop(CLOSE.tryAgainLater, 'slow consumer: unsent data over the limit');
        return;
      }
    }
    if (tcp !== undefined) {
      corkUntilTurnEnds(tcp);
      tcp.write(frame.wireBytes);
    } else {
      const socket = rawSocket(this.socket);
      if (socket !== undefined) corkUntilTurnEnds(socket);
      this.socket.send(frame.payload, { binary: false });
    }
  }

  private sendJson(value: unknown): void {
    this.sendFrame(OutgoingFrame.json(value));
  }

  /** Called on every ping tick: drops a client that missed too many pongs, else pings it. */
  heartbeat(): void {
    if (this.closed) return;
    if (this.missedPongs >= this.limits.maxMissedPongs) {
      this.logger.info({ connection: this.id }, 'dropping a client that stopped answering pings');
      this.socket.terminate();
      return;
    }
    this.missedPongs++;
    try {
      this.socket.ping();
    } catch {
      this.socket.terminate();
    }
  }

  /** Closes with `code`, and destroys the socket if the client does not finish the close handshake in time. */
  drop(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (!this.takeToken()) {
      this.drop(CLOSE.policy, 'rate limit: too many messages');
      return;
    }
    const text = toBuffer(data).toString('utf8').trim();
    if (text === '') return;
    const message = parseClientMessage(text);
    if (!message) {
      this.logger.debug({ connection: this.id, binary: isBinary }, 'ignored a client frame that is not a join/leave');
      return;
    }
    const run = message.type === 'join' ? () => this.join(message.data) : async () => this.leave(message.data);
    this.queue = this.queue.then(run).catch((error) => this.logger.error({ err: error }, 'client message failed'));
  }

  private takeToken(): boolean {
    const now = Date.now();
    const rate = this.limits.maxMessagesPerSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.lastRefill) / 1000) * rate);
    this.lastRefill = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private async join(request: SubscriptionRequest): Promise<void> {
    const allowed = await this.host.authorizeJoin(this, request);
    if (this.closed) return;
    if (!allowed) {
      this.sendJson(wrap(request.streamName, request.groupId, request.id, { type: 'unauthorized' }));
      return;
    }
    // Joining again with the same subscriptionId replaces the old entry (and sends a new sync).
    const previous = this.subscriptions.get(request.subscriptionId);
    if (!previous && this.subscriptions.size >= this.limits.maxSubscriptions) {
      this.drop(CLOSE.policy, 'too many subscriptions on one socket');
      return;
    }
    previous?.remove();
    const remove = this.host.subscribe(this, request);
    this.subscriptions.set(request.subscriptionId, { request, remove });
    const timestamp = frameTimestamp();
    try {
      const data = await this.host.snapshot(request);
      const frame = { ...wrap(request.streamName, request.groupId, request.id, { type: 'sync', data }), timestamp };
      this.sendJson(frame);
    } catch (error) {
      // As docs/protocol.md §6: no sync frame when the read fails; the subscription stays.
      this.logger.error({ err: error, stream: request.streamName, group: request.groupId }, 'sync read failed');
    }
  }

  private leave(request: SubscriptionRequest): void {
    // The leave handlers run for any leave, known subscription or not (docs/protocol.md §6).
    this.host.notifyLeave(this, request);
    const entry = this.subscriptions.get(request.subscriptionId);
    entry?.remove();
    this.subscriptions.delete(request.subscriptionId);
  }

  private onClose(): void {
    this.closed = true;
    for (const { request, remove } of this.subscriptions.values()) {
      remove();
      this.host.notifyLeave(this, request);
    }
    this.subscriptions.clear();
    this.host.onClosed(this);
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
