/**
 * CORS from the `cors` config. Without it, CORS is permissive (any origin, any method, the requested headers).
 * With it, only `allowed_origins` (`*` = any) get CORS headers, and preflights list `allowed_methods`.
 * A preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is answered here with 204 and never
 * reaches a function; a preflight from an origin that is not allowed gets 204 without CORS headers, so the
 * browser refuses the real request.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface CorsConfig {
  allowed_origins?: string[] | undefined;
  allowed_methods?: string[] | undefined;
}

const ALL_METHODS = 'GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS';

/** The answer for a request without CORS headers to add (most of them): one shared, frozen object. */
const NONE: Record<string, string> = Object.freeze({});

export class CorsPolicy {
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;
  private readonly methods: string;

  constructor(config: CorsConfig | undefined) {
    const origins = config?.allowed_origins;
    this.anyOrigin = !config || !origins || origins.includes('*');
    this.origins = new Set((origins ?? []).map((o) => o.toLowerCase()));
    const methods = config?.allowed_methods;
    this.methods = methods && methods.length > 0 ? methods.map((m) => m.toUpperCase()).join(', ') : ALL_METHODS;
  }

  isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
    return (
      method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined
    );
  }

  /** Headers to add to an ordinary response (empty when the request has no Origin or it is not allowed). */
  responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const origin = headers.origin;
    if (!origin || !this.allows(origin)) return NONE;
    return this.anyOrigin
      ? { 'access-control-allow-origin': '*' }
      : { 'access-control-allow-origin': origin, vary: 'Origin' };
  }

  preflightHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const base = this.responseHeaders(headers);
    if (!base['access-control-allow-origin']) return {};
    const requested = headers['access-control-request-headers'];
    return {
      ...base,
      'access-control-allow-methods': this.methods,
      ...(requested ? { 'access-control-allow-headers': requested } : {}),
      'access-control-max-age': '600',
    };
  }

  private allows(origin: string): boolean {
    return this.anyOrigin || this.origins.has(origin.toLowerCase());
  }
}
