/**
 * The `enqueue` action (docs/protocol.md, "3.5 Enqueue") as a built-in engine module: a call made with
 * `TriggerAction.Enqueue({queue})` is handed to whichever worker provides `engine::queue::enqueue` (svc-queue), and the
 * caller gets the engine-owned `messageReceiptId` once the provider accepted the job. Without a provider, or when it
 * refuses, the caller gets `enqueue_error`. `startEngine` always loads it.
 */
import type { ActionHandler, EngineInternals, EngineModule, ModuleContext } from '../module.js';

export const ENQUEUE_MODULE = 'modules::enqueue::EnqueueActionModule';
/** The function `TriggerAction.Enqueue` goes through. */
export const ENQUEUE_FUNCTION_ID = 'engine::queue::enqueue';
/** `TriggerAction.Enqueue` failed: no `engine::queue::enqueue` provider, or the provider refused. */
export const ENQUEUE_ERROR = 'enqueue_error';

export const NO_QUEUE_PROVIDER_MESSAGE =
  'No queue provider is installed. `TriggerAction.Enqueue` routes through the `engine::queue::enqueue` provider, ' +
  'which the svc-queue worker registers. Add the queue module (svc-queue) to the config. ' +
  '(underlying: Function engine::queue::enqueue not found)';

/** The action handler: one call to the queue provider per enqueued call. */
export function enqueueHandler(engine: EngineInternals): ActionHandler {
  return (call, settle) => {
    if (!engine.hasFunction(ENQUEUE_FUNCTION_ID)) {
      settle({ error: { code: ENQUEUE_ERROR, message: NO_QUEUE_PROVIDER_MESSAGE } });
      return;
    }
    const action = call.action as { type: 'enqueue'; queue: string };
    const messageReceiptId = crypto.randomUUID();
    const payload = {
      queue: action.queue,
      function_id: call.functionId,
      data: call.data,
      messageReceiptId,
      traceparent: call.traceparent ?? null,
      baggage: call.baggage ?? null,
    };
    // the caller's deadline (its `timeout_ms`, else the engine's) bounds the hand-over; the caller's trace context
    // goes with it, so the hand-over is a span of the caller's trace
    const options = { timeoutMs: call.timeoutMs, traceparent: call.traceparent, baggage: call.baggage };
    engine.call(ENQUEUE_FUNCTION_ID, payload, options, (outcome) => {
      if (outcome.error) settle({ error: { code: ENQUEUE_ERROR, message: outcome.error.message } });
      else settle({ result: { messageReceiptId } });
    });
  };
}

export function createEnqueueModule(): EngineModule {
  let uninstall: (() => void) | undefined;
  return {
    name: ENQUEUE_MODULE,
    start(ctx: ModuleContext): Promise<void> {
      uninstall = ctx.hooks.setActionHandler('enqueue', enqueueHandler(ctx.engine));
      return Promise.resolve();
    },
    close(): Promise<void> {
      uninstall?.();
      uninstall = undefined;
      return Promise.resolve();
    },
  };
}
