/**
 * The shapes of `state::update` / `stream::update` operations (docs/protocol.md `UpdateOp`) and of their outcome.
 * One definition for every worker that applies them, so both functions keep the same rules and error codes.
 */

/** Plain JSON, as decoded from the wire or a store. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

/**
 * `set`, `increment`, `decrement` and `remove` take one first-level field name (`""` = the whole value; a dot is part
 * of the name). `merge` and `append` take a field name or an array of segments walked from the root (`undefined` or
 * `""` = the root).
 */
export type UpdateOp =
  | { type: 'set'; path: string; value: JsonValue }
  | { type: 'merge'; path: string | string[] | undefined; value: JsonValue }
  | { type: 'increment'; path: string; by: number }
  | { type: 'decrement'; path: string; by: number }
  | { type: 'append'; path: string | string[] | undefined; value: JsonValue }
  | { type: 'remove'; path: string };

/** One op that could not apply: it was skipped, the others still applied. `code` is stable snake_case. */
export interface UpdateOpError {
  op_index: number;
  code: string;
  message: string;
}

export interface UpdateOutcome {
  value: JsonValue;
  errors: UpdateOpError[];
  /** False when no op applied (every op failed, or there were none): nothing should be written or announced. */
  changed: boolean;
}
