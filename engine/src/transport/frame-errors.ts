/**
 * What happens to a frame that does not decode: it is logged (the first few per connection at warn, the rest at
 * debug, so a flood cannot flood the log) and answered with an `error` frame. The connection stays open.
 */
import type { Logger } from 'pino';
import type { DecodeFailure } from '@svc/sdk';
import { EngineErrorCode } from '../core/errors.js';
import type { WsConnection } from './ws-connection.js';

const LOUD_PER_CONNECTION = 5;

export class FrameErrors {
  private count = 0;

  constructor(
    private readonly conn: WsConnection,
    private readonly logger: Logger,
  ) {}

  report(failure: DecodeFailure, workerId: string): void {
    if (failure.reason === 'empty') return;
    this.count++;
    const level = this.count <= LOUD_PER_CONNECTION ? 'warn' : 'debug';
    this.logger[level](
      { workerId, reason: failure.reason, frameType: failure.frameType },
      `frame ignored: ${failure.message}`,
    );
    this.conn.send({ type: 'error', error: { code: EngineErrorCode.InvalidFrame, message: failure.message } });
  }
}

const TELEMETRY_PREFIXES = ['OTLP', 'MTRC', 'LOGS'];

/**
 * Binary frames with a telemetry prefix (docs/protocol.md, "1.7 Telemetry frames") are accepted on `/` too, like on
 * `/otel`.
 */
export function isTelemetryFrame(data: Buffer): boolean {
  if (data.length < 4) return false;
  const prefix = data.toString('latin1', 0, 4);
  return TELEMETRY_PREFIXES.includes(prefix);
}
