/**
 * What the SDK client needs from a connection to the engine. Two implementations: a WebSocket transport
 * (the normal case, with reconnection) and an in-process transport the engine hands to its own modules, so a
 * module reaches the core exactly as a worker would, without serialisation.
 *
 * Ownership: a transport owns its socket (or in-process pipe) and its reconnect timer; `close()` stops
 * reconnecting, closes the socket and is idempotent.
 */
import type { EngineToWorker, WorkerToEngine } from '../protocol.js';

export interface TransportEvents {
  /** The connection is open; the client replays its registrations now (before any queued frames). */
  onOpen(): void;
  onMessage(message: EngineToWorker): void;
  /** The connection closed; `willReconnect` is false after `close()` or when retries are exhausted. */
  onClose(info: { code: number; reason: string; willReconnect: boolean }): void;
}

export interface ClientTransport {
  /** Starts connecting; events flow to `events` from now on. */
  start(events: TransportEvents): void;
  /** Sends one frame. Returns false (and sends nothing) when the connection is not open. */
  send(message: WorkerToEngine): boolean;
  /** Sends one binary telemetry frame (docs/protocol.md, "1.7 Telemetry frames"). Optional; false when not open. */
  sendTelemetry?(frame: Uint8Array): boolean;
  readonly isOpen: boolean;
  /** The engine's WebSocket address, when there is one (data channels are opened beside it). */
  readonly url?: string;
  close(): Promise<void>;
}
