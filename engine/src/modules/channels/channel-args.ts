/**
 * Input checks of `engine::channels::*` (untrusted payloads): a wrong field is refused with
 * `deserialization_error` naming it, as the wire protocol does for a built-in's input.
 */
import { InvocationError } from '@svc/sdk/core';
import { DEFAULT_BUFFER_SIZE } from './channel-registry.js';

/** Most channels one batched call may create or remove. */
export const MAX_BATCH = 64;

export interface ChannelSpec {
  bufferSize: number;
  owned: boolean;
  prefill: Buffer | undefined;
  /** A function the engine calls (void, `{channel_id}`) when the write end is taken. */
  notify: string | undefined;
}

export function objectInput(input: unknown, functionId: string): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw badInput(functionId, 'input must be a JSON object');
  return input as Record<string, unknown>;
}

/** `{buffer_size?, owned?, prefill?}` (the fields of `engine::channels::create`, or of one entry of `channels`). */
export function channelSpec(args: Record<string, unknown>, functionId: string, where = ''): ChannelSpec {
  const size = args['buffer_size'];
  if (size !== undefined && size !== null && (typeof size !== 'number' || !Number.isInteger(size) || size < 0)) {
    throw badInput(functionId, `${where}buffer_size must be a non-negative integer, got ${JSON.stringify(size)}`);
  }
  const owned = args['owned'];
  if (owned !== undefined && typeof owned !== 'boolean') {
    throw badInput(functionId, `${where}owned must be a boolean, got ${JSON.stringify(owned)}`);
  }
  const prefill = args['prefill'];
  if (prefill !== undefined && typeof prefill !== 'string') {
    throw badInput(functionId, `${where}prefill must be a base64 string`);
  }
  const notify = args['notify_function_id'];
  if (notify !== undefined && (typeof notify !== 'string' || notify === '')) {
    throw badInput(functionId, `${where}notify_function_id must be a function id`);
  }
  return {
    bufferSize: typeof size === 'number' ? size : DEFAULT_BUFFER_SIZE,
    owned: owned === true,
    prefill: typeof prefill === 'string' ? Buffer.from(prefill, 'base64') : undefined,
    notify: typeof notify === 'string' ? notify : undefined,
  };
}

/** The `channels` array of a batched call, or undefined when the call is not batched. */
export function batchOf(args: Record<string, unknown>, functionId: string): Record<string, unknown>[] | undefined {
  const list = args['channels'];
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH) {
    throw badInput(functionId, `channels must be an array of 1 to ${MAX_BATCH} objects`);
  }
  return list.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw badInput(functionId, `channels[${i}] must be an object`);
    }
    return entry as Record<string, unknown>;
  });
}

export function channelKey(args: Record<string, unknown>, functionId: string, where = ''): [string, string] {
  const id = args['channel_id'];
  const key = args['access_key'];
  if (typeof id !== 'string' || typeof key !== 'string') {
    throw badInput(functionId, `${where}channel_id and access_key must be strings`);
  }
  return [id, key];
}

export function badInput(functionId: string, message: string): InvocationError {
  return new InvocationError({
    code: 'deserialization_error',
    message: `${functionId}: ${message}`,
    function_id: functionId,
  });
}
