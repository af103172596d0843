/**
 * `trigger()`: builds the `invokefunction` frame for a call and tracks its answer. Sync and enqueue calls get an
 * invocation id, a client-side deadline (sent along as `timeout_ms`) and a pending entry; void calls get neither
 * and resolve at once. A payload that cannot be serialised rejects the call instead of throwing.
 */
import { FrameTooLargeError, InvocationError } from '../errors.js';
import { newUuid } from '../random-ids.js';
import { isUuid, type WorkerToEngine } from '../protocol.js';
import { InvokeFrame } from '../wire-frames.js';
import type { TriggerRequest } from '../types.js';
import type { PendingInvocations } from './pending-invocations.js';
import { ClientErrorCode, ErrorCode } from '../error-codes.js';
import { MAX_TIMER_MS } from '../constants.js';

export class OutgoingCalls {
  constructor(
    private readonly pending: PendingInvocations,
    /** Sends now (true) or queues (false); throws when the frame cannot be serialised. */
    private readonly send: (frame: WorkerToEngine) => boolean,
    private readonly defaultTimeoutMs: number,
  ) {}

  call<T>(request: TriggerRequest): Promise<T> {
    const invalid = invalidRequest(request);
    if (invalid !== undefined) return Promise.reject(invalid);
    const action = request.action ?? undefined;
    if (action !== undefined && action.type === 'void') return this.fireAndForget(request);
    const wanted = request.invocationId;
    const invocationId = wanted !== undefined && !this.pending.has(wanted) ? wanted : newUuid();
    const timeoutMs = Math.min(request.timeoutMs ?? this.defaultTimeoutMs, MAX_TIMER_MS);
    const frame = new InvokeFrame(
      invocationId,
      request.function_id,
      request.payload,
      action,
      request.metadata,
      request.traceparent,
      request.baggage,
      timeoutMs,
      request.firedBy,
    );
    const signal = request.signal;
    if (signal?.aborted) return Promise.reject(cancelledError(request.function_id));
    let sent: boolean;
    try {
      sent = this.send(frame);
    } catch (err) {
      return Promise.reject(serializationError(request.function_id, err));
    }
    // Registered after the send: an answer can only arrive on a later turn of the event loop.
    const detach = signal === undefined ? undefined : this.cancelOnAbort(signal, invocationId);
    return this.pending.add<T>(invocationId, request.function_id, timeoutMs, sent, detach);
  }

  /** Fails a pending call as cancelled and tells the engine, which relays the cancel to the executor. */
  cancel(invocationId: string): boolean {
    const functionId = this.pending.functionIdOf(invocationId);
    if (functionId === undefined) return false;
    this.pending.fail(invocationId, cancelledError(functionId));
    try {
      this.send({ type: 'cancelinvocation', invocation_id: invocationId, reason: 'cancelled' });
    } catch {
      // Nothing to serialise here that could fail; a closed socket means the engine already dropped the call.
    }
    return true;
  }

  /**
   * An aborted signal cancels the call (see `cancel`). Returns what removes the listener (the pending table
   * calls it when the call ends, whichever way).
   */
  private cancelOnAbort(signal: AbortSignal, invocationId: string): () => void {
    const onAbort = (): void => {
      this.cancel(invocationId);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  private fireAndForget<T>(request: TriggerRequest): Promise<T> {
    const frame = new InvokeFrame(
      undefined,
      request.function_id,
      request.payload,
      request.action,
      request.metadata,
      request.traceparent,
      request.baggage,
      undefined,
      request.firedBy,
    );
    try {
      this.send(frame);
    } catch (err) {
      return Promise.reject(serializationError(request.function_id, err));
    }
    return Promise.resolve(undefined as T);
  }
}

/** A request the engine would refuse as a malformed frame: refuse it here, with a reason, instead of hanging. */
function invalidRequest(request: TriggerRequest): InvocationError | undefined {
  const functionId: unknown = request.function_id;
  let problem: string | undefined;
  if (typeof functionId !== 'string' || functionId.length === 0) problem = 'function_id must be a non-empty string';
  else if (request.timeoutMs !== undefined && !(request.timeoutMs > 0)) problem = 'timeoutMs must be a positive number';
  else if (request.action?.type === 'enqueue' && typeof request.action.queue !== 'string') {
    problem = 'TriggerAction.Enqueue needs a queue name';
  } else if (request.invocationId !== undefined && !isUuid(request.invocationId)) {
    problem = `invocationId must be a UUID (the engine refuses any other id), got ${JSON.stringify(request.invocationId)}`;
  }
  if (problem === undefined) return undefined;
  return new InvocationError({
    code: ErrorCode.InvalidArguments,
    message: `trigger(): ${problem}`,
    ...(typeof functionId === 'string' ? { function_id: functionId } : {}),
  });
}

/** The error of a call whose frame could not go: too large for the engine, or not serialisable. */
export function serializationError(functionId: string, err: unknown): InvocationError {
  if (err instanceof FrameTooLargeError) {
    return new InvocationError({
      code: ClientErrorCode.PayloadTooLarge,
      message: `the call's payload is ${err.message}; nothing was sent. Pass a reference instead (a state key, a data channel)`,
      function_id: functionId,
    });
  }
  return new InvocationError({
    code: ErrorCode.SerializationError,
    message: `payload is not serialisable as JSON: ${(err as Error).message}`,
    function_id: functionId,
  });
}

function cancelledError(functionId: string): InvocationError {
  return new InvocationError({
    code: ErrorCode.Cancelled,
    message: 'the caller cancelled the invocation',
    function_id: functionId,
  });
}
