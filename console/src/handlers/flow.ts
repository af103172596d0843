/** The Flow page's saved layouts: node positions per flow id, kept in the engine's state store. */
import { bodyObject, ConsoleInputError, isRecord } from '../http-shape.js';
import { FLOW_SCOPE } from '../options.js';
import type { Route } from '../route.js';

const flowIdOf = (params: Record<string, string>): string => {
  const id = decodeURIComponent(params.flow_id ?? '');
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(id)) {
    throw new ConsoleInputError(`flow id "${id}" must be 1 to 128 letters, digits, or _ . : -`);
  }
  return id;
};

export const flowRoutes: Route[] = [
  {
    name: 'flow_config_get',
    method: 'GET',
    path: '_console/flows/config/:flow_id',
    description: 'The saved layout of a flow: {flow_id, config: {positions} | null}',
    handler: async (req, ctx) => {
      const flowId = flowIdOf(req.path_params);
      const config = await ctx.call('state::get', { scope: FLOW_SCOPE, key: flowId });
      return { flow_id: flowId, config: config ?? null };
    },
  },
  {
    name: 'flow_config_save',
    method: 'POST',
    path: '_console/flows/config/:flow_id',
    description: 'Saves a flow layout {positions: {node id: {x, y}}} (state::set)',
    handler: async (req, ctx) => {
      const flowId = flowIdOf(req.path_params);
      const body = bodyObject(req, '_console/flows/config/:flow_id');
      if (!isRecord(body.positions)) {
        throw new ConsoleInputError('_console/flows/config/:flow_id: "positions" must be an object of {x, y}');
      }
      const config = { positions: body.positions, saved_at: new Date().toISOString() };
      await ctx.call('state::set', { scope: FLOW_SCOPE, key: flowId, value: config });
      return { flow_id: flowId, config };
    },
  },
];
