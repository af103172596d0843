/**
 * The error envelope of every response svc-http itself produces (docs/protocol.md §5):
 * `{"error":{"code","message","error_id"?}}`. `error_id` is set on 5xx only; the same id is written to the log
 * beside the details (a handler's stack), so an operator can find them while the client never sees a stack.
 */

export interface ErrorEnvelope {
  error: { code: string; message: string; error_id?: string };
  skipped?: boolean;
}

let counter = 0;

/** A hex timestamp (ms) with a per-process counter, so two errors in the same millisecond differ. */
export function newErrorId(): string {
  counter = (counter + 1) & 0xfff;
  return `${Date.now().toString(16)}${counter.toString(16).padStart(3, '0')}`;
}

export function errorEnvelope(status: number, code: string, message: string): ErrorEnvelope {
  const error: ErrorEnvelope['error'] = { code, message };
  if (status >= 500) error.error_id = newErrorId();
  return { error };
}

/** A response decided by svc-http (not by a handler). */
export interface PlainResponse {
  status: number;
  /** Lower-case names; `set-cookie` may hold several values (each is sent as its own header line). */
  headers: Record<string, string | string[]>;
  /** A string is sent as UTF-8 (with the head in the same write). */
  body: Buffer | string;
}

export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  extra: Partial<ErrorEnvelope> = {},
): PlainResponse & { envelope: ErrorEnvelope } {
  const envelope = { ...errorEnvelope(status, code, message), ...extra };
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(envelope),
    envelope,
  };
}
