/**
 * Runs one job: the target function through the engine, like any caller would. A condition function (topic
 * subscribers) is asked first and a `false`-ish verdict completes the job without running the handler. A throw
 * (the function failed, is not registered right now, or timed out) makes the backend retry the job.
 */
import type { SvcClient } from '@svc/sdk';
import type { Job } from './adapters/types.js';

export function createJobRunner(client: SvcClient, timeoutMs: number) {
  return async (job: Job): Promise<void> => {
    const request = {
      timeoutMs,
      ...(job.traceparent ? { traceparent: job.traceparent } : {}),
      ...(job.baggage ? { baggage: job.baggage } : {}),
    };
    if (job.condition_function_id) {
      const binding = {
        id: job.id,
        function_id: job.function_id,
        config: { condition_function_id: job.condition_function_id },
      };
      await client.fireTrigger(binding, job.data, request);
      return;
    }
    await client.trigger({ function_id: job.function_id, payload: job.data, ...request });
  };
}
