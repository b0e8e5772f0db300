package redisworker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// Leased is a uidgen.Leaser that keeps its leases in Redis, under one
// fleet's key prefix: it lends each process the lowest free worker ID for as
// long as the process renews it, and takes it back on Release or when the
// holder's held key expires. docs/design.md proves that two holders of one
// ID never use the same second.
//
// A Leased holds nothing of its own but a record of whether it has looked
// at the deployment yet, and is safe for concurrent use.
type Leased struct {
	c              redis.UniversalClient
	prefix         string // tagged
	timing         leasing.Timing
	ids            uidgen.WorkerIDRange
	replicas       int
	replicaTimeout time.Duration
	logger         *slog.Logger // nil: quiet
	host           string

	inspect sync.Once // logs what the deployment promises, at the first lease

	// Replaced by tests. now sizes reservations, judges which free ID is
	// cold, stamps the held key and starts a new holder; it never decides
	// whether a lease expired, which the server's clock does.
	now  func() time.Time
	poll time.Duration // freePoll
}

// NewLeased returns a Leased that keeps its leases in cfg's fleet. It sends
// nothing yet. It fails, with an error wrapping uidgen.ErrConfig that names
// the field, the value and the limits, on a nil Client, a bad Prefix, a bad
// Replicas or ReplicaTimeout, and a LeaseTTL or a LeaseHorizon outside the
// limits Config gives, and on WorkerIDs that start below 1 or are empty.
func NewLeased(cfg Config) (*Leased, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if err := leasing.CheckConfig(c.LeaseTTL, c.LeaseHorizon, leasing.MinTTL, c.WorkerIDs); err != nil {
		return nil, fmt.Errorf("redisworker: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return &Leased{c: c.Client, prefix: c.Prefix, timing: leasing.NewTiming(c.LeaseTTL, c.LeaseHorizon), ids: c.WorkerIDs,
		replicas: c.Replicas, replicaTimeout: c.ReplicaTimeout, logger: c.Logger, host: host,
		now: time.Now, poll: freePoll}, nil
}

var _ uidgen.Leaser = (*Leased)(nil)

// LeaseWorkerID leases the lowest free worker ID of Config.WorkerIDs, by
// default [1, maxWorkerID] (see docs/design.md for which comes first), and
// starts the goroutine that renews it, which runs until Release.
//
// When every ID of the range is held it looks again every second until one
// comes free or ctx ends; then it fails with an error wrapping
// uidgen.ErrNoFreeID and ctx.Err() that names the range (under a ctx with no
// deadline, after one lease TTL, with uidgen.ErrNoFreeID alone). A Redis that
// does not answer is asked again every second until ctx ends, and the error
// names its last failure. It fails with uidgen.ErrConfig for a maxWorkerID
// below 1 or a range that ends above it, before it sends anything, with uidgen.ErrBadKey when a key of the fleet is
// not this package's, and with an error wrapping ErrReplicas and ctx.Err() when
// no take the replicas acknowledged landed before ctx ended: a failover that
// leaves fewer replicas than Config.Replicas stops new leases until enough
// replicas are back.
func (l *Leased) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	op := "lease a worker ID under " + l.prefix
	if err := leasing.CheckMaxWorkerID(maxWorkerID); err != nil {
		return nil, fmt.Errorf("redisworker: %s: %w", op, err)
	}
	lo, hi, err := l.ids.Bounds(maxWorkerID)
	if err != nil {
		return nil, fmt.Errorf("redisworker: %s: %w", op, err)
	}
	if l.logger != nil {
		l.inspect.Do(func() { l.warnDurability(ctx) })
	}
	lease, err := l.leaseID(ctx, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("redisworker: %s: %w", op, err)
	}
	return lease, nil
}

// leaseID takes the ID leasing.Choose picks until a take succeeds, waiting
// for one to come free while every ID in [lo, hi] is held. A request that fails (a
// failover under way, a server restarting) is tried again every poll until
// ctx ends.
func (l *Leased) leaseID(ctx context.Context, lo, hi int64) (*lease, error) {
	return leasing.Acquire(ctx, leasing.Retry{
		Poll:     l.poll,
		NoFreeID: uidgen.ErrNoFreeID,
		FullFor:  l.timing.TTL,
		Fatal:    func(err error) bool { return errors.Is(err, uidgen.ErrBadKey) },
		Unanswered: func(last, ctxErr error) error {
			switch {
			case errors.Is(last, ErrReplicas):
				return last // it names ctx's end
			case leasing.Cut(last):
				return fmt.Errorf("no answer from Redis: %w", ctxErr)
			}
			return fmt.Errorf("Redis: %w (%w)", last, ctxErr)
		},
	}, lo, hi, func(ctx context.Context) (*lease, error) { return l.leaseOnce(ctx, lo, hi) })
}

