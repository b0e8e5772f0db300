package etcdworker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// releaseTimeout bounds giving an etcd lease back after a failed take, which
// runs after the caller's context may have ended.
const releaseTimeout = 5 * time.Second

// Leased is a uidgen.Leaser that keeps its leases in etcd, under one
// fleet's key prefix: it lends each process the lowest free worker ID for as
// long as the process keeps it alive, and takes it back on Release or when
// the holder's etcd lease expires. docs/design.md proves that two holders
// of one ID never use the same second.
//
// A Leased holds nothing of its own and is safe for concurrent use.
type Leased struct {
	c      *clientv3.Client
	prefix string
	timing leasing.Timing
	ids    uidgen.WorkerIDRange
	logger *slog.Logger // nil: quiet
	host   string

	// Replaced by tests. now sizes reservations, judges which free ID is
	// cold and stamps held/ID; it never decides whether a lease expired.
	now  func() time.Time
	poll time.Duration // freePoll
}

// NewLeased returns a Leased that keeps its leases in cfg's fleet. It sends
// nothing yet. It fails, with an error wrapping uidgen.ErrConfig that names
// the field, the value and the limits, on a nil Client, a Prefix that is not
// printable ASCII, a LeaseTTL or a LeaseHorizon outside the limits Config
// gives, and WorkerIDs that start below 1 or are empty.
func NewLeased(cfg Config) (*Leased, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if err := leasing.CheckConfig(c.LeaseTTL, c.LeaseHorizon, leasing.MinEtcdTTL, c.WorkerIDs); err != nil {
		return nil, fmt.Errorf("etcdworker: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	// etcd grants whole seconds.
	ttl := (c.LeaseTTL + time.Second - 1).Truncate(time.Second)
	return &Leased{c: c.Client, prefix: c.Prefix, timing: leasing.NewTiming(ttl, c.LeaseHorizon), ids: c.WorkerIDs, logger: c.Logger,
		host: host, now: time.Now, poll: freePoll}, nil
}

var _ uidgen.Leaser = (*Leased)(nil)

// LeaseWorkerID leases the lowest free worker ID of Config.WorkerIDs, by
// default [1, maxWorkerID] (see docs/design.md for which comes first), and
// starts the goroutine that renews it, which runs until Release.
//
// When every ID of the range is held it looks again every second until one
// comes free or ctx ends; then it fails with an error wrapping
// uidgen.ErrNoFreeID and ctx.Err() that names the range (under a ctx with no
// deadline, after one lease TTL, with uidgen.ErrNoFreeID alone). Give ctx a
// deadline: an unreachable cluster fails with the client's error only when ctx
// ends. It fails with uidgen.ErrConfig for a maxWorkerID below 1 or a
// range that ends above it, before it sends anything, and with
// uidgen.ErrBadKey when a key under the prefix is not this package's.
func (l *Leased) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	op := "lease a worker ID under " + l.prefix
	if err := leasing.CheckMaxWorkerID(maxWorkerID); err != nil {
		return nil, fmt.Errorf("etcdworker: %s: %w", op, err)
	}
	lo, hi, err := l.ids.Bounds(maxWorkerID)
	if err != nil {
		return nil, fmt.Errorf("etcdworker: %s: %w", op, err)
	}
	g := granter{c: l.c, ttl: l.timing.TTL}
	lease, err := l.leaseID(ctx, &g, lo, hi)
	if err != nil {
		g.revoke(ctx)
		return nil, fmt.Errorf("etcdworker: %s: %w", op, err)
	}
	return lease, nil
}

// granter holds the etcd lease a take puts held/ID under, granted once
// there is an ID to take: a lease granted before a wait for a free ID, and
// not kept alive meanwhile, would expire under it.
type granter struct {
	c   *clientv3.Client
	ttl time.Duration
	id  clientv3.LeaseID // 0: none granted, or revoked
}

// lease returns the etcd lease granted, granting one first if there is
// none.
func (g *granter) lease(ctx context.Context) (clientv3.LeaseID, error) {
	if g.id == 0 {
		resp, err := g.c.Grant(ctx, int64(g.ttl/time.Second))
		if err != nil {
			return 0, fmt.Errorf("grant an etcd lease: %w", err)
		}
		g.id = resp.ID
	}
	return g.id, nil
}

// revoke gives the etcd lease back, if one was granted and no take used it:
// it holds no key, and would only expire.
func (g *granter) revoke(ctx context.Context) {
	if g.id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	g.c.Revoke(ctx, g.id) // an error leaves a lease with no keys, which expires
	g.id = 0
}

// leaseID takes the ID choose picks, under an etcd lease of g's, until a
// take succeeds; it waits for one to come free while every ID is held,
// with no etcd lease granted. A request that fails (a leader election, a
// member going away) is tried again every poll until ctx ends: a take
// whose answer was lost may have taken its ID, so its etcd lease is
// revoked first, which frees the ID again.
func (l *Leased) leaseID(ctx context.Context, g *granter, lo, hi int64) (*lease, error) {
	at := strings.Join(l.c.Endpoints(), ",")
	return leasing.Acquire(ctx, leasing.Retry{
		Poll:     l.poll,
		NoFreeID: uidgen.ErrNoFreeID,
		FullFor:  l.timing.TTL,
		Fatal:    func(err error) bool { return errors.Is(err, uidgen.ErrBadKey) },
		Failed:   g.revoke,
		Unanswered: func(last, ctxErr error) error {
			if leasing.Cut(last) {
				return fmt.Errorf("no answer from the etcd cluster at %s: %w", at, ctxErr)
			}
			return fmt.Errorf("the etcd cluster at %s: %w (%w)", at, last, ctxErr)
		},
	}, lo, hi, func(ctx context.Context) (*lease, error) { return l.leaseOnce(ctx, g, lo, hi) })
}

// leaseOnce reads the fleet and takes the ID choose picks. It returns nil
// and no error when another process took that ID first, and leasing.ErrFull, with
// no etcd lease granted, when every ID in [lo, hi] is held.
func (l *Leased) leaseOnce(ctx context.Context, g *granter, lo, hi int64) (*lease, error) {
	now := l.now() // a lease waited for starts from the time it is taken
	states, err := readFleet(ctx, l.c, l.prefix)
	if err != nil {
		return nil, leasing.Unread{Err: err}
	}
	s, ok := choose(states, now, lo, hi)
	if !ok {
		g.revoke(ctx)
		return nil, leasing.ErrFull
	}
	id, err := g.lease(ctx)
	if err != nil {
		return nil, err
	}
	return l.acquire(ctx, s, id, now)
}

// acquire leases worker ID s.id under the etcd lease id, if its held key is
// still absent and its reserved key is as s read it, and returns its lease,
// started; or nil when another process changed either first. The holder
// starts at the clock for an ID never leased, and above the reservation read
// for any other: the comparison of the reservation's mod revision makes the
// value read the one at the takeover.
func (l *Leased) acquire(ctx context.Context, s idState, id clientv3.LeaseID, now time.Time) (*lease, error) {
	first := now.Unix()
	if s.modRev != 0 {
		first = max(first, s.reserved+1)
	}
	reserved := leasing.FirstReservation(first, now, l.timing.Ahead)
	who, err := json.Marshal(holder{Host: l.host, PID: os.Getpid(), Since: now.UTC().Truncate(time.Second)})
	if err != nil {
		return nil, err
	}
	held, reservedKey := heldKey(l.prefix, s.id), reservedKey(l.prefix, s.id)
	resp, err := l.c.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(held), "=", 0),
		clientv3.Compare(clientv3.ModRevision(reservedKey), "=", s.modRev),
	).Then(
		clientv3.OpPut(reservedKey, strconv.FormatInt(reserved, 10)),
		clientv3.OpPut(held, string(who), clientv3.WithLease(id)),
	).Commit()
	if err != nil || !resp.Succeeded {
		return nil, err
	}
	if l.logger != nil {
		l.logger.InfoContext(ctx, "etcdworker: leased worker ID", "id", s.id, "prefix", l.prefix,
			"first", first, "reserved", reserved)
	}
	store := &keyStore{c: l.c, lease: id, id: s.id, prefix: l.prefix, held: held, reservedKey: reservedKey,
		rev: resp.Header.Revision}
	store.written.Store(reserved)
	return &lease{leasing.Start(leasing.Params{Pkg: "etcdworker", Where: l.prefix, ID: s.id, First: first,
		LeasedAt: now, Reserved: reserved, Timing: l.timing,
		Now: l.now, Logger: l.logger, Released: uidgen.ErrReleased}, store), store}, nil
}

