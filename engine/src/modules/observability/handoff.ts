/**
 * The `/otel` hand-off: every binary telemetry frame (from iii-sdk's `/otel` socket, from our SDK's worker
 * socket, and the engine's own spans and metrics) goes to the svc-otel worker's `otel::ingest` as one void call.
 * Frames with an unknown prefix or over the size bound are logged and dropped here; svc-otel logs and drops those
 * whose body does not decode. Nothing here can affect the socket the frame came on.
 */
import type { Logger } from 'pino';
import { TELEMETRY_PREFIXES, TriggerAction, type SvcClient, type TelemetryPrefix } from '@svc/sdk';

/** The svc-otel function that takes frames. */
export const INGEST_FUNCTION = 'otel::ingest';
/** Largest telemetry frame accepted: 4 MiB (iii-sdk batches are far smaller). */
export const MAX_TELEMETRY_FRAME_BYTES = 4 * 1024 * 1024;
const LOUD_DROPS = 5;

export class TelemetryHandoff {
  private dropped = 0;
  forwarded = 0;

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
    private readonly maxBytes = MAX_TELEMETRY_FRAME_BYTES,
  ) {}

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

  /** The engine's own batch written as JSON text (its spans): no bytes to decode. */
  localText(prefix: TelemetryPrefix, body: string): boolean {
    this.send(prefix, body);
    return true;
  }

  private send(prefix: TelemetryPrefix, body: string): void {
    this.forwarded++;
    this.client
      .trigger({ function_id: INGEST_FUNCTION, payload: { prefix, body }, action: TriggerAction.Void() })
      .catch((err: unknown) => this.logger.debug({ err }, 'telemetry hand-off failed'));
  }

  private drop(why: string, bytes: number): void {
    this.dropped++;
    const level = this.dropped <= LOUD_DROPS ? 'warn' : 'debug';
    this.logger[level]({ bytes, dropped: this.dropped }, `telemetry frame dropped: ${why}`);
  }
}

function isPrefix(prefix: string): prefix is TelemetryPrefix {
  return (TELEMETRY_PREFIXES as readonly string[]).includes(prefix);
}
