export { applyUpdateOps } from './apply.js';
export { parseUpdateOp, type ParsedUpdateOp } from './parse.js';
export {
  MAX_MERGE_VALUE_DEPTH,
  MAX_MERGE_VALUE_KEYS,
  MAX_PATH_DEPTH,
  MAX_SEGMENT_BYTES,
  PROTOTYPE_KEYS,
} from './checks.js';
export type { JsonObject, JsonValue, UpdateOp, UpdateOpError, UpdateOutcome } from './types.js';
