package dbtest_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/metrics"
	"github.com/seed4d941b13/uidgen/segment"
)

// gather returns the value of each of c's metrics by name, each a single
// counter or gauge, as a pedantic registry collects them.
func gather(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	values := make(map[string]float64, len(families))
	for _, f := range families {
		m := f.GetMetric()[0]
		values[f.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return values
}

// TestSegment: the segment generator exports the takes, the ring and its
// claims, they lint clean, and taking numbers moves them, on each server.
func TestSegment(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "leaf_alloc_")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if err := segment.EnsureSchema(ctx, segment.Config{DB: db, Table: table}); err != nil {
			t.Fatal(err)
		}
		g, err := segment.New(ctx, segment.Config{DB: db, Table: table, Tag: "metrics", Step: 100, MaxStep: 100, RingSize: 64})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		c := metrics.NewSegment(g)
		if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
			t.Fatalf("lint: %v %v", problems, err)
		}
		before := gather(t, c)
		wantNames := []string{
			"uidgen_ids_total", "uidgen_takes_failed_total", "uidgen_takes_waited_total",
			"uidgen_padder_fills_total", "uidgen_ring_available", "uidgen_ring_size",
			"uidgen_segment_claim_size", "uidgen_segment_claims_failed_total", "uidgen_segment_claims_total",
			"uidgen_segment_last_claim_timestamp_seconds", "uidgen_segment_pending",
		}
		if got := slices.Sorted(maps.Keys(before)); !slices.Equal(got, slices.Sorted(slices.Values(wantNames))) {
			t.Fatalf("metrics %v, want %v", got, wantNames)
		}
		if before["uidgen_ids_total"] != 0 || before["uidgen_segment_claims_total"] != 1 || before["uidgen_ring_size"] != 64 ||
			before["uidgen_segment_claim_size"] != 100 {
			t.Fatalf("a new generator: %v", before)
		}
		dst := make([]int64, 250) // past two and a half ranges of the step
		if _, err := g.NextIDs(dst); err != nil {
			t.Fatal(err)
		}
		after := gather(t, c)
		if after["uidgen_ids_total"] != 250 || after["uidgen_segment_claims_total"] < 3 ||
			after["uidgen_padder_fills_total"] <= before["uidgen_padder_fills_total"] {
			t.Errorf("after 250 numbers: %v", after)
		}
	})
}
