/**
 * What a bridged job looks like on the remote engine's queue: the job targets the delivery function of its queue
 * (`queue::bridge::deliver::<queue>`, registered on the remote by every engine that bridges that queue), and its
 * data is this envelope, holding the call as the bridging engine will make it.
 */
import type { DeadLetter, Job, JobInput } from './types.js';

export const DELIVER_PREFIX = 'queue::bridge::deliver::';

export function deliverFunctionId(queue: string): string {
  return `${DELIVER_PREFIX}${queue}`;
}

export interface Envelope {
  function_id: string;
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
  enqueued_at: number;
}

export function toEnvelope(job: JobInput): Envelope {
  return {
    function_id: job.function_id,
    data: job.data ?? null,
    traceparent: job.traceparent ?? null,
    baggage: job.baggage ?? null,
    condition_function_id: job.condition_function_id ?? null,
    enqueued_at: Date.now(),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Reads an envelope back; undefined when the data is not one (a job someone else put on the queue). */
export function readEnvelope(data: unknown): Envelope | undefined {
  if (!isRecord(data) || typeof data.function_id !== 'string' || data.function_id === '') return undefined;
  return {
    function_id: data.function_id,
    data: data.data ?? null,
    traceparent: strOrNull(data.traceparent),
    baggage: strOrNull(data.baggage),
    condition_function_id: strOrNull(data.condition_function_id),
    enqueued_at: typeof data.enqueued_at === 'number' ? data.enqueued_at : Date.now(),
  };
}

/** The job a delivery stands for, from the envelope and the metadata the remote job runner sends along. */
export function jobOf(queue: string, envelope: Envelope, metadata: unknown): Job {
  const m = isRecord(metadata) ? metadata : {};
  const int = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);
  return {
    id: typeof m.messageReceiptId === 'string' ? m.messageReceiptId : '',
    queue,
    function_id: envelope.function_id,
    data: envelope.data,
    traceparent: envelope.traceparent,
    baggage: envelope.baggage,
    condition_function_id: envelope.condition_function_id,
    attempt: int(m.attempt, 1),
    maxAttempts: int(m.maxAttempts, 1),
    enqueuedAt: envelope.enqueued_at,
  };
}

/** A remote dead letter as the bridging engine sees it: the original call instead of the delivery envelope. */
export function unwrapDeadLetter(dead: DeadLetter): DeadLetter {
  const envelope = readEnvelope(dead.data);
  if (envelope === undefined) return dead;
  return { ...dead, function_id: envelope.function_id, data: envelope.data };
}
