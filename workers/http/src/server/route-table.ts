/**
 * The route table of svc-http: `api_path` patterns with `:param` segments, keyed by method.
 *
 * Matching prefers a static segment over a `:param` at the same position (so `/users/me` beats `/users/:id`) and
 * backtracks when the static branch does not lead to a full match. A path that matches some route but not with
 * the request's method is reported with the methods it does allow (405 + `Allow`).
 *
 * Conflicts are refused at registration with a reason: the same method and path bound to another function, or a
 * `:param` at a position where another route already uses a different parameter name (the two routes would be
 * ambiguous). The same method and path bound to the same function by several triggers (replicas of a worker) is
 * accepted: the route stays served while any of those triggers remains.
 */
import { HttpErrorCode } from '../error-codes.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface RouteTarget {
  triggerId: string;
  functionId: string;
  /** The api_path exactly as registered (it is the payload's `path`). */
  apiPath: string;
  method: HttpMethod;
  conditionFunctionId: string | undefined;
  /** Called in order before the condition and the function; any of them may answer the request itself. */
  middlewareFunctionIds: string[];
  metadata: unknown;
}

export interface RouteMatch {
  target: RouteTarget;
  params: Record<string, string>;
}

export type LookupResult =
  { kind: 'found'; match: RouteMatch } | { kind: 'method_not_allowed'; allow: HttpMethod[] } | { kind: 'not_found' };

export class RouteConflictError extends Error {
  readonly code = HttpErrorCode.RouteConflict;
}

interface Route {
  /** Every trigger bound to this method+path; all name the same function. The first one answers requests. */
  targets: RouteTarget[];
}

