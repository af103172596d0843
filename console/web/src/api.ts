/** Calls to the console backend. Every failure becomes an ApiError with a code and a message to show inline. */

export interface ConsoleConfig {
  engineHost: string;
  enginePort: number;
  wsPort: number;
  consolePort?: number;
  version?: string;
  enableFlow: boolean;
}

declare global {
  interface Window {
    __CONSOLE_CONFIG__?: ConsoleConfig;
  }
}

export const config: ConsoleConfig = window.__CONSOLE_CONFIG__ ?? {
  engineHost: '127.0.0.1',
  enginePort: 3111,
  wsPort: 3112,
  enableFlow: false,
};

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly stacktrace?: string,
  ) {
    super(message);
  }

  /** The observability worker (traces, logs) is not running. */
  get notRegistered(): boolean {
    return this.code === 'function_not_found';
  }
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; stacktrace?: unknown };
}

/** `api('GET', 'functions')` → GET /api/engine/_console/functions. */
export async function api<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/engine/_console/${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    throw new ApiError('console_unreachable', `the console server does not answer: ${(err as Error).message}`, 0);
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    throw new ApiError('bad_response', `HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
  }
  if (!res.ok) throw toApiError(data, res.status);
  return data as T;
}

function toApiError(data: unknown, status: number): ApiError {
  const error = (data as ErrorEnvelope | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const stack = typeof error?.stacktrace === 'string' ? error.stacktrace : undefined;
  return new ApiError(code, message, status, stack);
}

export const enc = encodeURIComponent;
