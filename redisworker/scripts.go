package redisworker

import "github.com/redis/go-redis/v9"

// The Lua scripts: Redis runs each as one atomic step, which no other
// command interleaves and which key expiry does not split. docs/design.md's
// proof names each by its step.

// acquireScript acquires worker ID ARGV[5] if it is free: no held key
// (KEYS[1]). The holder starts at ARGV[3], the taker's clock, or above
// the reservation (KEYS[2]) read in the same step, whichever is later; the
// script reserves ARGV[4] seconds past the start, writes the held key
// (ARGV[1], the holder's value) under a TTL of ARGV[2] milliseconds, and
// adds the ID to the fleet's set (KEYS[3]). It returns {start, reserved},
// or false when the ID is held.
var acquireScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local start = tonumber(ARGV[3])
local r = redis.call('GET', KEYS[2])
if r then start = math.max(start, tonumber(r) + 1) end
local reserved = start + tonumber(ARGV[4])
redis.call('SET', KEYS[2], string.format('%d', reserved))
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[5])
return {start, reserved}
`)

// renewScript renews the lease while the held key (KEYS[1]) still holds
// this holder's value (ARGV[1]): it restarts the key's TTL at ARGV[2]
// milliseconds and raises the reservation (KEYS[2]) to ARGV[3] if it is
// lower, never lowering it. It returns 1, or 0 when the key is gone or
// another holder's.
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[3]) > cur then redis.call('SET', KEYS[2], ARGV[3]) end
return 1
`)

// freeScript gives the ID back while the held key (KEYS[1]) still holds
// this holder's value (ARGV[1]): it sets the reservation (KEYS[2]) to
// ARGV[2], the last second used, and deletes the held key. It returns 1,
// or 0 when the key is gone or another holder's.
var freeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
return 1
`)

// dropScript deletes the held key (KEYS[1]) while it still holds this
// holder's value (ARGV[1]), leaving the reservation as it is: a take the
// replicas never acknowledged gives its ID back this way. It returns 1, or
// 0 when the key is gone or another holder's.
var dropScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// fleetScript reads the fleet under the prefix ARGV[1] in one step: for
// each ID in its set (KEYS[1]), lowest first, the ID, its reservation, its
// held key's value (empty when free) and that key's TTL in milliseconds. The
// keys it reads share the set's hash tag, so they share its slot.
var fleetScript = redis.NewScript(`
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local held = redis.call('GET', ARGV[1] .. 'held:' .. id)
  out[#out + 1] = id
  out[#out + 1] = redis.call('GET', ARGV[1] .. 'reserved:' .. id) or ''
  out[#out + 1] = held or ''
  out[#out + 1] = held and redis.call('PTTL', ARGV[1] .. 'held:' .. id) or -2
end
return out
`)
