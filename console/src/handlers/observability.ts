/**
 * Trace and log routes, over the observability functions (`engine::traces::*`, `engine::logs::*`). The filters in
 * the body are handed on as they are; when the observability worker is not running the call fails with
 * `function_not_found` (404), which the pages show as "observability not enabled".
 */
import { bodyObject } from '../http-shape.js';
import type { Route } from '../route.js';

const passThrough = (name: string, path: string, functionId: string, description: string): Route => ({
  name,
  method: 'POST',
  path,
  description,
  handler: (req, ctx) => ctx.call(functionId, bodyObject(req, path)),
});

export const observabilityRoutes: Route[] = [
  passThrough('otel_traces_list', '_console/otel/traces', 'engine::traces::list', 'Spans matching the filters'),
  passThrough('otel_traces_tree', '_console/otel/traces/tree', 'engine::traces::tree', 'The span tree of {trace_id}'),
  passThrough('otel_traces_clear', '_console/otel/traces/clear', 'engine::traces::clear', 'Drops the stored spans'),
  passThrough('otel_logs_list', '_console/otel/logs', 'engine::logs::list', 'Logs matching the filters'),
  passThrough('otel_logs_clear', '_console/otel/logs/clear', 'engine::logs::clear', 'Drops the stored logs'),
];
