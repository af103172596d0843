/**
 * `configuration::register|set|get|list|schema` (docs/compatibility.md, "Configuration"): input checks
 * (INVALID_ARGUMENTS naming the field) around the store; a refused operation keeps the store's code (NOT_FOUND,
 * NOT_REGISTERED, INVALID_ID, SCHEMA_INVALID).
 */
import { InvocationError } from '@svc/sdk/core';
import { asArgs, invalid, optBool, optString, type Args } from '../introspection/args.js';
import { ConfigurationError, viewOf, type ConfigurationChange, type ConfigurationStore } from './store.js';

export type Handler = (payload: unknown) => unknown;

/** Publishes a change (events, disk); resolves once it is durable. */
export type Changed = (change: ConfigurationChange) => Promise<void>;

function required(args: Args, key: string, fn: string): string {
  const value = optString(args, key, fn);
  if (value === undefined || value === '') throw invalid(fn, `"${key}" is required (a non-empty string)`);
  return value;
}

function asInvocationError(fn: string, err: unknown): unknown {
  return err instanceof ConfigurationError
    ? new InvocationError({ code: err.code, message: err.message, function_id: fn })
    : err;
}

function guarded<T>(fn: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw asInvocationError(fn, err);
  }
}

async function guardedAsync<T>(fn: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asInvocationError(fn, err);
  }
}

export function configurationFunctions(
  store: ConfigurationStore,
  changed: Changed,
): Record<string, { handler: Handler; description: string }> {
  const register: Handler = async (payload) => {
    const fn = 'configuration::register';
    const args = asArgs(payload, fn);
    if (!('schema' in args)) throw invalid(fn, '"schema" is required (a JSON Schema)');
    const input = {
      id: required(args, 'id', fn),
      name: optString(args, 'name', fn) ?? '',
      description: optString(args, 'description', fn) ?? '',
      schema: args.schema,
      ...(args.initial_value !== undefined ? { initial_value: args.initial_value } : {}),
      ...(args.metadata !== undefined && args.metadata !== null ? { metadata: args.metadata } : {}),
    };
    if (input.name === '') input.name = input.id;
    const change = await guardedAsync(fn, () => store.register(input));
    await changed(change);
    return change.entry;
  };
  const set: Handler = async (payload) => {
    const fn = 'configuration::set';
    const args = asArgs(payload, fn);
    const id = required(args, 'id', fn);
    if (!('value' in args)) throw invalid(fn, '"value" is required');
    const change = await guardedAsync(fn, () => store.set(id, args.value));
    await changed(change);
    return { old_value: change.old_value ?? null, new_value: change.new_value };
  };
  const get: Handler = (payload) => {
    const fn = 'configuration::get';
    const args = asArgs(payload, fn);
    const id = required(args, 'id', fn);
    optBool(args, 'raw', fn); // values are stored as given: raw and expanded reads are the same
    return { id, value: guarded(fn, () => store.get(id)).value };
  };
  const schema: Handler = (payload) => {
    const fn = 'configuration::schema';
    const id = required(asArgs(payload, fn), 'id', fn);
    return viewOf(guarded(fn, () => store.get(id)));
  };
  return {
    'configuration::register': { handler: register, description: 'Register a configuration with its JSON Schema' },
    'configuration::set': { handler: set, description: 'Set a configuration value (checked against its schema)' },
    'configuration::get': { handler: get, description: 'Read a configuration value' },
    'configuration::list': { handler: () => ({ configurations: store.list() }), description: 'List configurations' },
    'configuration::schema': { handler: schema, description: 'Read a configuration schema' },
  };
}
