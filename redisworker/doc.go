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
// logger (Config.Logger); with one, it warns at its first lease of what the
// deployment shows it cannot keep.
//
// A fleet is a key prefix with a Cluster hash tag (Config.Prefix, "{uidgen}:"
// by default), so its keys share one slot: reserved:ID holds the last Unix
// second reserved for the ID's holders and is never deleted; held:ID names
// the holder, with a random token, under a TTL of Config.LeaseTTL that each
// renewal restarts; ids is the set of every ID ever leased. Every write is
// a Lua script (scripts.go), which Redis runs as one step; with
// Config.Replicas, each take and renewal also WAITs for that many replicas.
//
// The promise: if holders h1 and then h2 hold worker ID w, every second h1
// ever uses is below every second h2 uses, as long as Redis keeps every
// reservation it acknowledged, which depends on the deployment: read
// docs/redis.md#what-each-deployment-promises before choosing one. The
// proof, with the scripts and WAIT, is in the repository's
// docs/design.md#redis-lua-scripts-and-wait.
package redisworker
