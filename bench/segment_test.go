package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/sqlitedb"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/segment"
)

// The segment benchmarks measure the segment generator, which hands out
// numbers claimed in ranges from a leaf_alloc table on MariaDB, on
// PostgreSQL and in a SQLite file, beside the cached generator on a static
// worker ID in the same run: both take from the same lock-free ring with
// the same defaults, so what differs is what fills it. They also report
// the claims a second the segment generator makes, flat out, idle and one
// number a claim, counted by the generator and, as statements, by the
// counting connector of the leased benchmarks.

// segmentTable gives d a tag table of its own, dropped when the benchmark
// ends, opened as countedDB opens it, and returns the Config of the tag
// "bench" in it, with the defaults, and the count of statements sent to the
// database.
func segmentTable(b *testing.B, d database) (segment.Config, *atomic.Int64) {
	db, statements := countedDB(b, d)
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	table := "leaf_alloc_bench_" + rand.Text()
	if err := segment.EnsureSchema(ctx, segment.Config{DB: db, Table: table}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if _, err := db.Exec("DROP TABLE " + table); err != nil {
			b.Errorf("drop %s: %v", table, err)
		}
	})
	return segment.Config{DB: db, Table: table, Tag: "bench"}, statements
}

// openSegment returns a segment generator of cfg, closed when the
// benchmark ends: before segmentTable's table is dropped, since cleanups
// run last first, so that Close gives back its numbers.
func openSegment(b *testing.B, cfg segment.Config) *segment.Generator {
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	g, err := segment.New(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := g.Close(); err != nil {
			b.Error(err)
		}
	})
	return g
}

// claimCounter returns the claims gens have made so far.
func claimCounter(gens ...*segment.Generator) func() int64 {
	return func() int64 {
		var n int64
		for _, g := range gens {
			n += g.Stats().Claims
		}
		return n
	}
}

// measureClaims runs the benchmark loop and adds the claims and statements
// a second that the generators behind claims asked of the database while
// it ran.
func measureClaims(b *testing.B, claims func() int64, statements *atomic.Int64, loop func()) {
	claimed, sent := claims(), statements.Load()
	loop()
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(claims()-claimed)/s, "claims/s")
		b.ReportMetric(float64(statements.Load()-sent)/s, "stmts/s")
	}
}

// BenchmarkSegment takes numbers flat out from a segment generator on each
// database, from one goroutine (loop=serial) and from GOMAXPROCS goroutines
// (loop=parallel), beside the cached generator's NextID, which is the
// target: benchstat -col /gen puts them side by side. With the defaults
// the first range is the step, and every claim after it is sized to last
// ClaimEvery at the rate it went, so MaxStep: flat out claims/s is the
// takes a second over MaxStep (about 45 at 90M a second), whatever the
// database.
func BenchmarkSegment(b *testing.B) {
	loops := []struct {
		name string
		run  func(b *testing.B, next nextFunc)
	}{
		{"serial", serial},
		{"parallel", func(b *testing.B, next nextFunc) { parallel(b, 1, shared(next)) }},
	}
	for _, loop := range loops {
		b.Run("loop="+loop.name, func(b *testing.B) {
			b.Run("gen=cached", func(b *testing.B) {
				loop.run(b, openCached(b).NextID)
			})
			for _, d := range databases {
				b.Run("gen="+d.kind, func(b *testing.B) {
					cfg, statements := segmentTable(b, d)
					g := openSegment(b, cfg)
					measureClaims(b, claimCounter(g), statements, func() { loop.run(b, g.NextID) })
				})
			}
		})
	}
}

// BenchmarkSegmentClaim takes numbers flat out from segment generators
// whose every range is one number (Step and MaxStep 1) on each database, so
// that each take waits for a claim of its own, and reports the claims a
// second. One generator (gens=1) is bound by its padder, which polls for
// the claim to land a millisecond at least after asking for it, more than
// a claim costs any of the three: ns/op is about the same on each. A fleet
// of generators on one tag, one goroutine each (gens=16 on 2 cores), asks
// for several thousand claims a second, more than one database answers:
// claims/s is what the database sustains, its writes on one row under
// contention, where a claim may wait for SQLite's write lock up to its
// busy timeout. A claim is two statements: the look for numbers given
// back, and the UPDATE of max_id.
func BenchmarkSegmentClaim(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	const parallelism = 8
	for _, d := range databases {
		b.Run("db="+d.kind, func(b *testing.B) {
			b.Run("gens=1", func(b *testing.B) {
				cfg, statements := segmentTable(b, d)
				cfg.Step, cfg.MaxStep = 1, 1
				g := openSegment(b, cfg)
				measureClaims(b, claimCounter(g), statements, func() { serial(b, g.NextID) })
			})
			b.Run(fmt.Sprintf("gens=%d", parallelism*procs), func(b *testing.B) {
				cfg, statements := segmentTable(b, d)
				// A ring of two slots: what one-number ranges fill. A take
				// waits as long as a claim may wait for SQLite's write
				// lock: sixteen writers of one file leave some claims
				// waiting over the default second, and the take then fails.
				cfg.Step, cfg.MaxStep, cfg.RingSize = 1, 1, 2
				cfg.RejectedTake = ringbuffer.Wait(sqlitedb.BusyTimeout)
				gens := make([]*segment.Generator, parallelism*procs)
				for i := range gens {
					gens[i] = openSegment(b, cfg)
				}
				var started atomic.Int64
				measureClaims(b, claimCounter(gens...), statements, func() {
					parallel(b, parallelism, func() nextFunc { return gens[started.Add(1)-1].NextID })
				})
			})
		})
	}
}

// idleTick is the idle time each op of BenchmarkSegmentIdle stands for.
const idleTick = 10 * time.Millisecond

// BenchmarkSegmentIdle measures the claims a second of an idle segment
// generator on each database, after a first take: none, since only takes
// that drain the ring make the padder look at the range and ask for the
// next. It also reports the padder's runs a second, each a look at the
// range under its lock, which idleness needs no more than claims. Each op
// is an idle tick, so ns/op says nothing.
func BenchmarkSegmentIdle(b *testing.B) {
	for _, d := range databases {
		b.Run("db="+d.kind, func(b *testing.B) {
			cfg, statements := segmentTable(b, d)
			g := openSegment(b, cfg)
			if _, err := g.NextID(); err != nil {
				b.Fatal(err)
			}
			fills := g.Stats().Fills
			measureClaims(b, claimCounter(g), statements, func() {
				for b.Loop() {
					time.Sleep(idleTick)
				}
			})
			b.ReportMetric(float64(g.Stats().Fills-fills)/b.Elapsed().Seconds(), "padruns/s")
		})
	}
}
