// Package leasetest is the conformance suite of the lease stores, as
// testing/fstest.TestFS is of file systems: the tests of packages worker,
// etcdworker and redisworker call Run with a Store of their own, and keep
// beside it only what is their store's own (its faults, its rows or keys).
// Run runs the generators on each store's leases too, so the generators'
// own tests take their fake Leaser from package memleasetest.
package leasetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// Made returns a function that returns what a store's constructor
// returned, failing t on its error: leasetest.Made[*Leased](t)(NewLeased(cfg)).
func Made[L any](t testing.TB) func(L, error) L {
	return func(l L, err error) L {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

// Must leases an ID up to maxID from l within ctx and returns the lease as
// T, the leaser's own lease type, so that a test can reach its internals.
// The lease is released with lastUsed First()-1 when the test ends, unless
// the test released it first. Must fails t if leasing does.
func Must[T uidgen.Lease](t testing.TB, ctx context.Context, l uidgen.Leaser, maxID int64) T {
	t.Helper()
	got, err := l.LeaseWorkerID(ctx, maxID)
	if err != nil {
		t.Fatalf("LeaseWorkerID(%d): %v", maxID, err)
	}
	s := got.(T)
	t.Cleanup(func() { s.Release(context.Background(), s.First()-1) })
	return s
}

// inRange has goroutines lease from l at once, behind a gate, and release
// again, while l lends only IDs in [lo, hi] under a layout whose largest ID
// is maxID: every lease lies in [lo, hi] and no ID is lent to two goroutines
// at once. Then it fills the range and returns the error of one more
// lease, cut off after wait. It releases what it took when the test ends.
func inRange(t *testing.T, ctx context.Context, l uidgen.Leaser, maxID, lo, hi int64, wait time.Duration) error {
	t.Helper()
	goroutines, rounds := 16, 4
	if testing.Short() {
		goroutines, rounds = 8, 2
	}
	var mu sync.Mutex
	holder := map[int64]int{} // worker ID -> goroutine holding it
	err := AtOnce(goroutines, func(g int) error {
		return leaseRounds(ctx, l, maxID, lo, hi, rounds, func(id int64, held bool) error {
			mu.Lock()
			defer mu.Unlock()
			if !held {
				delete(holder, id)
				return nil
			}
			if other, ok := holder[id]; ok {
				return fmt.Errorf("worker ID %d lent to goroutines %d and %d at once", id, other, g)
			}
			holder[id] = g
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}

	for range hi - lo + 1 {
		if s := Must[uidgen.Lease](t, ctx, l, maxID); s.WorkerID() < lo || s.WorkerID() > hi {
			t.Fatalf("filling %d-%d: worker ID %d", lo, hi, s.WorkerID())
		}
	}
	full, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	s, err := l.LeaseWorkerID(full, maxID)
	if err == nil {
		s.Release(ctx, s.First()-1)
		t.Fatalf("with %d-%d full: leased worker ID %d, want an error", lo, hi, s.WorkerID())
	}
	return err
}

// AtOnce runs f(0), ..., f(n-1) on n goroutines that wait behind a gate,
// so that they start together, and returns their errors joined.
func AtOnce(n int, f func(g int) error) error {
	errs := make([]error, n)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			<-gate
			errs[g] = f(g)
		})
	}
	close(gate)
	wg.Wait()
	return errors.Join(errs...)
}

// leaseRounds leases from l rounds times, each lease checked to lie in
// [lo, hi] and held for a moment, between hold(id, true) and hold(id,
// false), before it is released.
func leaseRounds(ctx context.Context, l uidgen.Leaser, maxID, lo, hi int64, rounds int, hold func(id int64, held bool) error) error {
	for range rounds {
		s, err := l.LeaseWorkerID(ctx, maxID)
		if err != nil {
			return err
		}
		id := s.WorkerID()
		if id < lo || id > hi {
			s.Release(ctx, s.First()-1)
			return fmt.Errorf("worker ID %d leased, want one in %d-%d", id, lo, hi)
		}
		err = hold(id, true)
		if err == nil {
			time.Sleep(time.Millisecond) // a window in which a second holder of id shows
			err = hold(id, false)
		}
		if err := errors.Join(err, s.Release(ctx, s.First()-1)); err != nil {
			return err
		}
	}
	return nil
}

// neighbours sets up the fleets around the range 5-8 of a layout whose
// largest ID is maxID, each a Leaser newLeaser returns for its range: one in
// 1-4 that holds 1-3 and has released 4, which is free and cold, and one in
// 9-12 that holds 9. A lease in 5-8 must take none of them.
func neighbours(t *testing.T, ctx context.Context, maxID int64, newLeaser func(uidgen.WorkerIDRange) uidgen.Leaser) {
	t.Helper()
	below := newLeaser(uidgen.WorkerIDRange{Min: 1, Max: 4})
	var four uidgen.Lease
	for want := int64(1); want <= 4; want++ {
		if four = Must[uidgen.Lease](t, ctx, below, maxID); four.WorkerID() != want {
			t.Fatalf("leasing in 1-4: worker ID %d, want %d", four.WorkerID(), want)
		}
	}
	if err := four.Release(ctx, four.First()-1); err != nil {
		t.Fatal(err)
	}
	if s := Must[uidgen.Lease](t, ctx, newLeaser(uidgen.WorkerIDRange{Min: 9, Max: 12}), maxID); s.WorkerID() != 9 {
		t.Fatalf("leasing in 9-12: worker ID %d, want 9", s.WorkerID())
	}
}

// RangeMaxID is the largest worker ID of the layout Range leases under.
const RangeMaxID = 15

// Range is the test of a Leaser's worker-ID range: newLeaser returns a
// Leaser of the store under test, polling often, for a range. Fleets in
// 1-4 (holding 1-3, 4 free and cold) and in 9-12 (holding 9) stand beside
// 5-8, in which goroutines lease at once (inRange): every lease lies in 5-8
// and none is held twice at once. With 5-8 full, a lease tried for two
// seconds fails wrapping noFreeID and context.DeadlineExceeded, its error
// starting op and naming the range; Range returns it, for the rest of a
// package's message. The caller checks that worker ID 4 kept its
// reservation.
func Range(t *testing.T, ctx context.Context, noFreeID error, op string, newLeaser func(uidgen.WorkerIDRange) uidgen.Leaser) error {
	t.Helper()
	neighbours(t, ctx, RangeMaxID, newLeaser)
	err := inRange(t, ctx, newLeaser(uidgen.WorkerIDRange{Min: 5, Max: 8}), RangeMaxID, 5, 8, 2*time.Second)
	if !errors.Is(err, noFreeID) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.HasPrefix(err.Error(), op+": ") || !strings.Contains(err.Error(), "all 4 IDs from 5 to 8 are held") {
		t.Errorf("LeaseWorkerID with 5-8 full: %v, want %q and %q, starting %q and naming 5 to 8",
			err, noFreeID, context.DeadlineExceeded, op)
	}
	return err
}

// RangeErrors checks a Leaser's bad ranges: newLeaser, the package's
// NewLeased on a store of its own, fails with uidgen.ErrConfig naming the range
// on one that starts below 1 and on an empty one, each error starting
// with pkg's prefix; and a lease in 5-8 under a layout whose largest ID is
// 7 fails with an error that starts op and names the range and the limit.
// The caller checks that nothing was written.
func RangeErrors(t *testing.T, ctx context.Context, pkg, op string, newLeaser func(uidgen.WorkerIDRange) (uidgen.Leaser, error)) {
	t.Helper()
	for _, tt := range []struct {
		ids  uidgen.WorkerIDRange
		text string
	}{
		{uidgen.WorkerIDRange{Min: 0, Max: 7}, "invalid config: WorkerIDs 0-7 starts at 0: want Min 1 or more (worker ID 0 is never leased)"},
		{uidgen.WorkerIDRange{Min: -1, Max: 7}, "invalid config: WorkerIDs -1-7 starts at -1: want Min 1 or more"},
		{uidgen.WorkerIDRange{Min: 9, Max: 3}, "invalid config: WorkerIDs 9-3 is empty: want Min at most Max"},
		{uidgen.WorkerIDRange{Min: 5}, "invalid config: WorkerIDs 5-0 is empty: want Min at most Max"},
	} {
		_, err := newLeaser(tt.ids)
		if want := pkg + ": " + tt.text; !errors.Is(err, uidgen.ErrConfig) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("NewLeased with WorkerIDs %v: %v, want an error starting %q", tt.ids, err, want)
		}
	}
	l, err := newLeaser(uidgen.WorkerIDRange{Min: 5, Max: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.LeaseWorkerID(ctx, 7)
	want := op + ": invalid config: WorkerIDs 5-8 ends above 7, the layout's largest worker ID: want Max at most 7"
	if !errors.Is(err, uidgen.ErrConfig) || err.Error() != want {
		t.Errorf("LeaseWorkerID(7) in 5-8: %v, want %q", err, want)
	}
}
