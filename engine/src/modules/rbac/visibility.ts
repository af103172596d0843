/**
 * What a session may see of the registry: `engine::functions::list` lists only the functions it may call, and
 * `engine::functions::info` answers `FORBIDDEN` for one it may not (in a batch: `{function_id, error: "forbidden"}`).
 */
import type { ErrorBody, InvokeFunction } from '@svc/sdk';
import type { RbacConfig } from '@svc/config';
import type { RbacHost } from './host.js';
import { checkCall, type Session } from './policy.js';

const LIST = 'engine::functions::list';
const INFO = 'engine::functions::info';

export const VISIBILITY_FILTERED: ReadonlySet<string> = new Set([LIST, INFO]);

type Answer = (result: unknown, error: ErrorBody | undefined) => void;
type Row = { function_id?: unknown };

export function filterVisible(
  session: Session,
  rbac: RbacConfig,
  host: RbacHost,
  msg: InvokeFunction,
  answer: Answer,
): void {
  const visible = (id: unknown): boolean =>
    typeof id === 'string' && checkCall(session, rbac, id, host.functionMetadata(id)).allowed;
  const single = (msg.data as { function_id?: unknown } | null | undefined)?.function_id;
  if (msg.function_id === INFO && typeof single === 'string' && !visible(single)) {
    return answer(undefined, { code: 'FORBIDDEN', message: `Function '${single}' is not visible to this session.` });
  }
  void host.call(msg.function_id, msg.data, { timeoutMs: msg.timeout_ms }).then(({ result, error }) => {
    const rows = (result as { functions?: unknown } | undefined)?.functions;
    if (error !== undefined || !Array.isArray(rows)) return answer(result, error);
    const functions =
      msg.function_id === LIST
        ? rows.filter((row: Row) => visible(row.function_id))
        : rows.map((row: Row) =>
            visible(row.function_id) ? row : { function_id: row.function_id, error: 'forbidden' },
          );
    answer({ ...(result as object), functions }, undefined);
  });
}
