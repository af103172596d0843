export { startHttpApp, sdkInvoker, type HttpApp } from './app.js';
export { RouteTable, RouteConflictError, type RouteTarget } from './server/route-table.js';
export { serializeResult } from './server/response.js';
