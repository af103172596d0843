/** State and stream routes, over `state::*` and `stream::*`. */
import { bodyObject, ConsoleInputError, requireString } from '../http-shape.js';
import type { ConsoleContext, Route } from '../route.js';

const scopeOf = (params: Record<string, string>): string => {
  const scope = decodeURIComponent(params.group ?? '');
  if (scope === '') throw new ConsoleInputError('the scope in the path must not be empty');
  return scope;
};

/** `state::list_entries` gives keys; an older state worker only has `state::list` (values without keys). */
async function entriesOf(ctx: ConsoleContext, scope: string): Promise<{ key: string; value: unknown }[]> {
  const { entries } = await ctx.call<{ entries: { key: string; value: unknown }[] }>('state::list_entries', { scope });
  return entries;
}

export const stateRoutes: Route[] = [
  {
    name: 'state_groups_list',
    method: 'GET',
    path: '_console/states/groups',
    description: 'State scopes (state::list_groups)',
    handler: (_req, ctx) => ctx.call('state::list_groups', {}),
  },
  {
    name: 'state_group_items',
    method: 'POST',
    path: '_console/states/group',
    description: 'Items of a scope: {scope} → {items: [{key, value}]}',
    handler: async (req, ctx) => {
      const scope = requireString(bodyObject(req, '_console/states/group'), 'scope', '_console/states/group');
      return { scope, items: await entriesOf(ctx, scope) };
    },
  },
  {
    name: 'state_item_set',
    method: 'POST',
    path: '_console/states/:group/item',
    description: 'Saves {key, value} in the scope (state::set)',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/states/:group/item');
      const key = requireString(body, 'key', '_console/states/:group/item');
      if (!('value' in body)) throw new ConsoleInputError('_console/states/:group/item: "value" is missing');
      return ctx.call('state::set', { scope: scopeOf(req.path_params), key, value: body.value });
    },
  },
  {
    name: 'state_item_delete',
    method: 'DELETE',
    path: '_console/states/:group/item/:key',
    description: 'Deletes an item (state::delete)',
    handler: async (req, ctx) => {
      const key = decodeURIComponent(req.path_params.key ?? '');
      const old = await ctx.call('state::delete', { scope: scopeOf(req.path_params), key });
      return { deleted: old !== undefined, old_value: old ?? null };
    },
  },
  {
    name: 'streams_list',
    method: 'GET',
    path: '_console/streams/list',
    description: 'Streams and their groups (stream::list_all)',
    handler: (_req, ctx) => ctx.call('stream::list_all', {}),
  },
  {
    name: 'stream_group_items',
    method: 'POST',
    path: '_console/streams/group',
    description: 'Items of a stream group: {stream_name, group_id} (stream::list)',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/streams/group');
      const stream_name = requireString(body, 'stream_name', '_console/streams/group');
      const group_id = requireString(body, 'group_id', '_console/streams/group');
      const items = await ctx.call<unknown[]>('stream::list', { stream_name, group_id });
      return { stream_name, group_id, items: items ?? [] };
    },
  },
];
