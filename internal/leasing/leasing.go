// Package leasing is the half of a uidgen.Lease that does not depend on
// where leases are kept: the reservation a holder may use, the renewer that
// moves it ahead at the pace the holder asks for seconds, and what Wait, Err
// and Release report. Package worker keeps leases in a SQL table, package
// etcdworker in etcd and package redisworker in Redis; each supplies a
// Store, which extends and frees one lease where it lives, and each but
// worker, whose SQL chooses, takes the ID Choose picks.
//
// The Store carries the proof: the Lease only promises to raise Reserved()
// to t after Store.Extend(ctx, t) returned nil, never to lower it, and to
// call nothing of the Store after Release has begun but Free.
package leasing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
)

// RetryDelay bounds the wait between renewals while the store fails, so
// that the reservation grows again soon after it answers.
const RetryDelay = time.Second

// The lease TTL's default and limits, the same in every store but etcd,
// which takes MinEtcdTTL as its shortest. Below a second the renewer, which
// renews every third of it, would race the round trip to the store; above
// an hour a dead holder keeps its ID from the fleet for longer than any
// deployment waits. They are internal, not the stores' API: each store's
// Config doc says them in words, and an error names the one a value broke.
const (
	DefaultTTL = 30 * time.Second
	MinTTL     = time.Second
	MaxTTL     = time.Hour
)

// MinEtcdTTL is the shortest TTL of an etcd lease. etcd grants TTLs in
// whole seconds and raises any TTL below its own minimum (one and a half
// election timeouts, 1.5 s at etcd's defaults) to that minimum, so a TTL
// below 2 s would not be the TTL the cluster keeps.
const MinEtcdTTL = 2 * time.Second

// The lease horizon's default and limits. Managed failovers take one to two
// minutes, and a primary restarting after a crash can take longer: ten
// minutes rides out both. Past a day, a crash keeps its ID hot for longer
// than a fleet should go without its store anyway.
const (
	DefaultHorizon = 10 * time.Minute
	MinHorizon     = time.Second
	MaxHorizon     = 24 * time.Hour
)

// The timing of a lease in a SQLite file. The file is on the holders' own
// machine: there is no failover to ride out, only another process holding
// the write lock. So the horizon is 2 s by default, and the holder renews
// every FileEvery (or TTL/3, when sooner) and reserves the horizon and
// that much ahead: a crash leaves the ID reserved 3 s past the tick after
// the clock's. The TTL keeps the servers' default: it only says how long
// a live holder that does not renew (stopped, paused) keeps its ID, since
// a dead one is seen gone at once.
const (
	FileHorizon = 2 * time.Second
	FileEvery   = time.Second
)

// NewFileTiming returns the timing of a lease of ttl and horizon in a
// SQLite file: NewTiming's, renewed every FileEvery where that is sooner
// than a third of the TTL, and reserving the horizon and one renewal
// ahead.
func NewFileTiming(ttl, horizon time.Duration) Timing {
	t := NewTiming(ttl, horizon)
	t.Every = min(t.Every, FileEvery)
	t.Ahead = horizon + t.Every
	return t
}

// Store extends and frees one lease where leases are kept.
type Store interface {
	// Extend extends the lease by a TTL and its reservation to at least
	// target, within ctx. It fails with an error wrapping
	// uidgen.ErrLeaseLost when another holder took the lease over, and
	// otherwise with the store's error; the error is unprefixed.
	Extend(ctx context.Context, target int64) error

	// Free gives the ID back, recording lastUsed as its reservation, so
	// the next holder starts above it. Its error is the caller's to see,
	// prefixed.
	Free(ctx context.Context, lastUsed int64) error
}

// Timing is how a lease is kept: how long it lasts unrenewed, what a
// renewal reserves at the holder's pace, and how often the holder renews
// while it asks for nothing.
type Timing struct {
	TTL   time.Duration // how long the lease lasts unrenewed
	Ahead time.Duration // what a renewal reserves, at the holder's pace
	Every time.Duration // between renewals while the holder asks for nothing
}

// NewTiming returns the timing of a lease of ttl and horizon: a renewal
// every third of the TTL, reserving the horizon and a third of the TTL. A
// renewal lands at most a third of the TTL after the last one, so
// reserving that much past the horizon keeps a whole horizon reserved at
// the instant the store stops answering.
func NewTiming(ttl, horizon time.Duration) Timing {
	return Timing{TTL: ttl, Ahead: horizon + ttl/3, Every: ttl / 3}
}

