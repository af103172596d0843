/**
 * A job's row of the builtin queue's file store, to and from SQL: the stored text of its call (the `payload` column:
 * function id, data, trace context, condition) and the row `load` makes of the table's columns, without the data.
 */
import { textOf } from '@svc/sdk';
import type { JobRow, JobState } from './builtin-store.js';
import type { ErrorInfo } from './types.js';

/** The jobs as `load` reads them: their call's fields are taken out of `payload` by SQLite, never the data. */
export const LOAD_JOBS = `SELECT seq, id, queue, state, attempts, run_at, last_error, enqueued_at, failed_at,
  CASE WHEN json_valid(payload) THEN json_extract(payload, '$.function_id') END AS function_id,
  CASE WHEN json_valid(payload) THEN json_extract(payload, '$.traceparent') END AS traceparent,
  CASE WHEN json_valid(payload) THEN json_extract(payload, '$.baggage') END AS baggage,
  CASE WHEN json_valid(payload) THEN json_extract(payload, '$.condition_function_id') END AS condition_function_id
  FROM jobs ORDER BY seq`;

/** The stored text of a job's call (its `payload` column). */
export function payloadText(r: JobRow): string {
  return JSON.stringify({
    function_id: r.function_id,
    data: r.data,
    traceparent: r.traceparent,
    baggage: r.baggage,
    condition_function_id: r.condition_function_id,
  });
}

export function fromSql(r: Record<string, unknown>): JobRow {
  return {
    id: String(r.id),
    queue: String(r.queue),
    seq: Number(r.seq),
    state: String(r.state) as JobState,
    attempts: Number(r.attempts),
    runAt: Number(r.run_at),
    function_id: textOf(r.function_id ?? ''),
    data: undefined,
    traceparent: typeof r.traceparent === 'string' ? r.traceparent : null,
    baggage: typeof r.baggage === 'string' ? r.baggage : null,
    condition_function_id: typeof r.condition_function_id === 'string' ? r.condition_function_id : null,
    lastError: r.last_error ? (parseObject(r.last_error) as unknown as ErrorInfo) : null,
    enqueuedAt: Number(r.enqueued_at),
    failedAt: Number(r.failed_at),
  };
}

export function parseObject(text: unknown): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(String(text));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
