package metrics

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/memleasetest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"
)

// start is where the fake clocks start: a year after the default epoch.
var start = uidgen.DefaultLayout().Epoch().AddDate(1, 0, 0)

// gather registers c with a pedantic registry, which checks that what
// Collect sends matches what Describe promised, and returns each metric's
// value by name.
func gather(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	values := make(map[string]float64)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			values[f.GetName()] = value(f.GetType(), m)
		}
	}
	return values
}

func value(typ dto.MetricType, m *dto.Metric) float64 {
	if typ == dto.MetricType_COUNTER {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// lint fails t if promlint finds anything wrong with c's metrics.
func lint(t *testing.T, c prometheus.Collector) {
	t.Helper()
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// names returns the metric names in values, sorted.
func names(values map[string]float64) []string { return slices.Sorted(maps.Keys(values)) }

var (
	everyGenerator = []string{
		"uidgen_ahead_seconds", "uidgen_ids_total", "uidgen_takes_failed_total", "uidgen_takes_waited_total",
		"uidgen_time_exhausted_timestamp_seconds", "uidgen_worker_id",
	}
	ring = []string{
		"uidgen_clock_wait_seconds_total", "uidgen_padder_fills_total",
		"uidgen_ring_available", "uidgen_ring_size", "uidgen_stale_ids_total",
	}
	lease = []string{"uidgen_lease_lost", "uidgen_lease_remaining_seconds", "uidgen_reservation_remaining_seconds"}
)

func want(sets ...[]string) []string { return slices.Sorted(slices.Values(slices.Concat(sets...))) }

// TestCached: the cached generator exports the ring's metrics besides the
// common ones, they lint clean, and taking IDs moves them. The clock is
// stopped, so the padder puts nothing while the test takes, and every
// second holds all its sequences, so the ring holds 8 of them.
func TestCached(t *testing.T) {
	schemetest.WholeSeconds(t)
	// MaxLag -1 leaves the padder no tick, so a slow machine cannot add a
	// pad run between New and the first gather.
	g, err := cached.New(context.Background(), cached.Config{
		Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 13}), Assigner: uidgen.Static(42), Clock: clocktest.New(start), MaxLag: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	c := NewCached(g)
	lint(t, c)
	before := gather(t, c)
	if got := names(before); !slices.Equal(got, want(everyGenerator, ring)) {
		t.Fatalf("metrics %v, want %v", got, want(everyGenerator, ring))
	}
	runsOut := float64(uidgen.DefaultLayout().Epoch().Add(1 << 30 * time.Second).Unix())
	for name, v := range map[string]float64{
		"uidgen_ids_total": 0, "uidgen_worker_id": 42, "uidgen_ring_size": 1 << 16, "uidgen_ring_available": 2 << 13, // the clock's second and the next
		"uidgen_padder_fills_total": 1, "uidgen_ahead_seconds": 1, "uidgen_time_exhausted_timestamp_seconds": runsOut,
	} {
		if before[name] != v {
			t.Errorf("%s = %v after New, want %v", name, before[name], v)
		}
	}

	const n = 1000
	if _, err := g.NextIDs(make([]int64, n)); err != nil {
		t.Fatal(err)
	}
	after := gather(t, c)
	if got := after["uidgen_ids_total"] - before["uidgen_ids_total"]; got != n {
		t.Errorf("uidgen_ids_total rose by %v after %d IDs", got, n)
	}
	if got := before["uidgen_ring_available"] - after["uidgen_ring_available"]; got != n {
		t.Errorf("uidgen_ring_available fell by %v after %d IDs", got, n)
	}
}

// TestDefault: defaultgen exports the common metrics and no ring, and its
// counters move: IDs taken, and a take that waited for the next second
// once the second's sequence is spent.
func TestDefault(t *testing.T) {
	g, err := defaultgen.New(context.Background(), defaultgen.Config{
		Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Assigner: uidgen.Static(3), Clock: clocktest.New(start),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	c := NewDefault(g)
	lint(t, c)
	if got := names(gather(t, c)); !slices.Equal(got, want(everyGenerator)) {
		t.Fatalf("metrics %v, want %v", got, want(everyGenerator))
	}
	for range 256 + 1 { // one more than a second of 8 sequence bits holds
		if _, err := g.NextID(); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	g.NextID() // fails: closed
	got := gather(t, c)
	for name, v := range map[string]float64{
		"uidgen_ids_total": 257, "uidgen_takes_waited_total": 1, "uidgen_takes_failed_total": 1, "uidgen_worker_id": 3,
	} {
		if got[name] != v {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
}

// TestLease: with a leased worker ID both generators add the lease's
// metrics: time left on the lease and the reservation, by the real clock
// the Collector reads, and whether the lease was lost.
func TestLease(t *testing.T) {
	for _, gen := range []struct {
		name string
		open func(l uidgen.Leaser) (prometheus.Collector, func() error, error)
	}{
		{"cached", func(l uidgen.Leaser) (prometheus.Collector, func() error, error) {
			g, err := cached.New(context.Background(), cached.Config{Leaser: l})
			if err != nil {
				return nil, nil, err
			}
			return NewCached(g), g.Close, nil
		}},
		{"default", func(l uidgen.Leaser) (prometheus.Collector, func() error, error) {
			g, err := defaultgen.New(context.Background(), defaultgen.Config{Leaser: l})
			if err != nil {
				return nil, nil, err
			}
			return NewDefault(g), g.Close, nil
		}},
	} {
		t.Run(gen.name, func(t *testing.T) {
			now := time.Now()
			leaser := &memleasetest.Leaser{ID: 5, First: now.Unix(), Reserved: now.Unix() + 100}
			c, closeGen, err := gen.open(leaser)
			if err != nil {
				t.Fatal(err)
			}
			defer closeGen()
			lint(t, c)
			if got := names(gather(t, c)); slices.Contains(got, "uidgen_lease_remaining_seconds") {
				t.Errorf("metrics %v: a lease that does not say when it expires has no lease_remaining_seconds", got)
			}
			l, _ := leaser.Lease()
			l.SetExpires(now.Add(30 * time.Second))
			got := gather(t, c)
			if names := names(got); !slices.Equal(names, want(everyGenerator, lease)) && !slices.Equal(names, want(everyGenerator, ring, lease)) {
				t.Fatalf("metrics %v, want the lease's too", names)
			}
			elapsed := time.Since(now).Seconds()
			if r := got["uidgen_reservation_remaining_seconds"]; r > 101 || r < 100-elapsed {
				t.Errorf("reservation remaining %v s, want the end of second now+100, up to 101 s away", r)
			}
			if r := got["uidgen_lease_remaining_seconds"]; r > 30 || r < 30-elapsed {
				t.Errorf("lease remaining %v s, want 30 s less the %v s since", r, elapsed)
			}
			if got["uidgen_lease_lost"] != 0 || got["uidgen_worker_id"] != 5 {
				t.Errorf("lease lost %v, worker ID %v; want 0 and 5", got["uidgen_lease_lost"], got["uidgen_worker_id"])
			}
			l.Lose()
			if got := gather(t, c); got["uidgen_lease_lost"] != 1 {
				t.Errorf("lease lost %v after Lose, want 1", got["uidgen_lease_lost"])
			}
		})
	}
}

// TestIDsTotalNeverFalls: a snapshot that counts more IDs than the next
// one (the ring's counters read one at a time) does not make the counter
// go down.
func TestIDsTotalNeverFalls(t *testing.T) {
	taken := []int64{10, 25, 20, 30}
	c := newCollector(func() snapshot {
		s := snapshot{taken: taken[0]}
		if len(taken) > 1 {
			taken = taken[1:]
		}
		return s
	}, idConsts(1, uidgen.DefaultLayout()))
	var seen []float64
	for range 3 { // New read the first
		seen = append(seen, gather(t, c)["uidgen_ids_total"])
	}
	if want := []float64{25, 25, 30}; !slices.Equal(seen, want) {
		t.Fatalf("uidgen_ids_total over three scrapes = %v, want %v", seen, want)
	}
}
