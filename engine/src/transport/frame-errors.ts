/**
 * What happens to a frame that does not decode: it is logged (the first few per connection at warn, the rest at
 * debug, so a flood cannot flood the log) and answered with an `error` frame. The connection stays open. An answer
 * (`invocationresult`) whose invocation id can still be read fails that call at once (`brokenResult`).
 */
import type { Logger } from 'pino';
import { isUuid, type DecodeFailure, type InvocationResult } from '@svc/sdk';
import { EngineErrorCode, errorBody } from '../core/errors.js';
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

/** The start of an answer as every client writes it: its type, then its invocation id. */
const RESULT_START = /^\s*\{\s*"type"\s*:\s*"invocationresult"\s*,\s*"invocation_id"\s*:\s*"([^"\\]{36})"/;

/**
 * What an `invocationresult` that did not decode (its JSON broken, or a field of the wrong type) stands for when its
 * invocation id can be read from its start: that invocation's failure with `invalid_result`, so its caller learns
 * at once instead of waiting for the deadline (a handler that answered with malformed JSON text, say). Undefined
 * for any other frame.
 */
export function brokenResult(text: string, failure: DecodeFailure): InvocationResult | undefined {
  if (failure.reason !== 'invalid_json' && failure.frameType !== 'invocationresult') return undefined;
  const id = RESULT_START.exec(text)?.[1];
  if (id === undefined || !isUuid(id)) return undefined;
  const message = `the answer of the worker that ran the call could not be decoded: ${failure.message}`;
  return {
    type: 'invocationresult',
    invocation_id: id,
    function_id: '',
    error: errorBody(EngineErrorCode.InvalidResult, message),
  };
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
