import { z } from 'zod';
import {
  InvocationError,
  MAX_VALUE_DEPTH,
  nestedDeeperThan,
  parseUpdateOp,
  type SvcClient,
  type UpdateOp,
} from '@svc/sdk';
import type { StreamAdapter } from './adapters/types.js';
import { nameFits, TOO_DEEP_MESSAGE, tooLongMessage } from './limits.js';
import { wrap, type StreamWrapperMessage } from './messages.js';
import type { StreamStore } from './store.js';
import { StreamErrorCode } from './error-codes.js';

/** Most ops in one `stream::update` (as `state::update`). */
const MAX_OPS = 1000;

/** A non-empty name of at most MAX_NAME_BYTES bytes; the error names the field. */
const name = (field: string) =>
  z
    .string()
    .min(1)
    .refine(nameFits, { message: tooLongMessage(field) });
const groupInput = z.object({ stream_name: name('stream_name'), group_id: name('group_id') });
const itemInput = groupInput.extend({ item_id: name('item_id') });
/** An item's or an event's data: any JSON, nested at most MAX_VALUE_DEPTH levels. */
const data = z.unknown().refine((value) => !nestedDeeperThan(value, MAX_VALUE_DEPTH), { message: TOO_DEEP_MESSAGE });
const setInput = itemInput.extend({ data });
/** One op, checked by the SDK's rules (the same as `state::update`); a malformed op fails the whole call. */
const updateOp = z.unknown().transform((raw, ctx): UpdateOp => {
  const parsed = parseUpdateOp(raw);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  }
  if ('value' in parsed.op && nestedDeeperThan(parsed.op.value, MAX_VALUE_DEPTH)) {
    ctx.addIssue({ code: 'custom', message: `value ${TOO_DEEP_MESSAGE}` });
    return z.NEVER;
  }
  return parsed.op;
});
const updateInput = itemInput.extend({ ops: z.array(updateOp).max(MAX_OPS) });
const listGroupsInput = z.object({ stream_name: name('stream_name') });
const sendInput = groupInput.extend({
  id: z
    .string()
    .refine(nameFits, { message: tooLongMessage('id') })
    .nullish(),
  type: name('type'),
  data,
});

function parse<S extends z.ZodType>(functionId: string, schema: S, payload: unknown): z.output<S> {
  const result = schema.safeParse(payload ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
  throw new InvocationError({
    code: StreamErrorCode.InvalidInput,
    message: `${functionId}: ${problems}`,
    function_id: functionId,
  });
}

/** Keeps a stable code (`stream_adapter_closed`, `stream_update_conflict`, ...) on the wire for the caller. */
function withCode(functionId: string, error: unknown): unknown {
  if (error instanceof InvocationError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[a-z][a-z0-9_.]*$/.test(code)) return error;
  return new InvocationError({ code, message: error.message, function_id: functionId });
}

const itemKey = (i: z.output<typeof itemInput>) => ({
  stream_name: i.stream_name,
  group_id: i.group_id,
  item_id: i.item_id,
});

/**
 * Registers the `stream::*` functions (docs/protocol.md §4). Every write hands its change event to `onChange` (the
 * local `stream` triggers); the adapter's feed takes it to the clients of every process.
 */
export function registerStreamFunctions(
  client: SvcClient,
  store: StreamStore,
  adapter: StreamAdapter,
  onChange: (message: StreamWrapperMessage) => void,
): void {
  const fn = <S extends z.ZodType>(id: string, schema: S, handler: (input: z.output<S>) => Promise<unknown>) => {
    client.registerFunction(id, async (payload: unknown) => {
      try {
        return await handler(parse(id, schema, payload));
      } catch (error) {
        throw withCode(id, error);
      }
    });
  };

  fn('stream::get', itemInput, (i) => store.get(itemKey(i)));

  fn('stream::set', setInput, async (i) => {
    const { message, ...result } = await store.set(itemKey(i), i.data ?? null);
    if (message) onChange(message);
    return result;
  });

  fn('stream::delete', itemInput, async (i) => {
    const { message, old_value } = await store.delete(itemKey(i));
    if (message) onChange(message);
    return { old_value };
  });

  fn('stream::update', updateInput, async (i) => {
    const { message, errors, ...result } = await store.update(itemKey(i), i.ops);
    if (message) onChange(message);
    return errors.length > 0 ? { ...result, errors } : result;
  });

  fn('stream::list', groupInput, (i) => store.list(i.stream_name, i.group_id));

  fn('stream::list_groups', listGroupsInput, (i) => store.listGroups(i.stream_name));

  fn('stream::list_all', z.object({}).loose(), async () => {
    const streams = await adapter.listAll();
    return { stream: streams, count: streams.length };
  });

  fn('stream::send', sendInput, async (i) => {
    const message = wrap(i.stream_name, i.group_id, i.id ?? null, {
      type: 'event',
      event: { type: i.type, data: i.data ?? null },
    });
    await store.publish(message);
    onChange(message);
    return undefined;
  });
}
