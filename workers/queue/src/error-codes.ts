/**
 * svc-queue's error codes. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two
 * disagree.
 */
export const QueueErrorCode = Object.freeze({
  /** A queue function's input was refused; the message names the field. */
  InvalidArguments: 'invalid_arguments',
  /** A publish named no topic (or queue). */
  TopicNotSet: 'topic_not_set',
  /** No dead letter with that id in that queue (redrive, discard). */
  NotFound: 'not_found',
  /** A job's handler failed (the last error of a dead letter, when no other was recorded). */
  JobFailed: 'job_failed',
  /** The worker processing a job stopped during the attempt; the job is retried. */
  JobStalled: 'job_stalled',
  /** svc-queue is shutting down and accepts no more messages. */
  QueueClosed: 'queue_closed',
  /** The broker (RabbitMQ) did not confirm the message. */
  QueueUnavailable: 'queue_unavailable',
  /** The built-in file store failed; messages are not acknowledged. */
  QueueStoreFailed: 'queue_store_failed',
  /** The built-in in-memory store holds `max_store_bytes` of jobs; the message is not acknowledged. */
  QueueStoreFull: 'queue_store_full',
  /** The built-in file store is in use by another svc-queue process. */
  QueueStoreLocked: 'queue_store_locked',
  /** A new queue was refused: this process consumes `max_queues` queues already. */
  QueueLimit: 'queue_limit',
  /** The engine at the Bridge adapter's `bridge_url` did not accept svc-queue's connection at start-up. */
  QueueBridgeUnreachable: 'queue_bridge_unreachable',
} as const);