// CheckConfig checks what every store's Config holds of a lease: LeaseTTL
// from minTTL (MinTTL, or MinEtcdTTL for etcd) to MaxTTL, LeaseHorizon from
// MinHorizon to MaxHorizon, and WorkerIDs (checkIDs). Its error, the first
// it finds, wraps uidgen.ErrConfig unprefixed.
func CheckConfig(ttl, horizon, minTTL time.Duration, ids uidgen.WorkerIDRange) error {
	return cmp.Or(CheckRange("LeaseTTL", ttl, minTTL, MaxTTL),
		CheckRange("LeaseHorizon", horizon, MinHorizon, MaxHorizon),
		checkIDs(ids))
}

// CheckRange returns nil if d, the Config field called field, is in
// [lo, hi], and otherwise an error wrapping uidgen.ErrConfig that names the
// field, d and the range, unprefixed.
func CheckRange(field string, d, lo, hi time.Duration) error {
	if d < lo || d > hi {
		return fmt.Errorf("%w: %s %s: want %s to %s", uidgen.ErrConfig, field, defaults.Duration(d), defaults.Duration(lo), defaults.Duration(hi))
	}
	return nil
}

// CheckMaxWorkerID returns the error of a maxWorkerID, LeaseWorkerID's
// argument, below 1. A generator passes its layout's largest worker ID,
// which is 1 or more, so only a caller of its own passes less; the error
// wraps uidgen.ErrConfig all the same, unprefixed.
func CheckMaxWorkerID(maxWorkerID int64) error {
	if maxWorkerID < 1 {
		return fmt.Errorf("%w: LeaseWorkerID given a largest worker ID of %d: want 1 or more, as every layout's worker bits allow",
			uidgen.ErrConfig, maxWorkerID)
	}
	return nil
}

// checkIDs returns the error of a range that is wrong under any layout:
// one that starts below 1 or is empty. Its end is checked against the
// layout's largest worker ID at each lease, which alone knows it.
func checkIDs(r uidgen.WorkerIDRange) error {
	_, _, err := r.Bounds(math.MaxInt64)
	return err
}

// Params describe a lease just taken.
type Params struct {
	// Pkg prefixes errors and log messages: "worker", "etcdworker",
	// "redisworker".
	Pkg string
	// Where names where the lease is kept, for errors and logs: a table,
	// a key prefix.
	Where string

	ID    int64
	First int64 // the first Unix second the holder may use

	// LeasedAt is when the lease was taken, by this process's clock, and
	// Reserved the last Unix second the store reserved when it took it (see
	// FirstReservation).
	LeasedAt time.Time
	Reserved int64

	Timing

	Now      func() time.Time // sizes reservations
	Logger   *slog.Logger     // nil: quiet
	Released error            // the sentinel Wait wraps after Release
}

// FirstReservation returns the last Unix second a lease taken at now whose
// holder's first second is first reserves: ahead, in whole seconds, past
// first or now, whichever is later.
func FirstReservation(first int64, now time.Time, ahead time.Duration) int64 {
	return max(first, now.Unix()) + seconds(ahead)
}

// seconds returns d in whole seconds, rounded up.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// Lease is a uidgen.Lease whose Store keeps it. A Lease must not be copied.
type Lease struct {
	p     Params
	store Store

	// renewedAfter is how long after LeasedAt the last renewal that
	// succeeded was sent (0 for the lease itself): the store's lease lasts
	// at least one TTL past that instant. Written only by the renewer; read
	// by Expires.
	renewedAfter atomic.Int64

	// reserved is the last second this holder may use. Written only by the
	// renewer, and only after Store.Extend returned nil; it never
	// decreases. Read by anyone.
	reserved atomic.Int64

	// need is the highest second passed to Need or Wait, raised by holders
	// with a CAS loop; the renewer reserves ahead of it.
	need atomic.Int64

	// wakeAt is written by the renewer after each renewal: halfway through
	// what it reserved ahead. Need wakes the renewer once need reaches it,
	// so the next chunk is reserved before the holder runs out.
	wakeAt atomic.Int64

	wake chan struct{} // capacity 1: at most one wake-up waits

	stop context.CancelFunc // ends the renewer
	done chan struct{}      // closed when the renewer has returned

	// mu guards what Wait and Err read of the renewer's outcomes.
	mu       sync.Mutex
	changed  chan struct{} // closed and replaced after every renewal and at Release
	attempts int64         // renewals finished
	lastErr  error         // the last renewal's failure, unprefixed; nil after a success
	lost     error         // non-nil, wrapping uidgen.ErrLeaseLost, once another holder took the lease
	released bool

	releaseOnce sync.Once
	releaseErr  error
}

