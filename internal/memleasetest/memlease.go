// Package memleasetest is a uidgen.Leaser in memory, moved by hand: tests of
// the generators reserve seconds, lose the lease and watch it released
// without a store. It keeps only the part of the lease contract those
// tests need: its Wait does not refuse a released lease, as a store's
// does with uidgen.ErrReleased. It is not package leasetest, the
// stores' conformance suite, because that suite runs the generators on
// each store and so imports them, and their tests import this.
package memleasetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
)

var (
	_ uidgen.Leaser = (*Leaser)(nil)
	_ uidgen.Lease  = (*Lease)(nil)
)

// Leaser lends worker ID ID with the given first Unix second and first
// reservation (the last Unix second reserved);
// its leases' Release returns ReleaseErr.
type Leaser struct {
	ID, First, Reserved int64
	ReleaseErr          error

	mu    sync.Mutex
	lease *Lease
	max   int64
}

// LeaseWorkerID lends the ID, remembering maxWorkerID.
func (l *Leaser) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max = maxWorkerID
	l.lease = &Lease{id: l.ID, first: l.First, releaseErr: l.ReleaseErr, changed: make(chan struct{})}
	l.lease.reserved.Store(l.Reserved)
	return l.lease, nil
}

// Lease returns the lease lent last, and the maxWorkerID it was asked for.
func (l *Leaser) Lease() (*Lease, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lease, l.max
}

// Lease is a lease whose reservation moves only when the test says.
type Lease struct {
	id, first  int64
	releaseErr error
	reserved   atomic.Int64
	needed     atomic.Int64
	expires    atomic.Pointer[time.Time] // nil: zero, as Expires says

	mu       sync.Mutex
	err      error         // set by Lose
	released *int64        // set by Release
	changed  chan struct{} // closed and renewed when reserved or err changes
}

func (l *Lease) WorkerID() int64 { return l.id }
func (l *Lease) First() int64    { return l.first }
func (l *Lease) Reserved() int64 { return l.reserved.Load() }

// Need records the highest second asked for.
func (l *Lease) Need(s int64) {
	for {
		n := l.needed.Load()
		if s <= n || l.needed.CompareAndSwap(n, s) {
			return
		}
	}
}

// Needed returns the highest second Need was told of.
func (l *Lease) Needed() int64 { return l.needed.Load() }

// Reserve moves the reservation up to s.
func (l *Lease) Reserve(s int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s > l.reserved.Load() {
		l.reserved.Store(s)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// Expires returns what SetExpires set, as package worker's leases say
// when they lapse unless renewed.
func (l *Lease) Expires() time.Time {
	if t := l.expires.Load(); t != nil {
		return *t
	}
	return time.Time{}
}

// SetExpires sets what Expires returns.
func (l *Lease) SetExpires(t time.Time) { l.expires.Store(&t) }

// Lose makes the lease lost: Err and Wait report uidgen.ErrLeaseLost.
func (l *Lease) Lose() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = fmt.Errorf("%w: taken over", uidgen.ErrLeaseLost)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Wait waits for Reserve, Lose or ctx.
func (l *Lease) Wait(ctx context.Context, s int64) error {
	for {
		l.mu.Lock()
		err, changed := l.err, l.changed
		l.mu.Unlock()
		if l.reserved.Load() >= s {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for second %d: %w", s, ctx.Err())
		case <-changed:
		}
	}
}

// Release records lastUsed, once, and returns the Leaser's ReleaseErr.
func (l *Lease) Release(_ context.Context, lastUsed int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released == nil {
		l.released = &lastUsed
	}
	return l.releaseErr
}

// Released returns the last second Release recorded, and whether it was
// called.
func (l *Lease) Released() (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released == nil {
		return 0, false
	}
	return *l.released, true
}
