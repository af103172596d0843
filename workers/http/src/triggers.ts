/**
 * The `http` trigger type: svc-http activates a binding by adding its route, and refuses a bad binding by
 * throwing (the SDK sends that message back as a `trigger_registration_failed` result, which the engine forwards
 * to the worker that registered the trigger).
 *
 * Binding config (docs/protocol.md §4): `api_path` (required; leading `/` optional; `:param` segments),
 * `http_method` (default GET; GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS; any case), `condition_function_id?`,
 * `middleware_function_ids?` (function ids run in order before the condition and the function).
 */
import type { TriggerBinding, TriggerTypeHandler } from '@svc/sdk';
import {
  HTTP_METHODS,
  parseApiPath,
  type HttpMethod,
  type RouteTable,
  type RouteTarget,
} from './server/route-table.js';

export const HTTP_TRIGGER_TYPE = 'http';
export const HTTP_TRIGGER_DESCRIPTION = 'HTTP route served by svc-http (api_path, http_method, condition_function_id)';

export function toRouteTarget(binding: TriggerBinding): RouteTarget {
  const config = binding.config;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new Error('http trigger config must be an object with api_path and http_method');
  }
  const c = config as Record<string, unknown>;
  const apiPath = c['api_path'];
  if (typeof apiPath !== 'string' || apiPath.trim() === '') throw new Error('api_path is required for http triggers');
  parseApiPath(apiPath);
  const rawMethod = c['http_method'] ?? 'GET';
  const method = typeof rawMethod === 'string' ? rawMethod.toUpperCase() : '';
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new Error(`http_method ${JSON.stringify(rawMethod)} is not supported; use one of ${HTTP_METHODS.join(', ')}`);
  }
  const condition = c['condition_function_id'];
  if (condition !== undefined && condition !== null && (typeof condition !== 'string' || condition === '')) {
    throw new Error('condition_function_id must be a non-empty string (a function id)');
  }
  const middleware = c['middleware_function_ids'] ?? [];
  if (!Array.isArray(middleware) || middleware.some((m) => typeof m !== 'string' || m === '')) {
    throw new Error('middleware_function_ids must be an array of function ids');
  }
  if (typeof binding.function_id !== 'string' || binding.function_id === '') {
    throw new Error('http trigger needs a function_id');
  }
  return {
    triggerId: binding.id,
    functionId: binding.function_id,
    apiPath,
    method: method as HttpMethod,
    conditionFunctionId: typeof condition === 'string' ? condition : undefined,
    middlewareFunctionIds: middleware as string[],
    metadata: binding.metadata,
  };
}

export function httpTriggerHandler(routes: RouteTable): TriggerTypeHandler {
  return {
    registerTrigger(binding) {
      routes.add(toRouteTarget(binding));
    },
    unregisterTrigger(binding) {
      routes.remove(binding.id);
    },
  };
}
