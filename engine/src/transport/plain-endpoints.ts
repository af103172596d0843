/**
 * What a listener answers besides worker sockets and module socket routes: plain-HTTP GET routes (`/health`,
 * `/ready`, `/metrics`) and the sink of workers' binary telemetry frames (`/otel`, or `/`). One instance is shared
 * by every listener of the engine, so a module sets a route or the sink once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers one plain HTTP request (no WebSocket upgrade) on an engine port. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse) => void;
/** Takes one binary telemetry frame (`OTLP`/`MTRC`/`LOGS` prefix + OTLP/JSON), from `/otel` or from `/`. */
export type TelemetrySink = (frame: Buffer) => void;

export class PlainEndpoints {
  /** Plain-HTTP routes by path. */
  readonly http = new Map<string, HttpRoute>();
  /** Where telemetry frames go; undefined drains them. */
  telemetrySink: TelemetrySink | undefined;
}
