/**
 * The in-process transport an engine module's SDK client uses: message objects pass between the client and the
 * core without JSON, each delivery on a microtask (so neither side re-enters the other). The client's frames are
 * still validated with the wire codec, so the core sees exactly what a socket would have given it.
 */
import {
  decodeValue,
  JsonText,
  type ClientTransport,
  type EngineToWorker,
  type TransportEvents,
  type WorkerToEngine,
} from '@svc/sdk/core';
import type { Logger } from 'pino';
import type { Connection } from '../core/connection.js';
import type { EngineCore } from '../core/engine-core.js';
import type { Worker } from '../core/worker.js';

/** Our SDK handles every optional frame, so in-process clients get them all. */
const IN_PROCESS_FEATURES: ReadonlySet<string> = new Set(['cancel']);

export class InProcessTransport implements ClientTransport {
  private events: TransportEvents | undefined;
  private worker: Worker | undefined;
  private open = false;
  private closed = false;

  constructor(
    private readonly core: EngineCore,
    private readonly workerName: string,
    private readonly logger: Logger,
    private readonly onClosed?: (transport: InProcessTransport) => void,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  start(events: TransportEvents): void {
    if (this.closed || this.events !== undefined) return;
    this.events = events;
    queueMicrotask(() => {
      if (this.closed) return;
      this.open = true;
      this.worker = this.core.attach(new InProcessConnection(this), this.workerName);
      this.safely(() => events.onOpen());
    });
  }

  send(message: WorkerToEngine): boolean {
    if (!this.open) return false;
    queueMicrotask(() => this.receive(message));
    return true;
  }

  close(): Promise<void> {
    this.shut(1000, 'closed');
    return Promise.resolve();
  }

  /** @internal the engine side delivering a frame to the client */
  deliver(message: EngineToWorker): boolean {
    if (!this.open) return false;
    queueMicrotask(() => {
      if (this.open) this.safely(() => this.events?.onMessage(message));
    });
    return true;
  }

  /** @internal closes both sides; the client is told it will not reconnect. */
  shut(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    const wasOpen = this.open;
    this.open = false;
    if (this.worker !== undefined) this.core.detach(this.worker);
    if (wasOpen) this.safely(() => this.events?.onClose({ code, reason, willReconnect: false }));
    this.onClosed?.(this);
  }

  private receive(message: WorkerToEngine): void {
    if (!this.open || this.worker === undefined) return;
    // Objects pass here as they are, so a result or a payload given as JSON text becomes the value it stands for.
    if (message.type === 'invocationresult' && message.result instanceof JsonText)
      message.result = message.result.value();
    else if (message.type === 'invokefunction' && message.data instanceof JsonText) message.data = message.data.value();
    const decoded = decodeValue(message);
    if (!decoded.ok) {
      this.logger.warn({ worker: this.workerName, reason: decoded.message }, 'in-process client sent an invalid frame');
      return;
    }
    try {
      this.core.receive(this.worker, decoded.message);
    } catch (err) {
      this.logger.error({ err, type: message.type }, 'failed to handle an in-process frame');
    }
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err, worker: this.workerName }, 'in-process client handler threw');
    }
  }
}

class InProcessConnection implements Connection {
  readonly kind = 'in-process' as const;
  readonly sharesObjects = true;
  readonly features = IN_PROCESS_FEATURES;

  constructor(private readonly transport: InProcessTransport) {}

  send(message: EngineToWorker): boolean {
    return this.transport.deliver(message);
  }

  close(code = 1000, reason = ''): void {
    this.transport.shut(code, reason);
  }
}
