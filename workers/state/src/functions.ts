/**
 * The `state::*` functions with the shapes of README.md, "Functions". Inputs are validated (input.ts) before the store
 * is touched; a write waits for room in the trigger dispatcher before it commits (backpressure). Store failures surface
 * as `GET_ERROR`, `SET_ERROR`, `DELETE_ERROR`, `UPDATE_ERROR`, `LIST_ERROR`, `LIST_GROUPS_ERROR`.
 */
import { InvocationError, JsonText, type HandlerContext, type SvcClient, type UpdateOpError } from '@svc/sdk';
import type { JsonValue, StateAdapter } from './adapters/types.js';
import type { TriggerDispatcher } from './dispatcher.js';
import { fieldsOf, nameField, opsField, valueField } from './input.js';
import { updateMutation } from './update-mutation.js';
import { withWriteTrace } from './write-trace.js';
import { StateErrorCode } from './error-codes.js';

export interface StateFunctionsOptions {
  adapter: StateAdapter;
  dispatcher: TriggerDispatcher;
  maxValueBytes: number;
}

export const STATE_FUNCTION_IDS = [
  'state::get',
  'state::set',
  'state::delete',
  'state::update',
  'state::list',
  'state::list_entries',
  'state::list_groups',
  'state::trigger_stats',
] as const;

export function registerStateFunctions(client: SvcClient, options: StateFunctionsOptions): void {
  const { adapter, dispatcher } = options;
  const checkSize = sizeCheck(options.maxValueBytes);

  client.registerFunction(
    'state::get',
    (payload: unknown) => {
      const fields = fieldsOf('state::get', payload);
      const scope = nameField('state::get', fields, 'scope');
      const key = nameField('state::get', fields, 'key');
      return storeCall<JsonValue | JsonText | undefined>('state::get', StateErrorCode.GetError, 'get value', () =>
        adapter.getJson === undefined ? adapter.get(scope, key) : adapter.getJson(scope, key).then(asJsonText),
      );
    },
    { description: 'Get a value from state (no result when the key is missing)' },
  );

  client.registerFunction(
    'state::set',
    async (payload: unknown, ctx: HandlerContext) => {
      const fields = fieldsOf('state::set', payload);
      const scope = nameField('state::set', fields, 'scope');
      const key = nameField('state::set', fields, 'key');
      const value = valueField('state::set', fields);
      const json = checkSize('state::set', value);
      const result = await admitted(dispatcher, () =>
        storeCall('state::set', StateErrorCode.SetError, 'set value', () =>
          withWriteTrace(ctx.traceparent, () => adapter.set(scope, key, value, json)),
        ),
      );
      // The store's text of the replaced value and the text just stored make the answer without serialising either.
      if (result.old_json !== undefined)
        return new JsonText(`{"old_value":${result.old_json ?? 'null'},"new_value":${json}}`);
      return { old_value: result.old_value ?? null, new_value: result.new_value };
    },
    { description: 'Set a value in state; returns {old_value, new_value}' },
  );

  client.registerFunction(
    'state::delete',
    async (payload: unknown, ctx: HandlerContext) => {
      const fields = fieldsOf('state::delete', payload);
      const scope = nameField('state::delete', fields, 'scope');
      const key = nameField('state::delete', fields, 'key');
      return admitted(dispatcher, () =>
        storeCall('state::delete', StateErrorCode.DeleteError, 'delete value', () =>
          withWriteTrace(ctx.traceparent, () => adapter.delete(scope, key)),
        ),
      );
    },
    { description: 'Delete a value from state; returns the previous value (no result when there was none)' },
  );

  client.registerFunction(
    'state::update',
    async (payload: unknown, ctx: HandlerContext) => {
      const fields = fieldsOf('state::update', payload);
      const scope = nameField('state::update', fields, 'scope');
      const key = nameField('state::update', fields, 'key');
      const ops = opsField('state::update', fields);
      let errors: UpdateOpError[] = [];
      const apply = updateMutation(ops, (found) => (errors = found));
      const checked = (current: JsonValue | undefined): JsonValue | undefined => {
        const next = apply(current);
        if (next !== undefined) checkSize('state::update', next);
        return next;
      };
      const mutate = Object.assign(checked, { ops });
      const result = await admitted(dispatcher, () =>
        storeCall('state::update', StateErrorCode.UpdateError, 'update value', () =>
          withWriteTrace(ctx.traceparent, () => adapter.update(scope, key, mutate)),
        ),
      );
      const opErrors = result.errors ?? errors;
      return {
        old_value: result.old_value ?? null,
        new_value: result.new_value ?? null,
        ...(opErrors.length > 0 ? { errors: opErrors } : {}),
      };
    },
    { description: 'Apply update ops (set, merge, increment, decrement, append, remove) atomically' },
  );

  client.registerFunction(
    'state::list',
    async (payload: unknown) => {
      const scope = nameField('state::list', fieldsOf('state::list', payload), 'scope');
      const entries = await storeCall('state::list', StateErrorCode.ListError, 'list values', () =>
        adapter.list(scope),
      );
      return entries.map((entry) => entry.value);
    },
    { description: 'Every value in a scope, ordered by key' },
  );

  client.registerFunction(
    'state::list_entries',
    async (payload: unknown) => {
      const scope = nameField('state::list_entries', fieldsOf('state::list_entries', payload), 'scope');
      const entries = await storeCall('state::list_entries', StateErrorCode.ListError, 'list entries', () =>
        adapter.list(scope),
      );
      return { entries };
    },
    { description: 'Every {key, value} of a scope, ordered by key (for the console: state::list has no keys)' },
  );

  client.registerFunction(
    'state::list_groups',
    async () => {
      const groups = await storeCall('state::list_groups', StateErrorCode.ListGroupsError, 'list groups', () =>
        adapter.listGroups(),
      );
      return { groups };
    },
    { description: 'Every scope that holds at least one key, sorted' },
  );
}

