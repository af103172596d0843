/**
 * The span of one HTTP request (kind SERVER, named `<METHOD> <route>`), continuing the client's W3C `traceparent`
 * / `baggage` headers when it sent them. Its context is the parent of the function calls the request makes, so
 * the request and everything it caused form one trace.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { recordSpanError, SpanKind, SpanStatusCode, traceparentOf, type Telemetry } from '@svc/sdk';

export interface RequestSpan {
  traceparent: string;
  baggage: string | undefined;
  /** Ends the span with the response status (5xx marks it failed); `aborted` when the client went away. */
  end(status: number, aborted: boolean): void;
}

export type RequestTracer = (method: string, route: string, path: string, headers: IncomingHttpHeaders) => RequestSpan;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function requestTracer(telemetry: Telemetry): RequestTracer {
  return (method, route, path, headers) => {
    const span = telemetry.startSpan(`${method} ${route}`, {
      parent: header(headers, 'traceparent'),
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': route, 'url.path': path },
    });
    return {
      traceparent: traceparentOf(span),
      baggage: header(headers, 'baggage'),
      end: (status, aborted) => {
        span.setAttribute('http.response.status_code', status);
        if (aborted) recordSpanError(span, 'the client went away before the response', undefined, 'client_aborted');
        else if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
        else span.setStatus({ code: SpanStatusCode.OK });
        span.end();
      },
    };
  };
}
