/**
 * Lua scripts of the Redis lease store (./lease-store.ts). Every operation that
 * reads and then writes is one script, so Redis runs it atomically: no other client's command
 * runs between its read and its write. Kept as TypeScript strings so the build has nothing to
 * copy; each is sent once with SCRIPT LOAD (`migrate`) and run by SHA1 (EVALSHA), falling back
 * to EVAL when the server has forgotten it (a restart or SCRIPT FLUSH).
 *
 * Keys, under the namespace prefix P (`NAME:`):
 *
 *   P lease:<id>    hash {instanceId, host, pid, startedAtMs, lastIssuedMs?, clockMs,
 *                   storeClockMs, grantMarkMs?}, expiring by PEXPIRE: the lease; gone when it
 *                   expires. grantMarkMs: the mark when it was granted, the release's floor
 *   P mark:<id>     string, unix ms, no TTL: the worker ID's clock high-water mark
 *   P claims:<id>   sorted set, member instanceId, score expiry (unix ms, server clock);
 *                   the key itself expires with its latest claim
 *   P index         sorted set of worker IDs that may hold a lease (member = score = ID), so
 *                   `list` never scans the keyspace; stale members are removed by `list`
 *
 * Times come from `redis.call('TIME')`, the server's clock; Redis 5 and later replicate the
 * effects of a script rather than the script, so reading the clock before writing is allowed.
 * Numbers travel as decimal strings formatted with `%.0f` (Lua 5.1's `tostring` switches to
 * exponent notation past 14 digits).
 */
import { createHash } from 'node:crypto';

/** A script's source and its SHA1, the name EVALSHA runs it by. */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

function script(name: string, body: string): LuaScript {
  const source = PRELUDE + body;
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Shared helpers: the server clock in ms, integer formatting, and the claim write. */
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n)
  return string.format('%.0f', math.ceil(n))
end
local function raise_mark(key, reserve)
  local prev = redis.call('GET', key)
  local mark = reserve
  if prev and tonumber(prev) > mark then mark = tonumber(prev) end
  redis.call('SET', key, int(mark))
  return prev, int(mark)
end
local function write_claim(key, instance_id, expires_at, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now))
  redis.call('ZADD', key, int(expires_at), instance_id)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', key, int(tonumber(last[2])))
end
`;

/**
 * Grants the lowest worker ID in [min, max] whose lease key is absent (Redis deletes an expired
 * key when it is looked up, so an expired lease counts as absent).
 * ARGV: prefix, min, max, ttlMs, instanceId, host, pid, startedAtMs, clockMs, reserveMarkMs.
 * Returns false when every ID is held, else {workerId, previousMark or false, mark}.
 *
 * The scan costs one EXISTS per held ID before the first free one and stops there: O(range) in
 * the worst case, when a full 0..65535 sonyflake range is held (about 60 ms of server time on
 * a laptop, during which Redis serves nobody else). The loop concatenates `i` directly: worker
 * IDs are far below 10^14, where Lua 5.1 would print a number in exponent form, and formatting
 * each one with string.format costs half as much again.
 */
export const ACQUIRE = script(
  'acquire',
  `
local p = ARGV[1]
local id = nil
for i = tonumber(ARGV[2]), tonumber(ARGV[3]) do
  if redis.call('EXISTS', p .. 'lease:' .. i) == 0 then
    id = i
    break
  end
end
if id == nil then return false end
local now = now_ms()
local ttl = tonumber(ARGV[4])
local lease = p .. 'lease:' .. id
redis.call('HSET', lease, 'instanceId', ARGV[5], 'host', ARGV[6], 'pid', ARGV[7],
  'startedAtMs', ARGV[8], 'clockMs', ARGV[9], 'storeClockMs', int(now))
redis.call('PEXPIRE', lease, int(ttl))
redis.call('ZADD', p .. 'index', id, id)
local prev, mark = raise_mark(p .. 'mark:' .. id, tonumber(ARGV[10]))
if prev then redis.call('HSET', lease, 'grantMarkMs', prev) end
write_claim(p .. 'claims:' .. id, ARGV[5], now + ttl, now)
return {id, prev, mark}
`,
);

/**
 * Extends the lease, records the report and raises the mark, only if the lease key still names
 * this instance; then extends its claim. Lists live claimants in every case.
 * KEYS: lease, mark, claims. ARGV: instanceId, ttlMs, reserveMarkMs, clockMs, lastIssuedMs
 * ('' for none). Returns {held (1 or 0), {claimant instance IDs}}.
 */
export const RENEW = script(
  'renew',
  `
local now = now_ms()
local held = redis.call('HGET', KEYS[1], 'instanceId') == ARGV[1]
if held then
  local ttl = tonumber(ARGV[2])
  redis.call('PEXPIRE', KEYS[1], int(ttl))
  redis.call('HSET', KEYS[1], 'clockMs', ARGV[4], 'storeClockMs', int(now))
  if ARGV[5] == '' then
    redis.call('HDEL', KEYS[1], 'lastIssuedMs')
  else
    redis.call('HSET', KEYS[1], 'lastIssuedMs', ARGV[5])
  end
  raise_mark(KEYS[2], tonumber(ARGV[3]))
  write_claim(KEYS[3], ARGV[1], now + ttl, now)
else
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', int(now))
end
return {held and 1 or 0, redis.call('ZRANGE', KEYS[3], 0, -1)}
`,
);

/**
 * Deletes the lease if it still names this instance and then sets the mark exactly (when a final
 * mark is given), but never below the mark found at grant (which guards earlier holders' IDs);
 * removes this instance's claim in every case. Idempotent.
 * KEYS: lease, mark, claims, index. ARGV: instanceId, finalMarkMs ('' for none), workerId.
 */
export const RELEASE = script(
  'release',
  `
if redis.call('HGET', KEYS[1], 'instanceId') == ARGV[1] then
  local floor = redis.call('HGET', KEYS[1], 'grantMarkMs')
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[4], ARGV[3])
  if ARGV[2] ~= '' then
    local mark = tonumber(ARGV[2])
    if floor and tonumber(floor) > mark then mark = tonumber(floor) end
    redis.call('SET', KEYS[2], int(mark))
  end
end
redis.call('ZREM', KEYS[3], ARGV[1])
return 0
`,
);

/**
 * Live leases in worker-ID order, read in one snapshot; drops index members whose lease is gone.
 * KEYS: index. ARGV: prefix. Returns one array per lease: {workerId, instanceId, host, pid,
 * startedAtMs, expiresAtMs, mark, lastIssuedMs, clockMs, storeClockMs}, false where absent.
 */
export const LIST = script(
  'list',
  `
local p = ARGV[1]
local now = now_ms()
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local lease = p .. 'lease:' .. id
  local ttl = redis.call('PTTL', lease)
  if ttl == -2 then
    redis.call('ZREM', KEYS[1], id)
  elseif ttl >= 0 then
    local f = redis.call('HMGET', lease, 'instanceId', 'host', 'pid', 'startedAtMs',
      'lastIssuedMs', 'clockMs', 'storeClockMs')
    out[#out + 1] = {id, f[1], f[2], f[3], f[4], int(now + ttl),
      redis.call('GET', p .. 'mark:' .. id), f[5], f[6], f[7]}
  end
end
return out
`,
);

/** Every script, for SCRIPT LOAD. */
export const SCRIPTS: readonly LuaScript[] = [ACQUIRE, RENEW, RELEASE, LIST];
