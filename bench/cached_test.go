package bench

import (
	"context"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/load"
)

// batch is how many IDs BenchmarkCachedBatch takes per NextIDs call.
const batch = 64

// openCached builds a cached generator with the defaults (a ring of 65,536
// slots) that the benchmark closes when it ends.
func openCached(b *testing.B) *cached.Generator {
	g, err := cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}

// BenchmarkCached is the product: NextID from the ring the padder keeps
// full, borrowing future seconds when the load outruns 8,192 IDs/s.
func BenchmarkCached(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		return shared(openCached(b).NextID)
	})
}

// BenchmarkCachedTwitter is BenchmarkCached in Twitter's layout, the one
// bwmarrin/snowflake makes: whole milliseconds of 4,096 IDs in a ring of 8
// of them (32,768 slots), borrowing future milliseconds past 4,096,000
// IDs/s.
func BenchmarkCachedTwitter(b *testing.B) {
	layout, err := uidgen.NamedLayout("twitter")
	if err != nil {
		b.Fatal(err)
	}
	benchLevels(b, func(b *testing.B) func() nextFunc {
		g, err := cached.New(context.Background(), cached.Config{Layout: layout, Assigner: uidgen.Static(1)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { g.Close() })
		return shared(g.NextID)
	})
}

// BenchmarkCachedBatch takes IDs with NextIDs, batch at a time, into a
// buffer of each goroutine's own, and hands them out one per op, so its
// ns/op is per ID as everywhere else.
func BenchmarkCachedBatch(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		g := openCached(b)
		return func() nextFunc {
			buf := make([]int64, batch)
			i := len(buf)
			return func() (int64, error) {
				if i == len(buf) {
					if _, err := g.NextIDs(buf); err != nil {
						return 0, err
					}
					i = 0
				}
				i++
				return buf[i-1], nil
			}
		}
	})
}

// BenchmarkCachedLatency times every NextID of two goroutines while the
// padder refills the ring behind them, and reports percentiles of the
// latency. Each goroutine reads the clock once per call, so a latency
// includes one clock read and the loop.
func BenchmarkCachedLatency(b *testing.B) {
	const consumers = 2
	g := openCached(b)
	hists := make([]*hdrhistogram.Histogram, consumers)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range consumers {
		hists[i] = load.NewHistogram()
		wg.Go(func() {
			last := time.Now()
			for range b.N / consumers {
				if _, err := g.NextID(); err != nil {
					b.Error(err)
					return
				}
				now := time.Now()
				load.Record(hists[i], now.Sub(last))
				last = now
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	for i := 1; i < consumers; i++ {
		hists[0].Merge(hists[i])
	}
	for _, p := range []struct {
		q    float64
		unit string
	}{{0.5, "p50-ns"}, {0.99, "p99-ns"}, {0.999, "p99.9-ns"}, {0.9999, "p99.99-ns"}} {
		b.ReportMetric(float64(load.Quantile(hists[0], p.q)), p.unit)
	}
}
