/**
 * `trigger()`: builds the `invokefunction` frame for a call and tracks its answer. Sync and enqueue calls get an
 * invocation id, a client-side deadline (sent along as `timeout_ms`) and a pending entry; void calls get neither
 * and resolve at once. A payload that cannot be serialised rejects the call instead of throwing.
 */
import { randomUUID } from 'node:crypto';
import { InvocationError } from '../errors.js';
import type { InvokeFunction, WorkerToEngine } from '../protocol.js';
import type { TriggerRequest } from '../types.js';
import type { PendingInvocations } from './pending-invocations.js';

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
    const invocationId = randomUUID();
    const timeoutMs = Math.min(request.timeoutMs ?? this.defaultTimeoutMs, MAX_TIMEOUT_MS);
    const frame: InvokeFunction = {
      type: 'invokefunction',
      invocation_id: invocationId,
      function_id: request.function_id,
      data: request.payload,
      action,
      metadata: request.metadata,
      traceparent: request.traceparent,
      baggage: request.baggage,
      timeout_ms: timeoutMs,
      fired_by: request.firedBy,
    };
    if (request.signal?.aborted) return Promise.reject(cancelledError(request.function_id));
    let sent: boolean;
    try {
      sent = this.send(frame);
    } catch (err) {
      return Promise.reject(serializationError(request.function_id, err));
    }
    // Registered after the send: an answer can only arrive on a later turn of the event loop.
    const answer = this.pending.add<T>(invocationId, request.function_id, timeoutMs, sent);
    if (request.signal !== undefined) this.cancelOnAbort(request.signal, invocationId, request.function_id, answer);
    return answer;
  }

  /** An aborted signal fails the call at once and tells the engine, which relays the cancel to the executor. */
  private cancelOnAbort(signal: AbortSignal, invocationId: string, functionId: string, answer: Promise<unknown>): void {
    const onAbort = (): void => {
      if (!this.pending.has(invocationId)) return;
      this.pending.fail(invocationId, cancelledError(functionId));
      try {
        this.send({ type: 'cancelinvocation', invocation_id: invocationId, reason: 'cancelled' });
      } catch {
        // Nothing to serialise here that could fail; a closed socket means the engine already dropped the call.
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const detach = (): void => signal.removeEventListener('abort', onAbort);
    answer.then(detach, detach);
  }

  private fireAndForget<T>(request: TriggerRequest): Promise<T> {
    const frame: InvokeFunction = {
      type: 'invokefunction',
      function_id: request.function_id,
      data: request.payload,
      action: request.action,
      metadata: request.metadata,
      traceparent: request.traceparent,
      baggage: request.baggage,
      fired_by: request.firedBy,
    };
    try {
      this.send(frame);
    } catch (err) {
      return Promise.reject(serializationError(request.function_id, err));
    }
    return Promise.resolve(undefined as T);
  }
}

/** Node timers cannot wait longer (about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** A request the engine would refuse as a malformed frame: refuse it here, with a reason, instead of hanging. */
function invalidRequest(request: TriggerRequest): InvocationError | undefined {
  const functionId: unknown = request.function_id;
  let problem: string | undefined;
  if (typeof functionId !== 'string' || functionId.length === 0) problem = 'function_id must be a non-empty string';
  else if (request.timeoutMs !== undefined && !(request.timeoutMs > 0)) problem = 'timeoutMs must be a positive number';
  else if (request.action?.type === 'enqueue' && typeof request.action.queue !== 'string') {
    problem = 'TriggerAction.Enqueue needs a queue name';
  }
  if (problem === undefined) return undefined;
  return new InvocationError({
    code: 'INVALID_ARGUMENTS',
    message: `trigger(): ${problem}`,
    ...(typeof functionId === 'string' ? { function_id: functionId } : {}),
  });
}

function serializationError(functionId: string, err: unknown): InvocationError {
  return new InvocationError({
    code: 'serialization_error',
    message: `payload is not serialisable as JSON: ${(err as Error).message}`,
    function_id: functionId,
  });
}

function cancelledError(functionId: string): InvocationError {
  return new InvocationError({
    code: 'cancelled',
    message: 'the caller cancelled the invocation',
    function_id: functionId,
  });
}