var _ uidgen.Lease = (*Lease)(nil)

// Start returns the lease p describes, kept by store, with its renewer
// running until Release.
func Start(p Params, store Store) *Lease {
	s := &Lease{p: p, store: store, wake: make(chan struct{}, 1), changed: make(chan struct{}), done: make(chan struct{})}
	s.reserved.Store(p.Reserved)
	s.need.Store(p.First - 1)
	s.wakeAt.Store(p.Reserved - seconds(p.Ahead)/2)
	var ctx context.Context
	ctx, s.stop = context.WithCancel(context.Background())
	go s.renew(ctx)
	return s
}

func (s *Lease) WorkerID() int64 { return s.p.ID }
func (s *Lease) First() int64    { return s.p.First }
func (s *Lease) Reserved() int64 { return s.reserved.Load() }

// Expires returns when the lease lapses unless renewed, by this process's
// clock: one TTL after the last successful renewal was sent. The store
// counts its TTL from when the renewal arrived, later, so this errs early.
func (s *Lease) Expires() time.Time {
	return s.p.LeasedAt.Add(time.Duration(s.renewedAfter.Load()) + s.p.TTL)
}

// Need raises need to sec and wakes the renewer when sec has used up half
// of the reservation ahead. The send never blocks: a wake-up already waiting
// serves.
func (s *Lease) Need(sec int64) {
	for {
		n := s.need.Load()
		if sec <= n || s.need.CompareAndSwap(n, sec) {
			break
		}
	}
	if sec >= s.wakeAt.Load() {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *Lease) Wait(ctx context.Context, sec int64) error {
	s.mu.Lock()
	seen := s.attempts
	s.mu.Unlock()
	for {
		// changed is read before reserved: a renewal stores reserved
		// before it closes changed, so either the store is seen or the
		// close wakes this wait.
		s.mu.Lock()
		changed, attempts, lastErr, lost, released := s.changed, s.attempts, s.lastErr, s.lost, s.released
		s.mu.Unlock()
		reserved := s.Reserved()
		switch {
		case reserved >= sec:
			return nil
		case lost != nil:
			return fmt.Errorf("%s: second %d is beyond the reservation, which ends at %d: %w", s.p.Pkg, sec, reserved, lost)
		case released:
			return fmt.Errorf("%s: second %d on worker ID %d: %w", s.p.Pkg, sec, s.p.ID, s.p.Released)
		case attempts > seen && lastErr != nil:
			return fmt.Errorf("%s: the reservation of worker ID %d ends at second %d, before %d, and renewing it failed: %w",
				s.p.Pkg, s.p.ID, reserved, sec, lastErr)
		}
		s.Need(sec)
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s: wait for second %d on worker ID %d, reserved to %d: %w", s.p.Pkg, sec, s.p.ID, reserved, ctx.Err())
		}
	}
}

// RenewalErr returns why the last renewal failed, nil after one that
// succeeded: a generator that runs out of reserved seconds says it.
func (s *Lease) RenewalErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Lease) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return fmt.Errorf("%s: %w", s.p.Pkg, s.lost)
	}
	return nil
}

// Done returns a channel closed once the renewer has returned: after
// Release, or by itself once the lease is lost.
func (s *Lease) Done() <-chan struct{} { return s.done }

// RenewNow makes the renewer renew once, whatever it has reserved, waits
// until it has, and returns the renewal's error: for tests, which must not
// wait a third of the TTL.
func (s *Lease) RenewNow(ctx context.Context) error {
	s.mu.Lock()
	changed := s.changed
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-changed:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.RenewalErr()
}

