/**
 * The `/otel` hand-off: every binary telemetry frame (from iii-sdk's `/otel` socket, from our SDK's worker
 * socket, and the engine's own spans and metrics) goes to the svc-otel worker's `otel::ingest` as one void call.
 * Frames with an unknown prefix or over the size bound are logged and dropped here; svc-otel logs and drops those
 * whose body does not decode. Nothing here can affect the socket the frame came on. Until svc-otel has registered
 * `otel::ingest` (at start-up, or while it restarts) batches wait here, up to a bound (the oldest are dropped and
 * counted past it), so the lines capability workers log while starting are not lost.
 */
import type { Logger } from 'pino';
import { sendEncoded } from '../../transport/shared-payload.js';
import { TELEMETRY_PREFIXES, TriggerAction, type IngestPrefix, type SvcClient, type TelemetryPrefix } from '@svc/sdk';

/** The svc-otel function that takes frames. */
export const INGEST_FUNCTION = 'otel::ingest';
/** Largest telemetry frame accepted: 4 MiB (iii-sdk batches are far smaller). */
export const MAX_TELEMETRY_FRAME_BYTES = 4 * 1024 * 1024;
const LOUD_DROPS = 5;
/** What waits for svc-otel at most: this many bytes of batches. */
export const MAX_WAITING_BYTES = 16 * 1024 * 1024;

export class TelemetryHandoff {
  private dropped = 0;
  forwarded = 0;
  /** Batches waiting for svc-otel: a body, or (`json`) the payload's JSON text as its maker wrote it. */
  private waiting: { prefix: IngestPrefix; body: string; json?: boolean }[] = [];
  private waitingBytes = 0;

  /** `ready`: whether svc-otel's `otel::ingest` is registered now. */
  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
    private readonly ready: () => boolean,
    private readonly maxBytes = MAX_TELEMETRY_FRAME_BYTES,
    private readonly maxWaitingBytes = MAX_WAITING_BYTES,
  ) {}

  /** Batches waiting for svc-otel. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** The registered functions changed: sends what waits once svc-otel is there. */
  functionsChanged(): void {
    if (this.waiting.length === 0 || !this.ready()) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const { prefix, body, json } of waiting) {
      if (json === true) this.sendPayload(body);
      else this.send(prefix, body);
    }
  }

  get droppedCount(): number {
    return this.dropped;
  }

  /** A frame off a socket: 4-byte prefix + OTLP/JSON. */
  accept(frame: Buffer): void {
    if (frame.length < 4) return this.drop('shorter than its 4-byte prefix', frame.length);
    const prefix = frame.toString('latin1', 0, 4);
    if (!isPrefix(prefix)) return this.drop(`unknown prefix ${JSON.stringify(prefix)}`, frame.length);
    if (frame.length > this.maxBytes) return this.drop(`over ${this.maxBytes} bytes`, frame.length);
    this.send(prefix, frame.toString('utf8', 4));
  }

  /** The engine's own batches (already serialised by the OpenTelemetry serializers). */
  local(prefix: TelemetryPrefix, body: Uint8Array): boolean {
    this.send(prefix, Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    return true;
  }

  /**
   * The engine's own batch as the JSON text of its whole payload (`{"prefix":…,"body":…}`, its span batches): the
   * connection to svc-otel writes that text as it is (shared-payload.ts) instead of serialising the body again.
   */
  localPayload(prefix: IngestPrefix, json: string): boolean {
    if (!this.ready()) {
      this.wait(prefix, json, true);
      return true;
    }
    this.sendPayload(json);
    return true;
  }

  private sendPayload(json: string): void {
    if (this.waiting.length > 0) this.functionsChanged();
    const payload = encodedPayload(json);
    sendEncoded(payload, json, () => this.trigger(payload));
  }

  private send(prefix: IngestPrefix, body: string): void {
    if (!this.ready()) return this.wait(prefix, body);
    if (this.waiting.length > 0) this.functionsChanged();
    this.trigger({ prefix, body });
  }

  private trigger(payload: { prefix: IngestPrefix; body: string }): void {
    this.forwarded++;
    this.client
      .trigger({ function_id: INGEST_FUNCTION, payload, action: TriggerAction.Void() })
      .catch((err: unknown) => this.logger.debug({ err }, 'telemetry hand-off failed'));
  }

  private wait(prefix: IngestPrefix, body: string, json = false): void {
    this.waiting.push(json ? { prefix, body, json } : { prefix, body });
    this.waitingBytes += body.length;
    while (this.waitingBytes > this.maxWaitingBytes && this.waiting.length > 0) {
      const oldest = this.waiting.shift()!;
      this.waitingBytes -= oldest.body.length;
      this.drop(`svc-otel not connected and over ${this.maxWaitingBytes} bytes waiting`, oldest.body.length);
    }
  }

  private drop(why: string, bytes: number): void {
    this.dropped++;
    const level = this.dropped <= LOUD_DROPS ? 'warn' : 'debug';
    this.logger[level]({ bytes, dropped: this.dropped }, `telemetry frame dropped: ${why}`);
  }
}

/**
 * The payload object of a JSON text `{"prefix":…,"body":…}`: what a connection that writes the text as it is never
 * reads; anything else that reads it (a serialiser, a local handler) gets its fields, parsed once, when it asks.
 * The fields are own enumerable accessors, as a plain object's would be, and every payload shares the same two
 * getter functions and so one hidden class. Getters made per payload gave each a hidden class of its own (then a
 * property dictionary), and each batch's text, held by its closures, outlived young-generation collections and was
 * promoted: the tracing benchmark's engine spent 1.5 to 2 times as long in scavenges, with mark-compacts every few
 * seconds.
 */
class EncodedPayload {
  readonly #json: string;
  #parsed: { prefix: IngestPrefix; body: string } | undefined;

  constructor(json: string) {
    this.#json = json;
    Object.defineProperties(this, ENCODED_FIELDS);
  }

  static field(payload: EncodedPayload, key: 'prefix' | 'body'): string {
    payload.#parsed ??= JSON.parse(payload.#json) as { prefix: IngestPrefix; body: string };
    return payload.#parsed[key];
  }
}

const ENCODED_FIELDS: PropertyDescriptorMap = {
  prefix: {
    enumerable: true,
    get(this: EncodedPayload) {
      return EncodedPayload.field(this, 'prefix');
    },
  },
  body: {
    enumerable: true,
    get(this: EncodedPayload) {
      return EncodedPayload.field(this, 'body');
    },
  },
};

function encodedPayload(json: string): { prefix: IngestPrefix; body: string } {
  return new EncodedPayload(json) as unknown as { prefix: IngestPrefix; body: string };
}

function isPrefix(prefix: string): prefix is TelemetryPrefix {
  return (TELEMETRY_PREFIXES as readonly string[]).includes(prefix);
}
