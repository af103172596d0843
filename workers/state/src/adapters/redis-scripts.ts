/**
 * Lua scripts of the Redis store. Each runs atomically in Redis: it reads the old value, writes the new one and
 * appends the change to the shared change stream in one step, so `old_value` is exact and the stream order is the
 * commit order. Keys: KEYS[1] = the scope's hash, KEYS[2] = the set of scopes, KEYS[3] = the change stream.
 * Stream fields: e = event type, s = scope, k = key, o = old JSON (absent when created), n = new JSON (absent when
 * deleted).
 */

/** ARGV: scope, key, new JSON, stream max length. Returns the old JSON or false. */
export const SET_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
if old then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'e', 'state:updated', 's', ARGV[1], 'k', ARGV[2], 'o', old, 'n', ARGV[3])
else
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'e', 'state:created', 's', ARGV[1], 'k', ARGV[2], 'n', ARGV[3])
end
return old
`;

/** ARGV: scope, key, stream max length. Returns the old JSON or false (then nothing changed). */
export const DELETE_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[2])
if not old then return false end
redis.call('HDEL', KEYS[1], ARGV[2])
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'e', 'state:deleted', 's', ARGV[1], 'k', ARGV[2], 'o', old)
return old
`;

/**
 * Compare-and-set. ARGV: scope, key, '1' if the key is expected to exist else '0', the expected old JSON (or ''),
 * the new JSON, stream max length. Returns 1 when written, 0 when the current value differs (the caller retries).
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
if cur then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'e', 'state:updated', 's', ARGV[1], 'k', ARGV[2], 'o', cur, 'n', ARGV[5])
else
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'e', 'state:created', 's', ARGV[1], 'k', ARGV[2], 'n', ARGV[5])
end
return 1
`;