// renew extends the lease every Every, and sooner when Need wakes it,
// until the lease is lost or Release stops it. Each renewal extends the
// lease and reserves ahead of need the seconds of Ahead at the pace need
// grew since the last renewal (measured over a third of the TTL at least),
// and at least that much wall time: so a holder borrowing seconds flat out
// finds them reserved before it asks, a holder cut off from the store goes
// on for the horizon, and a holder that dies leaves its ID reserved about a
// horizon ahead at its pace.
func (s *Lease) renew(ctx context.Context) {
	defer close(s.done)
	timer := time.NewTimer(s.p.Every)
	defer timer.Stop()
	// The pace counts what the holder asks beyond the second it starts
	// in, its first or the clock's: a generator at idle asks for that one
	// and the next at once, which is no pace.
	lastAt, lastNeed := s.p.LeasedAt, max(s.p.First, s.p.LeasedAt.Unix())
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.wake:
		}
		now, need := s.p.Now(), s.need.Load()
		lead := seconds(s.p.Ahead)
		// The pace is measured over a renewal's span at least (a third of
		// the TTL, or Every where sooner): a holder that asks for many
		// seconds at once (a cached generator filling its ring under load,
		// within milliseconds) has not shown a pace, and over a shorter
		// span it would reserve hours ahead.
		// Seconds are whole, so need grows by up to one more than the
		// seconds asked for: a holder at the clock's pace would show
		// twice it over a renewal a second apart (a SQLite lease's), and
		// reserve twice its horizon ahead.
		if dt := max(now.Sub(lastAt), min(s.p.TTL/3, s.p.Every)).Seconds(); dt > 0 {
			lead = max(lead, int64(math.Ceil(float64(need-lastNeed-1)/dt*s.p.Ahead.Seconds())))
		}
		lastAt, lastNeed = now, need
		target := max(need, now.Unix()) + lead

		err := s.extend(ctx, now, target)
		if ctx.Err() != nil {
			return // Release stopped the renewer mid-renewal
		}
		if err == nil {
			s.wakeAt.Store(target - lead/2)
		}
		s.record(err)
		if errors.Is(err, uidgen.ErrLeaseLost) {
			return
		}
		if logger := s.p.Logger; logger != nil && failing != (err != nil) {
			if err != nil {
				logger.Warn(s.p.Pkg+": renewing a lease failed; retrying", "id", s.p.ID, "where", s.p.Where,
					"reserved", s.Reserved(), "error", err)
			} else {
				logger.Info(s.p.Pkg+": renewing a lease works again", "id", s.p.ID, "where", s.p.Where, "reserved", s.Reserved())
			}
		}
		failing = err != nil
		next := s.p.Every
		if err != nil {
			next = min(next, RetryDelay)
		}
		timer.Reset(next)
	}
}

// extend asks the store to extend the lease and the reservation to target,
// within a third of the TTL, and raises Reserved() when it did.
func (s *Lease) extend(ctx context.Context, sent time.Time, target int64) error {
	ctx, cancel := context.WithTimeout(ctx, s.p.TTL/3)
	defer cancel()
	if err := s.store.Extend(ctx, target); err != nil {
		if errors.Is(err, uidgen.ErrLeaseLost) {
			return fmt.Errorf("%w; this holder keeps the seconds to %d", err, s.Reserved())
		}
		return err
	}
	if target > s.Reserved() {
		s.reserved.Store(target)
	}
	s.renewedAfter.Store(int64(sent.Sub(s.p.LeasedAt)))
	return nil
}

// record publishes a renewal's outcome to Wait and Err.
func (s *Lease) record(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	s.lastErr = err
	if errors.Is(err, uidgen.ErrLeaseLost) {
		s.lost = err
		if s.p.Logger != nil {
			s.p.Logger.Warn(s.p.Pkg+": lease lost", "id", s.p.ID, "where", s.p.Where, "reserved", s.Reserved())
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Release stops the renewer, waits for it, and then has the store free the
// lease, recording max(lastUsed, First()-1): the holder used nothing above
// lastUsed, and the earlier holders nothing above First()-1. A lease
// already lost gives nothing back and returns an error wrapping
// uidgen.ErrLeaseLost.
func (s *Lease) Release(ctx context.Context, lastUsed int64) error {
	s.releaseOnce.Do(func() {
		s.stop()
		<-s.done
		s.mu.Lock()
		lost := s.lost
		s.released = true
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if lost != nil {
			s.releaseErr = fmt.Errorf("%s: release worker ID %d: %w", s.p.Pkg, s.p.ID, lost)
			return
		}
		s.releaseErr = s.store.Free(ctx, max(lastUsed, s.p.First-1))
		if s.releaseErr == nil && s.p.Logger != nil {
			s.p.Logger.InfoContext(ctx, s.p.Pkg+": released worker ID", "id", s.p.ID, "where", s.p.Where, "lastUsed", lastUsed)
		}
	})
	return s.releaseErr
}
