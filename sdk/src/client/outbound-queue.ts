/**
 * Frames sent while the connection was down (calls, replies, `unregistertrigger`), flushed in order after the
 * next open's registrations. A queued call whose caller already timed out is dropped at flush. The queue is
 * bounded: past `MAX_QUEUED` frames the oldest is dropped (and its caller, if any, fails at once), so a worker
 * cut off from its engine cannot grow without limit.
 */
import type { Logger } from 'pino';
import type { ClientTransport } from '../connection/transport.js';
import { InvocationError } from '../errors.js';
import type { WorkerToEngine } from '../protocol.js';
import { serializationError } from './outgoing-calls.js';
import type { PendingInvocations } from './pending-invocations.js';
import { ErrorCode } from '../error-codes.js';

export const MAX_QUEUED = 10000;

export class OutboundQueue {
  private frames: WorkerToEngine[] = [];
  private warned = false;

  constructor(
    private readonly pending: PendingInvocations,
    private readonly logger: Logger,
  ) {}

  get length(): number {
    return this.frames.length;
  }

  push(frame: WorkerToEngine): void {
    this.frames.push(frame);
    if (this.frames.length <= MAX_QUEUED) return;
    const dropped = this.frames.shift();
    if (!this.warned) {
      this.warned = true;
      this.logger.warn({ max: MAX_QUEUED }, 'engine unreachable and outbound queue full; dropping the oldest frames');
    }
    if (dropped?.type === 'invokefunction' && typeof dropped.invocation_id === 'string') {
      this.pending.fail(
        dropped.invocation_id,
        new InvocationError({
          code: ErrorCode.ChannelSendFailed,
          message: `engine unreachable and ${MAX_QUEUED} frames already queued; call dropped`,
          function_id: dropped.function_id,
        }),
      );
    }
  }

  /** Sends every queued frame; false when the connection closed midway (the rest stay queued). */
  flush(transport: ClientTransport): boolean {
    const frames = this.frames;
    this.frames = [];
    this.warned = false;
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i] as WorkerToEngine;
      if (isAbandonedCall(frame, this.pending)) continue;
      let sent: boolean;
      try {
        sent = transport.send(frame);
      } catch (err) {
        this.logger.error(
          { err, type: frame.type },
          'queued frame cannot be sent (not serialisable, or too large); dropped',
        );
        if (frame.type === 'invokefunction' && typeof frame.invocation_id === 'string') {
          this.pending.fail(frame.invocation_id, serializationError(frame.function_id, err));
        }
        continue;
      }
      if (!sent) {
        this.frames = frames.slice(i).concat(this.frames);
        return false;
      }
      if (frame.type === 'invokefunction' && typeof frame.invocation_id === 'string') {
        this.pending.markSent(frame.invocation_id);
      }
    }
    return true;
  }

  clear(): void {
    this.frames = [];
  }
}

function isAbandonedCall(frame: WorkerToEngine, pending: PendingInvocations): boolean {
  return (
    frame.type === 'invokefunction' && typeof frame.invocation_id === 'string' && !pending.has(frame.invocation_id)
  );
}
