/**
 * Lua scripts of the Redis store. Each runs atomically in Redis: it reads the old value and writes the new one in
 * one step, so `old_value` is exact. Keys, unless a script says otherwise: KEYS[1] = the scope's hash, KEYS[2] = the
 * set of scopes.
 */

/** ARGV: scope, key. Returns the old JSON or false (then nothing changed). */
export const DELETE_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[2])
if not old then return false end
redis.call('HDEL', KEYS[1], ARGV[2])
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return old
`;

/**
 * Compare-and-set. ARGV: scope, key, '1' if the key is expected to exist else '0', the expected old JSON (or ''),
 * the new JSON. Returns 1 when written, 0 when the current value differs (the caller retries).
 */
export const CAS_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[2])
if ARGV[3] == '1' then
  if cur ~= ARGV[4] then return 0 end
elseif cur then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`;

/**
 * One or more writes in their order, in one step. KEYS[1] = the set of scopes, KEYS[i + 1] = the hash of write i;
 * ARGV: scope, key, new JSON of each write in turn. Returns the old JSON (or false) of each write. Each scope is
 * added to the set of scopes once per call, at its first write: an `SADD` at every write cost Redis about 0.5 µs
 * more CPU per write at the state benchmark's batches of ~20 writes in one scope.
 */
export const SET_MANY_SCRIPT = `
local olds = {}
local listed = {}
for i = 1, #KEYS - 1 do
  local scope = ARGV[3 * i - 2]
  local key = ARGV[3 * i - 1]
  olds[i] = redis.call('HGET', KEYS[i + 1], key)
  redis.call('HSET', KEYS[i + 1], key, ARGV[3 * i])
  if not listed[scope] then
    redis.call('SADD', KEYS[1], scope)
    listed[scope] = true
  end
end
return olds
`;

/**
 * Writes in one scope (a turn's usual run), in their order, in one step: KEYS[1] = the set of scopes, KEYS[2] = the
 * scope's hash; ARGV: the scope, then key and new JSON of each write in turn. Returns the old JSON (or false) of each
 * write. Half the arguments of `SET_MANY_SCRIPT` for such a run (the hash and the scope are not repeated per write),
 * which is what the caller's client and Redis spend their time on per write.
 *
 * The run's old values come from one `HMGET` and its writes go as one `HSET` (fields in order: a key written twice
 * keeps its last value), three commands per run instead of two per write. A key written earlier in the run answers
 * that write's JSON as its old value, as a write-by-write run would. `unpack` takes at most 2 × `MAX_BATCH` values
 * (redis.ts), far below Lua's stack limit.
 */
export const SET_SCOPE_SCRIPT = `
local n = (#ARGV - 1) / 2
local keys = {}
for i = 1, n do keys[i] = ARGV[2 * i] end
local olds = redis.call('HMGET', KEYS[2], unpack(keys))
local written = {}
for i = 1, n do
  local key = keys[i]
  local earlier = written[key]
  if earlier then olds[i] = earlier end
  written[key] = ARGV[2 * i + 1]
end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('SADD', KEYS[1], ARGV[1])
return olds
`;

/** Several reads in one step. KEYS[i] = the hash of read i, ARGV[i] = its key. Returns each JSON (or false). */
export const GET_MANY_SCRIPT = `
local values = {}
for i = 1, #KEYS do
  values[i] = redis.call('HGET', KEYS[i], ARGV[i])
end
return values
`;
