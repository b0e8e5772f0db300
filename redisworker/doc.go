// Package redisworker lends worker IDs from Redis: a uidgen.Leaser with the
// same contract as package worker's Leased and etcdworker's, for fleets that
// already run Redis and want no WORKER_NODE table.
//
//	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	defer c.Close() // deferred first, so it runs after g.Close
//	l, err := redisworker.NewLeased(redisworker.Config{Client: c})
//	g, err := cached.New(ctx, cached.Config{Leaser: l})
//	defer g.Close() // gives the ID back
//
// Config.Client is any redis.UniversalClient of github.com/redis/go-redis/v9:
// one server, a primary watched by Sentinels (redis.NewFailoverClient), or a
// Cluster. Give it ContextTimeoutEnabled, so that a renewal's context bounds
// its wait for a server that stopped answering. `uidgen workers -redis URL`
// shows a fleet as a table (func List). It logs nothing unless given a
// logger (Config.Logger). Read Config next for the fleet's prefix (such as
// "{orders}:"), the lease's TTL and horizon, and Replicas; then, below, what
// each deployment promises, before choosing one, and why two holders of an
// ID never use the same second.
//
// # Keys
//
// A fleet is a key prefix with a Redis Cluster hash tag (Config.Prefix,
// "{uidgen}:" by default), so its keys share one slot and several fleets
// share one deployment. `redis-cli --scan --pattern '{uidgen}:*'` lists them:
//
//	{uidgen}:reserved:7   1764012345
//	{uidgen}:held:7       {"host":"api-3","pid":4242,"since":"2026-11-24T19:05:00Z","token":"9f2c..."}
//	{uidgen}:ids          a sorted set of every ID ever leased
//
// reserved:ID holds the last Unix second reserved for the ID's holders, and
// is never deleted: it remembers the seconds earlier holders may have used.
// held:ID exists while a process holds the ID, under a millisecond TTL of
// Config.LeaseTTL that the holder restarts at each renewal; its value names
// the holder and carries a random token of the take's own. When the holder
// dies, or is cut off from Redis for a TTL, Redis deletes the key and the ID
// is free. Every write is a Lua script (scripts.go), which Redis runs as one
// step.
//
// The holder renews every third of the TTL, with one script, and, with
// Config.Replicas, one WAIT on the same connection. Each renewal reserves
// the horizon and a third of the TTL at the pace the holder asks for
// seconds, as the other stores' leases do, so a holder cut off from Redis
// goes on for Config.LeaseHorizon, and a holder that dies leaves its ID
// reserved up to that far ahead; the next holder of that ID starts above it.
//
// # What each deployment promises
//
// The proof below needs Redis to keep every reservation it acknowledged.
// Redis acknowledges a write before it is on disk or on a replica, so what
// holds depends on the deployment:
//
//   - One server with appendonly yes and appendfsync always: every write is
//     on disk before its answer. A crash, a SIGKILL or a power cut, and a
//     restart from the append-only file, keep every reservation: safe.
//   - appendfsync everysec (Redis's default with appendonly yes): a crash of
//     the Redis process keeps every write, which is in the kernel's buffers;
//     a crash of its machine loses up to the last second or two. A renewal
//     lost that way rolls the reservation back while its holder, on another
//     machine, goes on using the seconds it was told were reserved, and the
//     held key's TTL rolls back with it: a newcomer that takes the ID once
//     the older TTL runs out may start inside those seconds. Rare (a machine
//     crash, within a renewal's second), not impossible.
//   - A primary and replicas under Sentinel: replication is asynchronous, so
//     a promoted replica can lack the primary's last writes, with the same
//     effect as above, unless Config.Replicas makes every take and renewal
//     wait (WAIT) until that many replicas have it; set it to the number of
//     replicas a failover may promote from. A write the replicas do not
//     acknowledge within Config.ReplicaTimeout does not count: the take
//     fails, the renewal is tried again and the holder goes on within what
//     was reserved. WAIT does not make Redis strongly consistent (a replica
//     that acknowledged can still lose the write if it crashes before the
//     failover), so the deployment is as safe as its replicas' disks.
//   - No persistence: a restart forgets every held key and every
//     reservation. Live holders' IDs look free and never leased, a newcomer
//     starts at its clock, and a holder that borrowed ahead of the clock can
//     share its seconds. Never lease from a Redis without persistence.
//
// At its first lease, a Leased with a Logger reads INFO and CONFIG GET and
// warns of what the deployment shows it cannot keep: no append-only file,
// appendfsync other than always, fewer replicas connected than
// Config.Replicas, or replicas connected that Config.Replicas does not wait
// for.
//
// A Redis Cluster runs the scripts on the primary of the fleet's slot, and
// is as safe as that primary and its replicas: Config.Replicas sends each
// script and its WAIT to that primary, on one connection, as on a
// Sentinel-watched primary, and set to the shard's replicas it makes
// whichever the Cluster's own failover promotes hold every reservation the
// primary acknowledged. The warnings above are of that primary.
//
// # Why two holders of an ID never use the same second
//
// The guarantee: if holders h1 and then h2 hold worker ID w, every second
// h1 ever uses is below every second h2 uses. It rests on Redis running
// each script atomically, on the keys as every earlier script and every key
// expiry left them, and on keeping what it acknowledged (above). Clocks
// decide only when a held key expires (the server's) and which free ID
// looks cold (the holder's); a wrong clock costs churn, never a duplicate.
//
// A holder is known by its held key's value, whose token no other take
// shares. The invariant: every second that any holder of w, past or
// present, may still use is at most the value of reserved:w; and every
// second of the holder whose value held:w holds is at least its First().
// These steps keep it, each naming the test that fails without it: a
// subtest of TestLeaseConformance, the lease suite (leasetest.Run) on one
// server:
//
//  1. A holder uses second s only if s <= Reserved(), and Reserved() rises
//     to t only after renewScript, finding held:w holding its value, raised
//     reserved:w to at least t and its replicas acknowledged. While its key
//     holds its value no other script writes reserved:w (step 3 needs held:w
//     absent), so reserved:w holds at least what the holder may use.
//     renewScript never lowers reserved:w. (Set it to t alone:
//     TestLeaseConformance/ReservationNeverFalls sees reserved:w fall below
//     a reservation granted earlier when a later renewal asks for less, as
//     one does after an earlier renewal's answer was lost.)
//  2. Once held:w is gone (expired, or replaced by a new holder's), every
//     renewScript of the old holder finds another value or none and changes
//     nothing, and Reserved() stops for good. A holder paused or cut off
//     past its TTL can extend nothing when it comes back. (Renew without
//     comparing the value: TestLeaseConformance/Lost sees the old holder
//     extend the reservation under its successor.)
//  3. takeScript reads reserved:w, r, and writes held:w only if held:w is
//     absent, in the same step: r is the reservation at the instant of the
//     takeover, and from that instant every earlier holder's script changes
//     nothing (step 2), so by the invariant every second they may ever use
//     is at most r. (Read r in a step of its own before the take:
//     TestLeaseConformance/Concurrent sees a holder start at or below a
//     second its predecessor used, the ID having been taken, used and
//     released in between.)
//  4. The new holder starts at max(now, r + 1): above every second of the
//     earlier holders. (Start the holder at now alone:
//     TestLeaseConformance/StartsAboveReservation.)
//  5. freeScript, finding held:w holding the holder's value, sets
//     reserved:w to max(lastUsed, First()-1), which the holder computes,
//     and deletes held:w in one step.
//     Lowering the reservation is safe: the holder used nothing above
//     lastUsed, and the earlier holders nothing above r <= First()-1.
//     (Record lastUsed below First()-1: TestLeaseConformance/Release.)
//  6. An ID never leased has no reserved:w, and takeScript starts its holder
//     at the clock. This is why reserved: keys must never be deleted.
//
// A holder that finds its lease lost goes on using the seconds reserved
// before, which step 3 left below its successor's, and then Wait fails with
// uidgen.ErrLeaseLost. A holder cut off from Redis does the same with the
// client's error, keeps its lease if it comes back within the TTL, and
// renews again.
//
// Which free ID step 3 takes, and how far ahead step 1 reserves, change
// none of the above. A new holder takes the lowest free ID whose reservation
// has passed, or passes within ten seconds by its own clock, then the lowest
// ID never leased, and one still reserved ahead only when no other is free,
// the one whose reservation ends soonest (TestLeaseConformance/ColdFirst).
package redisworker
