/**
 * The executor side: runs a registered handler for each `invokefunction` the engine sends, replies with one
 * `invocationresult` (none when the invoke has no `invocation_id`), and fires a running handler's AbortSignal on
 * `cancelinvocation` or shutdown.
 */
import type { Logger } from 'pino';
import { FrameTooLargeError, handlerErrorBody } from '../errors.js';
import { InFlightMap, InFlightSet } from '../in-flight.js';
import type { CancelInvocation, ErrorBody, InvocationResult, InvokeFunction, WorkerToEngine } from '../protocol.js';
import { InvocationContext, type ContextHost } from './handler-context.js';
import type { Registrations } from './registrations.js';
import { ErrorCode } from '../error-codes.js';
import { ResultFrame } from '../wire-frames.js';

export interface RunnerHost extends ContextHost {
  readonly logger: Logger;
  /** Counts lost connections: a result computed for an earlier connection has nobody waiting for it. */
  readonly connectionEpoch: number;
  /** Sends now, or queues until the connection is back. Throws when the frame cannot be serialised. */
  sendQueued(frame: WorkerToEngine): void;
}

const NOT_FOUND: ErrorBody = { code: ErrorCode.FunctionNotFound, message: 'Function not found' };
const NOT_INVOKABLE: ErrorBody = {
  code: ErrorCode.FunctionNotInvokable,
  message: 'Function is HTTP-invoked and cannot be invoked locally',
};

export class InvocationRunner {
  /** Running invocations by id; those without an id (nobody awaits them) are tracked only for shutdown. */
  private readonly running = new InFlightMap<string, InvocationContext>();
  private readonly anonymous = new InFlightSet<InvocationContext>();

  constructor(
    private readonly host: RunnerHost,
    private readonly registrations: Registrations,
  ) {}

  get runningCount(): number {
    return this.running.size + this.anonymous.size;
  }

  handleInvoke(msg: InvokeFunction): void {
    const id = msg.invocation_id ?? undefined;
    const fn = this.registrations.functions.get(msg.function_id);
    if (fn === undefined || fn.handler === undefined) {
      const error = fn === undefined ? NOT_FOUND : NOT_INVOKABLE;
      if (id !== undefined)
        this.reply({ type: 'invocationresult', invocation_id: id, function_id: msg.function_id, error });
      else this.host.logger.warn({ function_id: msg.function_id }, `void invocation not run: ${error.message}`);
      return;
    }
    const ctx = new InvocationContext(this.host, msg.function_id, id, msg.metadata, msg.traceparent, msg.baggage);
    ctx.epoch = this.host.connectionEpoch;
    if (id !== undefined) this.running.set(id, ctx);
    else this.anonymous.add(ctx);
    let out: unknown;
    try {
      out = fn.handler(msg.data, ctx);
    } catch (err) {
      this.finish(ctx, undefined, err);
      return;
    }
    if (isThenable(out)) {
      // Promise.resolve returns a native promise as is, and guards against a thenable whose `then` throws.
      Promise.resolve(out).then(
        (value) => this.finish(ctx, value, undefined),
        (err: unknown) => this.finish(ctx, undefined, err ?? new Error('handler rejected without a reason')),
      );
    } else {
      this.finish(ctx, out, undefined);
    }
  }

  cancel(msg: CancelInvocation): void {
    this.running.get(msg.invocation_id)?.abort(msg.reason);
  }

  /** Aborts every running handler (shutdown). Their results, if any, are still sent while the socket is open. */
  abortAll(reason: string): void {
    for (const ctx of this.running.values()) ctx.abort(reason);
    for (const ctx of this.anonymous) ctx.abort(reason);
  }

  private finish(ctx: InvocationContext, value: unknown, error: unknown): void {
    const id = ctx.invocationId;
    if (id === undefined) {
      this.anonymous.delete(ctx);
      if (error !== undefined)
        this.host.logger.error({ err: error, function_id: ctx.functionId }, 'void invocation failed');
      return;
    }
    this.running.delete(id);
    if (ctx.epoch !== this.host.connectionEpoch) {
      // Its connection is gone and the engine stopped it there; the new session does not know this id.
      this.host.logger.debug({ function_id: ctx.functionId, invocation_id: id }, 'result dropped: connection lost');
      return;
    }
    if (error !== undefined) {
      this.reply({
        type: 'invocationresult',
        invocation_id: id,
        function_id: ctx.functionId,
        error: handlerErrorBody(error),
      });
      return;
    }
    const frame = new ResultFrame(id, ctx.functionId);
    if (value !== undefined) frame.result = value;
    this.reply(frame);
  }

  private reply(frame: InvocationResult): void {
    try {
      this.host.sendQueued(frame);
    } catch (err) {
      // The result cannot go (a BigInt, a cycle, or larger than the engine takes): tell the caller instead of
      // leaving it waiting. A frame over the engine's limit would have cost this worker its connection.
      const tooLarge = err instanceof FrameTooLargeError;
      this.host.logger.error(
        { err, function_id: frame.function_id },
        tooLarge ? 'invocation result is too large for the engine' : 'invocation result is not serialisable',
      );
      this.host.sendQueued({
        type: 'invocationresult',
        invocation_id: frame.invocation_id,
        function_id: frame.function_id,
        error: tooLarge
          ? {
              code: ErrorCode.ResultTooLarge,
              message: `the result of ${frame.function_id} is ${err.message}. Return less, or a reference (a state key, a data channel)`,
            }
          : {
              code: ErrorCode.SerializationError,
              message: `result is not serialisable as JSON: ${(err as Error).message}`,
            },
      });
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
