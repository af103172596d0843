/** Every `_console/*` route the console worker registers, in matching order. */
import { engineRoutes } from './handlers/engine.js';
import { flowRoutes } from './handlers/flow.js';
import { observabilityRoutes } from './handlers/observability.js';
import { queueRoutes } from './handlers/queues.js';
import { stateRoutes } from './handlers/states.js';
import type { Route } from './route.js';

export const CONSOLE_ROUTES: readonly Route[] = [
  ...engineRoutes,
  ...stateRoutes,
  ...queueRoutes,
  ...observabilityRoutes,
  ...flowRoutes,
];
