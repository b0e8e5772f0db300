package etcdworker

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/metrics"
)

// generator is what the test asks of both generators.
type generator interface {
	idtest.Parser
	NextID() (int64, error)
	Close() error
}

// TestGenerators runs both generators on a worker ID leased from etcd, from
// many goroutines at once: every ID unique, each goroutine's increasing,
// and Close gives the ID back with the last second used.
func TestGenerators(t *testing.T) {
	n := sizetest.Pick(200_000, 20_000)
	for _, tt := range []struct {
		name string
		open func(t *testing.T, l *Leased) (generator, error)
	}{
		{"cached", func(t *testing.T, l *Leased) (generator, error) {
			return cached.New(testContext(t), cached.Config{Leaser: l})
		}},
		{"default", func(t *testing.T, l *Leased) (generator, error) {
			return defaultgen.New(testContext(t), defaultgen.Config{Leaser: l})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			g, err := tt.open(t, f.leased(t, Config{}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			ids, err := idtest.Collect(8, n/8, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			idtest.Check(t, g, ids)
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			if got := f.reserved(t, g.WorkerID()); got < g.Layout().Parse(ids[0][len(ids[0])-1]).Time.Unix() {
				t.Errorf("reserved/%d holds %d after Close, below a second handed out", g.WorkerID(), got)
			}
			if _, err := g.NextID(); !errors.Is(err, uidgen.ErrClosed) {
				t.Errorf("NextID after Close: %v, want %q", err, uidgen.ErrClosed)
			}
		})
	}
}

// TestMetrics: the lease gauges that package metrics exports for a worker
// ID leased from SQL read the same for one leased from etcd.
func TestMetrics(t *testing.T) {
	f := newFleet(t)
	g, err := cached.New(testContext(t), cached.Config{Leaser: f.leased(t, Config{})})
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
		"uidgen_lease_remaining_seconds":       func(v float64) bool { return v > 0 && v <= leasing.DefaultTTL.Seconds() },
		"uidgen_reservation_remaining_seconds": func(v float64) bool { return v > 0 },
		"uidgen_lease_lost":                    func(v float64) bool { return v == 0 },
	} {
		if v, found := got[name]; !found || !ok(v) {
			t.Errorf("%s = %v (exported: %v)", name, v, found)
		}
	}
}
