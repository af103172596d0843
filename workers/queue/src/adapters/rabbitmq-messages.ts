/** The RabbitMQ backend's message format: a JSON body and our `x-svc-*` headers (see rabbitmq.ts). */
import type { Channel, Message } from 'amqplib';
import type { DeadLetter, ErrorInfo } from './types.js';
import { QueueErrorCode } from '../error-codes.js';

export interface Payload {
  function_id: string;
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
}

export const H_ATTEMPTS = 'x-svc-attempts';
export const H_ERROR = 'x-svc-error';
export const H_FAILED_AT = 'x-svc-failed-at';
export const H_ENQUEUED_AT = 'x-svc-enqueued-at';

/** Our headers only: the broker's `x-death` bookkeeping would otherwise grow with every retry. */
export function ownHeaders(msg: Message): Record<string, unknown> {
  const h = (msg.properties.headers ?? {}) as Record<string, unknown>;
  return { [H_ATTEMPTS]: h[H_ATTEMPTS] ?? 0, [H_ENQUEUED_AT]: h[H_ENQUEUED_AT] ?? Date.now() };
}

/** Acks `msg`; false when the channel closed under us (the broker then redelivers it: at least once). */
export function safeAck(ch: Channel, msg: Message): boolean {
  try {
    ch.ack(msg);
    return true;
  } catch {
    return false;
  }
}

export function unavailable(cause?: unknown): Error {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return Object.assign(new Error(`the RabbitMQ broker did not confirm the message${detail}`), {
    code: QueueErrorCode.QueueUnavailable,
  });
}

export function parsePayload(content: Buffer): Payload {
  try {
    const v = JSON.parse(content.toString('utf8')) as Record<string, unknown>;
    return {
      function_id: typeof v.function_id === 'string' ? v.function_id : '',
      data: v.data ?? null,
      traceparent: typeof v.traceparent === 'string' ? v.traceparent : null,
      baggage: typeof v.baggage === 'string' ? v.baggage : null,
      condition_function_id: typeof v.condition_function_id === 'string' ? v.condition_function_id : null,
    };
  } catch {
    return { function_id: '', data: null, traceparent: null, baggage: null, condition_function_id: null };
  }
}

export function toDeadLetter(queue: string, msg: Message): DeadLetter {
  const h = msg.properties.headers ?? {};
  const p = parsePayload(msg.content);
  let error: ErrorInfo = { code: QueueErrorCode.JobFailed, message: '' };
  try {
    const e = JSON.parse(String(h[H_ERROR] ?? '')) as Partial<ErrorInfo>;
    error = { code: String(e.code ?? QueueErrorCode.JobFailed), message: String(e.message ?? '') };
  } catch {
    // keep the default
  }
  return {
    id: String(msg.properties.messageId ?? ''),
    queue,
    function_id: p.function_id,
    data: p.data,
    attempts: Number(h[H_ATTEMPTS] ?? 0),
    error,
    enqueued_at: Number(h[H_ENQUEUED_AT] ?? 0),
    failed_at: Number(h[H_FAILED_AT] ?? 0),
  };
}