class Node {
  readonly statics = new Map<string, Node>();
  param: { name: string; node: Node; owner: string } | undefined;
  readonly routes = new Map<HttpMethod, Route>();
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BAD_SEGMENT_CHARS = /[\s?#%]/;

/** Splits a path into segments; empty segments (leading, trailing or double slashes) are ignored. */
export function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

export function describeRoute(method: string, apiPath: string): string {
  return `${method} ${apiPath.startsWith('/') ? apiPath : `/${apiPath}`}`;
}

/** Validates an api_path and returns its segments, or throws with what is wrong with it. */
export function parseApiPath(apiPath: string): string[] {
  const segments = splitPath(apiPath);
  const seen = new Set<string>();
  for (const segment of segments) {
    if (segment.startsWith(':')) {
      const name = segment.slice(1);
      if (!PARAM_NAME.test(name)) {
        throw new Error(
          `api_path '${apiPath}': parameter '${segment}' must be ':' followed by a name ([A-Za-z_][A-Za-z0-9_]*)`,
        );
      }
      if (seen.has(name)) throw new Error(`api_path '${apiPath}': parameter ':${name}' appears twice`);
      seen.add(name);
    } else if (BAD_SEGMENT_CHARS.test(segment)) {
      throw new Error(`api_path '${apiPath}': segment '${segment}' contains whitespace, '?', '#' or '%'`);
    }
  }
  return segments;
}

/** The `params` of every match of a route without parameters (shared by cached lookups, so frozen). */
const NO_PARAMS: Record<string, string> = Object.freeze({});
const MAX_CACHED = 1024;

export class RouteTable {
  private readonly root = new Node();
  private readonly byTrigger = new Map<string, { segments: string[]; target: RouteTarget }>();

  get size(): number {
    return this.byTrigger.size;
  }

  /** Adds a binding; throws RouteConflictError naming the conflicting route. Re-adding the same trigger id replaces it. */
  add(target: RouteTarget): void {
    this.found.clear();
    const existing = this.byTrigger.get(target.triggerId);
    if (existing) {
      if (sameBinding(existing.target, target)) return;
      this.remove(target.triggerId);
    }
    const segments = parseApiPath(target.apiPath);
    this.checkConflicts(segments, target);
    let node = this.root;
    for (const segment of segments) node = this.child(node, segment, target);
    const route = node.routes.get(target.method);
    if (route) route.targets.push(target);
    else node.routes.set(target.method, { targets: [target] });
    this.byTrigger.set(target.triggerId, { segments, target });
  }

  /** Removes a binding by trigger id; returns false when it was not there. */
  remove(triggerId: string): boolean {
    const entry = this.byTrigger.get(triggerId);
    if (!entry) return false;
    this.found.clear();
    this.byTrigger.delete(triggerId);
    const path: Node[] = [this.root];
    let node = this.root;
    for (const segment of entry.segments) {
      const next = segment.startsWith(':') ? node.param?.node : node.statics.get(segment);
      if (!next) return true;
      node = next;
      path.push(node);
    }
    const route = node.routes.get(entry.target.method);
    if (route) {
      route.targets = route.targets.filter((t) => t.triggerId !== triggerId);
      if (route.targets.length === 0) node.routes.delete(entry.target.method);
    }
    this.prune(path, entry.segments);
    return true;
  }

  private readonly allowedScratch = new Set<HttpMethod>();
  /**
   * Lookups of routes without parameters, by method and path: the same answer every time until the table
   * changes (cleared then), without splitting and walking the path per request. Bounded: cleared when full.
   */
  private readonly found = new Map<string, LookupResult>();

  lookup(method: string, pathname: string): LookupResult {
    const key = `${method} ${pathname}`;
    const cached = this.found.get(key);
    if (cached !== undefined) return cached;
    const result = this.walkFrom(method, pathname);
    if (result.kind === 'found' && result.match.params === NO_PARAMS) {
      if (this.found.size >= MAX_CACHED) this.found.clear();
      this.found.set(key, result);
    }
    return result;
  }

  private walkFrom(method: string, pathname: string): LookupResult {
    const segments = splitPath(pathname);
    // reused: lookups are synchronous, and most find their route (the set stays empty)
    const allowed = this.allowedScratch;
    allowed.clear();
    const found = this.walk(this.root, segments, 0, [], method, allowed);
    if (found) return { kind: 'found', match: found };
    if (allowed.size > 0) return { kind: 'method_not_allowed', allow: [...allowed] };
    return { kind: 'not_found' };
  }

  private walk(
    node: Node,
    segments: string[],
    index: number,
    values: Array<[string, string]>,
    method: string,
    allowed: Set<HttpMethod>,
  ): RouteMatch | undefined {
    if (index === segments.length) return this.matchHere(node, values, method, allowed);
    const raw = segments[index] as string;
    const decoded = safeDecode(raw);
    const staticChild = node.statics.get(decoded);
    if (staticChild) {
      const match = this.walk(staticChild, segments, index + 1, values, method, allowed);
      if (match) return match;
    }
    if (node.param) {
      values.push([node.param.name, decoded]);
      const match = this.walk(node.param.node, segments, index + 1, values, method, allowed);
      if (match) return match;
      values.pop();
    }
    return undefined;
  }

  private matchHere(
    node: Node,
    values: Array<[string, string]>,
    method: string,
    allowed: Set<HttpMethod>,
  ): RouteMatch | undefined {
    if (node.routes.size === 0) return undefined;
    // HEAD is served by a GET route when no HEAD route exists (the body is dropped on the way out).
    const route = node.routes.get(method as HttpMethod) ?? (method === 'HEAD' ? node.routes.get('GET') : undefined);
    const target = route?.targets[0];
    if (target) return { target, params: values.length === 0 ? NO_PARAMS : Object.fromEntries(values) };
    for (const m of node.routes.keys()) {
      allowed.add(m);
      if (m === 'GET') allowed.add('HEAD');
    }
    return undefined;
  }

  private checkConflicts(segments: string[], target: RouteTarget): void {
    let node: Node | undefined = this.root;
    for (const segment of segments) {
      if (!node) return;
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param && node.param.name !== name) {
          throw new RouteConflictError(
            `route ${describeRoute(target.method, target.apiPath)} conflicts with ${node.param.owner}: ` +
              `parameter ':${name}' is ':${node.param.name}' there; use the same parameter name at the same position`,
          );
        }
        node = node.param?.node;
      } else {
        node = node.statics.get(segment);
      }
    }
    const other = node?.routes.get(target.method)?.targets[0];
    if (other && other.functionId !== target.functionId) {
      throw new RouteConflictError(
        `route ${describeRoute(target.method, target.apiPath)} is already bound to function '${other.functionId}' ` +
          `(trigger ${other.triggerId}); unregister that trigger first or use another path or method`,
      );
    }
  }

  private child(node: Node, segment: string, target: RouteTarget): Node {
    if (segment.startsWith(':')) {
      if (!node.param) {
        node.param = { name: segment.slice(1), node: new Node(), owner: describeRoute(target.method, target.apiPath) };
      }
      return node.param.node;
    }
    let next = node.statics.get(segment);
    if (!next) {
      next = new Node();
      node.statics.set(segment, next);
    }
    return next;
  }

  /** Drops nodes left without routes or children, so a removed route frees its parameter name. */
  private prune(path: Node[], segments: string[]): void {
    for (let i = segments.length; i > 0; i--) {
      const node = path[i] as Node;
      const parent = path[i - 1] as Node;
      if (node.routes.size > 0 || node.statics.size > 0 || node.param) return;
      const segment = segments[i - 1] as string;
      if (segment.startsWith(':')) parent.param = undefined;
      else parent.statics.delete(segment);
    }
  }
}

function sameBinding(a: RouteTarget, b: RouteTarget): boolean {
  return (
    a.functionId === b.functionId &&
    a.apiPath === b.apiPath &&
    a.method === b.method &&
    a.conditionFunctionId === b.conditionFunctionId &&
    a.middlewareFunctionIds.join('\n') === b.middlewareFunctionIds.join('\n') &&
    JSON.stringify(a.metadata) === JSON.stringify(b.metadata)
  );
}

function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