/**
 * Runs a write once the dispatcher has room for the deliveries it may add (backpressure): at once when there is room
 * (the write is then called in this turn, so a turn's writes reach the store together), else once there is.
 */
function admitted<T>(dispatcher: TriggerDispatcher, write: () => Promise<T>): Promise<T> {
  const end = dispatcher.tryAdmit();
  if (end === undefined) return dispatcher.admit().then((later) => ended(write, later));
  return ended(write, end);
}

/** `write()`, then `end()` however it went. */
function ended<T>(write: () => Promise<T>, end: () => void): Promise<T> {
  let running: Promise<T>;
  try {
    running = write();
  } catch (err) {
    end();
    throw err;
  }
  return running.finally(end);
}

/** A stored value's JSON text as the answer itself (the SDK writes it as it is); a missing key answers nothing. */
function asJsonText(text: string | undefined): JsonText | undefined {
  return text === undefined ? undefined : new JsonText(text);
}

/** Checks the size of `value`'s JSON and returns that JSON (the store writes it as it is). */
function sizeCheck(maxValueBytes: number) {
  return (functionId: string, value: JsonValue): string => {
    const json = JSON.stringify(value);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: a short text needs no count
    if (json.length * 3 <= maxValueBytes) return json;
    const bytes = Buffer.byteLength(json);
    if (bytes <= maxValueBytes) return json;
    throw new InvocationError({
      code: StateErrorCode.ValueTooLarge,
      message: `${functionId}: the value is ${bytes} bytes of JSON; max_value_bytes is ${maxValueBytes}. Store a smaller value or raise max_value_bytes.`,
      function_id: functionId,
    });
  };
}

/** Runs a store call; input errors (InvocationError) pass through, store failures get the function's code. */
function storeCall<T>(functionId: string, code: string, what: string, call: () => Promise<T>): Promise<T> {
  let running: Promise<T>;
  try {
    running = call();
  } catch (err) {
    return Promise.reject(storeError(functionId, code, what, err));
  }
  return running.catch((err: unknown) => {
    throw storeError(functionId, code, what, err);
  });
}

function storeError(functionId: string, code: string, what: string, err: unknown): Error {
  if (err instanceof InvocationError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  const storeCode = (err as { code?: unknown }).code;
  return new InvocationError({
    code,
    message: `Failed to ${what}: ${reason}${typeof storeCode === 'string' ? ` (${storeCode})` : ''}`,
    function_id: functionId,
  });
}
