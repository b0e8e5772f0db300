package redisworker

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// DefaultPrefix is the key prefix of a fleet whose Config names none. Its
// braces are a Redis Cluster hash tag: every key of the fleet hashes to one
// slot, as a script that touches two of them needs.
const DefaultPrefix = "{uidgen}:"

// defaultReplicaTimeout is how long a reservation write waits for
// Config.Replicas to acknowledge it, where the Config names no time and
// the lease's TTL is 6 s or more; under a shorter TTL the default is a
// sixth of it, so that a WAIT ends within a renewal's own time limit.
const defaultReplicaTimeout = time.Second

// freePoll is how often LeaseWorkerID looks again when every ID is held: a
// released ID is free at once, an abandoned one after its TTL.
const freePoll = time.Second

// Errors, tested with errors.Is. Every error this package returns starts
// "redisworker: ", names the operation and the value at fault, and wraps the
// Redis client's own error where there is one. The sentinels it shares with
// the other stores are defined once in the root package: a Config this
// package cannot work with (a nil Client; a Prefix with a character other
// than a printable ASCII one, or a hash tag that is not the prefix's only
// one; a negative Replicas, or one asked of a Ring; a ReplicaTimeout or a
// lease time out of its limits) wraps uidgen.ErrConfig, naming the field,
// the value and the limits; a key under the prefix that does not hold what
// this package writes there (another program writes under the fleet's
// prefix) wraps uidgen.ErrBadKey. Where the contract is package worker's, so
// is the sentinel (uidgen.ErrNoFreeID, uidgen.ErrLeaseLost, ...), so a
// program that moves its fleet between stores matches the same errors.
var (
	// ErrReplicas: fewer replicas than Config.Replicas acknowledged a
	// reservation within Config.ReplicaTimeout.
	ErrReplicas = errors.New("replicas did not acknowledge")
)

// Config says which Redis deployment and which fleet in it. NewLeased and
// List take one; each reads the fields that concern it. Its zero value, but
// for Client, means the defaults.
type Config struct {
	// Client reaches the Redis deployment: a *redis.Client for one server,
	// a failover client (redis.NewFailoverClient) for a primary watched by
	// Sentinels, or a *redis.ClusterClient. Required. It stays the
	// caller's to close, after the last Lease is released.
	Client redis.UniversalClient

	// Prefix is the fleet's key prefix; empty means DefaultPrefix. Fleets
	// under other prefixes share the deployment. A prefix without a hash
	// tag ({...}) is put in one, so that in a Redis Cluster the fleet's
	// keys share a slot: "orders:" becomes "{orders:}".
	Prefix string

	// LeaseTTL is how long a lease lasts without renewal: 30 s if zero;
	// 1 s to 1 h. Redis keeps key TTLs to the millisecond, so any TTL from
	// a second up is the one the server keeps. The holder renews every
	// third of it, and a holder that died, or that is cut off from Redis,
	// keeps its ID from the fleet for at most about this long. Only
	// NewLeased reads it.
	LeaseTTL time.Duration

	// LeaseHorizon is how long a holder can go on without Redis: every
	// renewal reserves the seconds it will use over the horizon and a
	// third of the TTL at its current pace: 10 min if zero; 1 s to 24 h.
	// A Sentinel failover takes seconds to a minute, a server rebuilt from
	// its AOF after its machine died takes minutes. Only NewLeased reads
	// it.
	LeaseHorizon time.Duration

	// Replicas is how many replicas must acknowledge each reservation (WAIT)
	// before the holder counts on it: the number a failover may promote from.
	// Zero waits for none, safe only on a single server that syncs every
	// write to disk (appendfsync always); see docs/redis.md. Only NewLeased
	// reads it.
	Replicas int

	// ReplicaTimeout bounds each WAIT for Replicas, from a millisecond to
	// under a third of LeaseTTL (a renewal's own time limit); zero means a
	// second, or a sixth of LeaseTTL where that is less. A write not
	// acknowledged in time fails the take or the renewal (ErrReplicas),
	// which are tried again: the take every second until its context ends,
	// the renewal as any failing one.
	ReplicaTimeout time.Duration

	// WorkerIDs is the worker IDs a lease may take; the zero range means
	// every ID, 1 to the largest the generator's layout has. A fleet that
	// leases inside 512-1023 never touches 0-511, which another fleet may
	// hold (see uidgen.WorkerIDRange). Only NewLeased reads it.
	WorkerIDs uidgen.WorkerIDRange

	// Logger is where each leased and released worker ID is logged, at
	// level Info; lost leases, failing renewals and, at the first lease, a
	// deployment that cannot keep what the leases need, at level Warn. Nil
	// means nothing is logged.
	Logger *slog.Logger
}

