/** One `_console/*` route: an HTTP method and path bound to the function `engine::console::<name>`. */
import type { ConsoleOptions } from './options.js';
import type { ConsoleRequest } from './http-shape.js';

export interface CallOptions {
  timeoutMs?: number;
  traceparent?: string;
}

/** What a route handler may use: calls through the engine, like any other worker's. */
export interface ConsoleContext {
  call<T = unknown>(functionId: string, payload: unknown, options?: CallOptions): Promise<T>;
  options: ConsoleOptions;
}

/** Returns the response body; throws an InvocationError or ConsoleInputError for an error response. */
export type RouteHandler = (req: ConsoleRequest, ctx: ConsoleContext) => Promise<unknown>;

export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to the REST root, `:param` segments allowed: `_console/functions/:function_id`. */
  path: string;
  description: string;
  handler: RouteHandler;
}

export const functionIdOf = (route: Route): string => `engine::console::${route.name}`;

/** Matches `method` and a URL path (no leading slash, already decoded per segment) against a route's pattern. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      const part = parts[i] ?? '';
      if (segment.startsWith(':')) {
        params[segment.slice(1)] = part;
        return true;
      }
      return segment === part;
    });
    if (matches) return { route, params };
  }
  return undefined;
}
