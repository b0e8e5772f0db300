package leasetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/metrics"
)

// generator is what testGenerators asks of both generators.
type generator interface {
	idtest.Parser
	NextID() (int64, error)
	Close() error
}

// genOptions are the Options of a generator's lease: renewals every few
// seconds, as a generator's lease gets them, since a run under the race
// detector may take longer than the TTL.
var genOptions = Options{TTL: 30 * time.Second, Every: 5 * time.Second}

// testGenerators runs both generators on a lease of the store, from many
// goroutines at once: every ID unique, each goroutine's increasing; Close
// gives the ID back, reserved up to the last second handed out at least,
// and a NextID after it fails with uidgen.ErrClosed.
func testGenerators(t *testing.T, s Store, _ Fleet) {
	for _, tt := range []struct {
		name string
		n    int
		open func(ctx context.Context, l uidgen.Leaser) (generator, error)
	}{
		{"cached", sizetest.Pick(200_000, 20_000), func(ctx context.Context, l uidgen.Leaser) (generator, error) {
			return cached.New(ctx, cached.Config{Leaser: l})
		}},
		// The default generator hands out a second's sequences, then waits
		// for the next second: 40,000 IDs cross several seconds.
		{"default", sizetest.Pick(40_000, 20_000), func(ctx context.Context, l uidgen.Leaser) (generator, error) {
			return defaultgen.New(ctx, defaultgen.Config{Leaser: l})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := s.Fleet(t)
			g, err := tt.open(Context(t), leased(t, f, genOptions))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			ids, err := idtest.Collect(8, tt.n/8, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			idtest.Check(t, g, ids)
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			var last int64
			for _, each := range ids {
				last = max(last, g.Layout().Parse(each[len(each)-1]).Time.Unix())
			}
			id := g.WorkerID()
			if got := f.Reserved(t, id); got < last {
				t.Errorf("worker ID %d: reserved up to %d after Close, below %d, a second handed out", id, got, last)
			}
			// Given back: a leaser of that ID alone gets it now. Kept, it
			// would stay held until its TTL ran out after the last renewal,
			// at least TTL - Every from now, past this context's end.
			only := leased(t, f, Options{WorkerIDs: uidgen.WorkerIDRange{Min: id, Max: id}})
			ctx, cancel := context.WithTimeout(Context(t), (genOptions.TTL-genOptions.Every)/2)
			defer cancel()
			Must[lease](t, ctx, only, g.Layout().Bits().MaxWorkerID())
			if _, err := g.NextID(); !errors.Is(err, uidgen.ErrClosed) {
				t.Errorf("NextID after Close: %v, want %q", err, uidgen.ErrClosed)
			}
		})
	}
}

// testMetrics: package metrics exports a lease of the store's as it does
// any: the lease's and the reservation's time left, and not lost.
func testMetrics(t *testing.T, _ Store, f Fleet) {
	g, err := cached.New(Context(t), cached.Config{Leaser: leased(t, f, genOptions)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewCached(g))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()] = m.GetGauge().GetValue()
		}
	}
	for name, ok := range map[string]func(v float64) bool{
		"uidgen_lease_remaining_seconds":       func(v float64) bool { return v > 0 && v <= genOptions.TTL.Seconds() },
		"uidgen_reservation_remaining_seconds": func(v float64) bool { return v > 0 },
		"uidgen_lease_lost":                    func(v float64) bool { return v == 0 },
	} {
		if v, found := got[name]; !found || !ok(v) {
			t.Errorf("%s = %v (exported: %v)", name, v, found)
		}
	}
}

// OnLease returns a cached generator of cfg on a lease from l, closed when
// the test ends, and the lease it holds as T, the store's own lease type:
// a fault test watches that lease's renewals while the generator takes.
func OnLease[T uidgen.Lease](t testing.TB, l uidgen.Leaser, cfg cached.Config) (*cached.Generator, T) {
	t.Helper()
	g, s, err := onLease(Context(t), l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	got, ok := s.(T)
	if !ok {
		t.Fatalf("the lease is a %T, not a %T", s, got)
	}
	return g, got
}

// onLease returns a cached generator of cfg on a lease from l, within ctx,
// and the lease it holds, for the caller to close.
func onLease(ctx context.Context, l uidgen.Leaser, cfg cached.Config) (*cached.Generator, uidgen.Lease, error) {
	w := &watched{Leaser: l}
	cfg.Leaser = w
	g, err := cached.New(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return g, *w.last.Load(), nil
}

// watched is a uidgen.Leaser that keeps the last lease it lent.
type watched struct {
	uidgen.Leaser
	last atomic.Pointer[uidgen.Lease]
}

func (w *watched) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	l, err := w.Leaser.LeaseWorkerID(ctx, maxWorkerID)
	if err == nil {
		w.last.Store(&l)
	}
	return l, err
}
