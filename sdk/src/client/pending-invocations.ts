/**
 * Calls this client made that await an `invocationresult`, keyed by invocation id. Each has a client-side
 * deadline (also sent to the engine as `timeout_ms`); a late result for a timed-out id is ignored. Deadlines
 * share one timer per timeout value (deadlines.ts), so a call costs one promise and one small entry.
 *
 * A call is either `sent` (on a connection) or still queued. When a connection drops, the engine stops every
 * invocation that connection started, so sent calls can never be answered: they fail at once
 * (`failSent`) instead of waiting for their deadline. Queued calls go out after the reconnect.
 */
import { InvocationError, toInvocationError } from '../errors.js';
import { InFlightMap } from '../in-flight.js';
import type { InvocationResult } from '../protocol.js';
import { Deadlines, type DeadlineEntry } from './deadlines.js';
import { ClientErrorCode, ErrorCode } from '../error-codes.js';

interface Pending extends DeadlineEntry {
  functionId: string;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
  sent: boolean;
  /** Called once when the call leaves the table, however it ended (the caller's cleanup, e.g. an abort listener). */
  onEnd: (() => void) | undefined;
}

export class PendingInvocations {
  private readonly pending = new InFlightMap<string, Pending>();
  private readonly deadlines = new Deadlines((id) => this.onTimeout(id));

  private onTimeout(id: string): void {
    const p = this.pending.get(id);
    if (p === undefined) return;
    this.end(id, p);
    p.reject(
      new InvocationError({
        code: ClientErrorCode.Timeout,
        message: `invocation timed out after ${p.timeoutMs}ms`,
        function_id: p.functionId,
      }),
    );
  }

  private end(id: string, p: Pending): void {
    this.pending.delete(id);
    this.deadlines.remove(p);
    p.onEnd?.();
  }

  get size(): number {
    return this.pending.size;
  }

  /** The function a pending call went to; undefined when `id` is not pending. */
  functionIdOf(id: string): string | undefined {
    return this.pending.get(id)?.functionId;
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  add<T>(id: string, functionId: string, timeoutMs: number, sent: boolean, onEnd?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        id,
        functionId,
        timeoutMs,
        resolve: resolve,
        reject,
        sent,
        onEnd,
        deadline: 0,
        prev: undefined,
        next: undefined,
        list: undefined,
      };
      this.pending.set(id, p);
      this.deadlines.add(p, timeoutMs);
    });
  }

  /** A queued call went out on the (new) connection. */
  markSent(id: string): void {
    const p = this.pending.get(id);
    if (p !== undefined) p.sent = true;
  }

  /** The connection dropped: fails every call that was sent on it (see the file comment). */
  failSent(makeError: (functionId: string) => Error): void {
    for (const [id, p] of this.pending) {
      if (!p.sent) continue;
      this.end(id, p);
      p.reject(makeError(p.functionId));
    }
  }

  /** Settles the call `result` answers; unknown ids (timed out, or not ours) are ignored. */
  settle(result: InvocationResult): void {
    const p = this.pending.get(result.invocation_id);
    if (p === undefined) return;
    if (result.error && result.error.code === ErrorCode.InvocationTimeout) {
      // The engine enforced the deadline this client sent as `timeout_ms`: the same event as our own timer, so
      // the caller sees the same `TIMEOUT` whichever side noticed first.
      this.deadlines.remove(p);
      this.onTimeout(result.invocation_id);
      return;
    }
    this.end(result.invocation_id, p);
    if (result.error) p.reject(toInvocationError(result.error, p.functionId));
    else p.resolve(result.result);
  }

  /** Fails one call locally (e.g. its frame could not be sent). */
  fail(id: string, error: Error): void {
    const p = this.pending.get(id);
    if (p === undefined) return;
    this.end(id, p);
    p.reject(error);
  }

  /** Fails every pending call with the error `makeError(functionId)` builds for it. */
  rejectAll(makeError: (functionId: string) => Error): void {
    for (const [id, p] of this.pending) {
      this.end(id, p);
      p.reject(makeError(p.functionId));
    }
  }
}
