/**
 * The trace of the state write being committed, so the state triggers it fires join the writer's trace: a write
 * handler runs inside `withWriteTrace(ctx.traceparent, …)` and the change feed (synchronous, in commit order)
 * reads it back. Used only when the worker records telemetry; otherwise it is a plain call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

let storage: AsyncLocalStorage<string | undefined> | undefined;

export function enableWriteTrace(): void {
  storage ??= new AsyncLocalStorage();
}

export function withWriteTrace<T>(traceparent: string | undefined, work: () => T): T {
  return storage === undefined || traceparent === undefined ? work() : storage.run(traceparent, work);
}

export function currentWriteTrace(): string | undefined {
  return storage?.getStore();
}