// lease is the uidgen.Lease of one worker ID, kept in etcd.
type lease struct {
	*leasing.Lease
	store *keyStore
}

// keyStore is the leasing.Store of one held worker ID: its transactions
// compare held/ID's create revision with the holder's own.
type keyStore struct {
	c           *clientv3.Client
	lease       clientv3.LeaseID
	id          int64
	prefix      string
	held        string
	reservedKey string
	rev         int64 // held/ID's create revision: the takeover's

	// written is the most this holder ever asked reserved/ID to hold; a
	// renewal writes no less, so that a renewal whose answer was lost
	// leaves no gap below the next. Raised only by Extend.
	written atomic.Int64
}

// Extend keeps the etcd lease alive and, in one transaction that succeeds
// only while held/ID is this holder's key, moves reserved/ID to target or
// the most written before, whichever is more.
func (s *keyStore) Extend(ctx context.Context, target int64) error {
	if _, err := s.c.KeepAliveOnce(ctx, s.lease); err != nil {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return fmt.Errorf("%w: the etcd lease of worker ID %d under %s expired", uidgen.ErrLeaseLost, s.id, s.prefix)
		}
		return fmt.Errorf("keep the etcd lease of worker ID %d under %s alive: %w", s.id, s.prefix, err)
	}
	v := max(target, s.written.Load())
	resp, err := s.c.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(s.held), "=", s.rev)).
		Then(clientv3.OpPut(s.reservedKey, strconv.FormatInt(v, 10))).Commit()
	switch {
	case err != nil:
		return fmt.Errorf("reserve worker ID %d under %s to second %d: %w", s.id, s.prefix, v, err)
	case !resp.Succeeded:
		return fmt.Errorf("%w: worker ID %d under %s went to another holder", uidgen.ErrLeaseLost, s.id, s.prefix)
	}
	s.written.Store(v)
	return nil
}

// Free records lastUsed and deletes held/ID in one transaction that
// succeeds only while held/ID is this holder's key, so the ID is free at
// once; then it revokes the etcd lease, which holds nothing more.
func (s *keyStore) Free(ctx context.Context, lastUsed int64) error {
	op := fmt.Sprintf("release worker ID %d under %s", s.id, s.prefix)
	resp, err := s.c.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(s.held), "=", s.rev)).
		Then(clientv3.OpPut(s.reservedKey, strconv.FormatInt(lastUsed, 10)), clientv3.OpDelete(s.held)).Commit()
	switch {
	case err != nil:
		return fmt.Errorf("etcdworker: %s: %w", op, err)
	case !resp.Succeeded:
		return fmt.Errorf("etcdworker: %s: %w: another holder took it first", op, uidgen.ErrLeaseLost)
	}
	s.c.Revoke(ctx, s.lease) // an error leaves a lease with no keys, which expires
	return nil
}
