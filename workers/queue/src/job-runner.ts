/**
 * Runs one job: the target function through the engine, like any caller would. A condition function (topic
 * subscribers) is asked first and a falsy verdict completes the job without running the handler. A throw (the
 * function failed, is not registered right now, or timed out) makes the backend retry the job. The handler gets
 * the job's identity as invocation metadata (`context.metadata`, or iii-sdk's second argument), so it can be
 * idempotent: `{ queue, messageReceiptId, attempt, maxAttempts }`.
 */
import type { SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import type { Job } from './adapters/types.js';

export function createJobRunner(client: SvcClient, timeoutMs: number, logger: Logger) {
  const run = runOnce(client, timeoutMs);
  return (job: Job): Promise<void> =>
    run(job).then(undefined, (err: unknown) => {
      const where = { queue: job.queue, id: job.id, function_id: job.function_id, attempt: job.attempt, err };
      if (job.attempt >= job.maxAttempts) logger.warn(where, 'job failed its last attempt; moved to dead letters');
      else logger.debug(where, 'job attempt failed; will retry');
      throw err;
    });
}

/** One attempt: a promise that settles with the call (its value is not used). */
function runOnce(client: SvcClient, timeoutMs: number) {
  return (job: Job): Promise<unknown> => {
    const metadata = { queue: job.queue, messageReceiptId: job.id, attempt: job.attempt, maxAttempts: job.maxAttempts };
    if (job.condition_function_id) {
      const options: { timeoutMs: number; traceparent?: string; baggage?: string } = { timeoutMs };
      if (job.traceparent) options.traceparent = job.traceparent;
      if (job.baggage) options.baggage = job.baggage;
      const config = { condition_function_id: job.condition_function_id };
      return client.fireTrigger({ id: job.id, function_id: job.function_id, config, metadata }, job.data, options);
    }
    const request: Parameters<SvcClient['trigger']>[0] = {
      function_id: job.function_id,
      payload: job.data,
      metadata,
      timeoutMs,
    };
    if (job.traceparent) request.traceparent = job.traceparent;
    if (job.baggage) request.baggage = job.baggage;
    return client.trigger(request);
  };
}
