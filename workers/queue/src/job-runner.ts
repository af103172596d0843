/**
 * Runs one job: the target function through the engine, like any caller would. A condition function (topic
 * subscribers) is asked first and a falsy verdict completes the job without running the handler. A throw (the
 * function failed, is not registered right now, or timed out) makes the backend retry the job. The handler gets
 * the job's identity as invocation metadata (`context.metadata`, or iii-sdk's second argument), so it can be
 * idempotent: `{ queue, messageReceiptId, attempt, maxAttempts }`.
 */
import type { SvcClient } from '@svc/sdk';
import type { Job } from './adapters/types.js';

export function createJobRunner(client: SvcClient, timeoutMs: number) {
  return async (job: Job): Promise<void> => {
    const metadata = { queue: job.queue, messageReceiptId: job.id, attempt: job.attempt, maxAttempts: job.maxAttempts };
    const options = {
      timeoutMs,
      ...(job.traceparent ? { traceparent: job.traceparent } : {}),
      ...(job.baggage ? { baggage: job.baggage } : {}),
    };
    if (job.condition_function_id) {
      const config = { condition_function_id: job.condition_function_id };
      await client.fireTrigger({ id: job.id, function_id: job.function_id, config, metadata }, job.data, options);
      return;
    }
    await client.trigger({ function_id: job.function_id, payload: job.data, metadata, ...options });
  };
}