// leaseOnce reads the fleet and takes the ID leasing.Choose picks. It
// returns nil and no error when another process took that ID first, and
// leasing.ErrFull when every ID in [lo, hi] is held.
func (l *Leased) leaseOnce(ctx context.Context, lo, hi int64) (*lease, error) {
	now := l.now() // a lease waited for starts from the time it is taken
	states, err := readFleet(ctx, l.c, l.prefix)
	if err != nil {
		return nil, leasing.Unread{Err: err}
	}
	candidates := make([]leasing.Candidate, len(states))
	for i, s := range states {
		candidates[i] = leasing.Candidate{ID: s.id, Reserved: s.reserved, Held: s.held}
	}
	id, ok := leasing.Choose(candidates, now, lo, hi)
	if !ok {
		return nil, leasing.ErrFull
	}
	return l.acquire(ctx, id, now)
}

// acquire leases worker ID id with acquireScript, which starts the holder above
// the reservation it reads in the same step, and returns its lease,
// started; or nil when the ID is held.
func (l *Leased) acquire(ctx context.Context, id int64, now time.Time) (*lease, error) {
	token := make([]byte, 16)
	rand.Read(token)
	value, err := json.Marshal(holder{Host: l.host, PID: os.Getpid(), Since: now.UTC().Truncate(time.Second),
		Token: hex.EncodeToString(token)})
	if err != nil {
		return nil, err
	}
	ahead := leasing.FirstReservation(now.Unix(), now, l.timing.Ahead) - now.Unix()
	s := &keyStore{l: l, id: id, held: heldKey(l.prefix, id), reserved: reservedKey(l.prefix, id), value: string(value)}
	res, err := l.write(ctx, acquireScript, []string{s.held, s.reserved, idsKey(l.prefix)},
		s.value, l.timing.TTL.Milliseconds(), now.Unix(), ahead, id)
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil && !errors.Is(err, ErrReplicas) {
		return nil, fmt.Errorf("take worker ID %d: %w", id, err)
	}
	pair, ok := res.([]any)
	var first, reserved int64
	if ok && len(pair) == 2 {
		first, ok = pair[0].(int64)
		reserved, _ = pair[1].(int64)
	}
	if !ok || reserved < first {
		return nil, fmt.Errorf("%w: taking worker ID %d returned %v, want {first, reserved}", uidgen.ErrBadKey, id, res)
	}
	if err != nil {
		if err := s.acknowledge(ctx, reserved, err); err != nil {
			return nil, fmt.Errorf("take worker ID %d: %w", id, err)
		}
	}
	if l.logger != nil {
		l.logger.InfoContext(ctx, "redisworker: leased worker ID", "id", id, "prefix", l.prefix,
			"first", first, "reserved", reserved)
	}
	return &lease{leasing.Start(leasing.Params{Pkg: "redisworker", Where: l.prefix, ID: id, First: first,
		LeasedAt: now, Reserved: reserved, Timing: l.timing,
		Now: l.now, Logger: l.logger, Released: uidgen.ErrReleased}, s)}, nil
}

// write runs script and, where Config.Replicas asks, WAITs for the
// replicas in the same pipeline: one connection, so WAIT counts the
// script's writes. On a Cluster the pipeline goes to the primary of the
// fleet's slot, which runs the script, and a failure makes the client
// read the Cluster's slots again, so that the next try finds a primary
// promoted meanwhile. It returns the script's result, redis.Nil for a nil
// reply, and an error wrapping ErrReplicas, with the script's result,
// when too few replicas acknowledged in time.
func (l *Leased) write(ctx context.Context, script *redis.Script, keys []string, args ...any) (any, error) {
	if l.replicas == 0 {
		return script.Run(ctx, l.c, keys, args...).Result()
	}
	primary, err := l.primary(ctx)
	if err != nil {
		return nil, err
	}
	var eval *redis.Cmd
	var wait *redis.Cmd
	_, err = primary.Pipelined(ctx, func(p redis.Pipeliner) error {
		eval = script.Eval(ctx, p, keys, args...)
		wait = p.Do(ctx, "WAIT", l.replicas, l.replicaTimeout.Milliseconds())
		return nil
	})
	if cluster, ok := l.c.(*redis.ClusterClient); ok && err != nil && !errors.Is(err, redis.Nil) {
		cluster.ReloadState(ctx)
	}
	if err := eval.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if acked, _ := wait.Int64(); acked < int64(l.replicas) {
		return eval.Val(), fmt.Errorf("%w: %d of %d replicas within %v", ErrReplicas, acked, l.replicas, l.replicaTimeout)
	}
	return eval.Val(), nil
}