// check returns cfg with its defaults filled in and its prefix tagged,
// without I/O. It fails, with an error wrapping uidgen.ErrConfig that names
// the field and the value, on a nil Client, a prefix that is not printable
// ASCII or holds a brace outside one hash tag, and a negative Replicas, one
// asked of a Ring, or a ReplicaTimeout out of its range.
func (cfg Config) check() (Config, error) {
	if cfg.Client == nil {
		return cfg, fmt.Errorf("redisworker: %w: Client is nil: want a redis.UniversalClient of the Redis deployment", uidgen.ErrConfig)
	}
	prefix, err := tagged(cmp.Or(cfg.Prefix, DefaultPrefix))
	if err != nil {
		return cfg, fmt.Errorf("redisworker: %w", err)
	}
	cfg.Prefix = prefix
	if cfg.Replicas < 0 {
		return cfg, fmt.Errorf("redisworker: %w: Replicas %d: want 0 or more", uidgen.ErrConfig, cfg.Replicas)
	}
	if _, ring := cfg.Client.(*redis.Ring); ring && cfg.Replicas > 0 {
		return cfg, fmt.Errorf("redisworker: %w: Replicas %d on a Redis Ring: want 0: "+
			"WAIT must reach the shard that ran the script, which a ring client does not route it to", uidgen.ErrConfig, cfg.Replicas)
	}
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, leasing.DefaultTTL)
	cfg.LeaseHorizon = cmp.Or(cfg.LeaseHorizon, leasing.DefaultHorizon)
	// ReplicaTimeout's default and limit follow LeaseTTL, so only a LeaseTTL
	// within its limits sizes them; one outside is NewLeased's error, which
	// names LeaseTTL rather than the ReplicaTimeout it would have misjudged.
	if leasing.CheckRange("LeaseTTL", cfg.LeaseTTL, leasing.MinTTL, leasing.MaxTTL) == nil {
		cfg.ReplicaTimeout = cmp.Or(cfg.ReplicaTimeout, min(defaultReplicaTimeout, cfg.LeaseTTL/6))
		if cfg.ReplicaTimeout < time.Millisecond || cfg.ReplicaTimeout >= cfg.LeaseTTL/3 {
			return cfg, fmt.Errorf("redisworker: %w: ReplicaTimeout %v: want 1ms to under a third of LeaseTTL (%s)",
				uidgen.ErrConfig, cfg.ReplicaTimeout, defaults.Duration(cfg.LeaseTTL/3))
		}
	}
	return cfg, nil
}

// tagged returns prefix with a hash tag: as it is when it holds one pair of
// braces around a non-empty tag, and wrapped in braces when it holds none.
func tagged(prefix string) (string, error) {
	for _, r := range prefix {
		if r < ' ' || r > '~' {
			return "", fmt.Errorf("%w: Prefix %q holds %q, want printable ASCII", uidgen.ErrConfig, prefix, r)
		}
	}
	open, close := strings.Count(prefix, "{"), strings.Count(prefix, "}")
	switch {
	case open == 0 && close == 0:
		return "{" + prefix + "}", nil
	case open == 1 && close == 1 && strings.Index(prefix, "{")+1 < strings.Index(prefix, "}"):
		return prefix, nil
	}
	return "", fmt.Errorf("%w: Prefix %q: want one hash tag {...} around a non-empty tag, or no brace at all", uidgen.ErrConfig, prefix)
}

// The keys of a fleet under its tagged prefix.
func reservedKey(prefix string, id int64) string { return fmt.Sprintf("%sreserved:%d", prefix, id) }
func heldKey(prefix string, id int64) string     { return fmt.Sprintf("%sheld:%d", prefix, id) }
func idsKey(prefix string) string                { return prefix + "ids" }