// primary returns the server that runs the fleet's scripts: the client
// itself, or on a Cluster the primary of the fleet's slot, where a command
// without a key (WAIT, INFO) must go by name.
func (l *Leased) primary(ctx context.Context) (redis.Cmdable, error) {
	cluster, ok := l.c.(*redis.ClusterClient)
	if !ok {
		return l.c, nil
	}
	return cluster.MasterForKey(ctx, idsKey(l.prefix))
}

// acknowledge waits, after a take the replicas did not acknowledge, until
// they do: every poll it renews the lease to reserved with WAIT, a write
// behind the take's in the replication stream, so a replica that has it
// has the take. When ctx ends first it gives the ID back (dropScript),
// keeping the reservation the take wrote, which is safe to keep and may
// not be lowered unacknowledged, and fails with an error wrapping
// ErrReplicas and ctx.Err(); unacked is the take's own error.
func (s *keyStore) acknowledge(ctx context.Context, reserved int64, unacked error) error {
	last := unacked
	for {
		select {
		case <-ctx.Done():
			drop, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.l.timing.TTL/3)
			defer cancel()
			dropScript.Run(drop, s.l.c, []string{s.held}, s.value) // else the key expires a TTL later
			if !errors.Is(last, ErrReplicas) {
				last = fmt.Errorf("%w: %w", ErrReplicas, last)
			}
			return fmt.Errorf("%w, until the wait ended: %w", last, ctx.Err())
		case <-time.After(s.l.poll):
		}
		// Any other failure (the primary failing over) is tried again
		// until ctx ends; a key that expired meanwhile is lost for good.
		err := s.Extend(ctx, reserved)
		if err == nil || errors.Is(err, uidgen.ErrLeaseLost) {
			return err
		}
		if ctx.Err() == nil { // not cut off by ctx's end, which says nothing of the replicas
			last = err
		}
	}
}

// lease is the uidgen.Lease of one worker ID, kept in Redis.
type lease struct {
	*leasing.Lease
}

// keyStore is the leasing.Store of one held worker ID: its scripts act
// only while the held key holds this holder's value, whose random token no
// other take shares.
type keyStore struct {
	l        *Leased
	id       int64
	held     string
	reserved string
	value    string
}

// Extend restarts the held key's TTL and raises the reservation to target,
// in one script that acts only while the key is this holder's.
func (s *keyStore) Extend(ctx context.Context, target int64) error {
	res, err := s.l.write(ctx, renewScript, []string{s.held, s.reserved}, s.value, s.l.timing.TTL.Milliseconds(), target)
	switch {
	case err != nil:
		return fmt.Errorf("reserve worker ID %d under %s to second %d: %w", s.id, s.l.prefix, target, err)
	case res != int64(1):
		return fmt.Errorf("%w: the held key of worker ID %d under %s expired or went to another holder",
			uidgen.ErrLeaseLost, s.id, s.l.prefix)
	}
	return nil
}

// Free records lastUsed and deletes the held key in one script that acts
// only while the key is this holder's, so the ID is free at once. It waits
// for no replica: a failover that loses the release keeps the ID held for
// a TTL and reserved higher, which delays the next holder and endangers
// nothing.
func (s *keyStore) Free(ctx context.Context, lastUsed int64) error {
	op := fmt.Sprintf("release worker ID %d under %s", s.id, s.l.prefix)
	res, err := freeScript.Run(ctx, s.l.c, []string{s.held, s.reserved}, s.value, strconv.FormatInt(lastUsed, 10)).Result()
	switch {
	case err != nil:
		return fmt.Errorf("redisworker: %s: %w", op, err)
	case res != int64(1):
		return fmt.Errorf("redisworker: %s: %w: its held key expired or went to another holder", op, uidgen.ErrLeaseLost)
	}
	return nil
}
