package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/segment"
)

// The segment benchmarks measure the segment generator, which hands out
// numbers claimed in ranges from a leaf_alloc table on MariaDB and on
// PostgreSQL, beside the cached generator on a static worker ID in the same
// run: both take from the same lock-free ring with the same defaults, so
// what differs is what fills it. They also report the claims a second the
// segment generator makes, flat out and idle, counted by the generator and,
// as statements, by the counting connector of the leased benchmarks.

// countedDB opens the server of kind through a connector that counts every
// statement sent, closed when the benchmark ends, and skips the benchmark
// when the database does not answer.
func countedDB(b *testing.B, kind, env, dsn string) (*sql.DB, *atomic.Int64) {
	statements := new(atomic.Int64)
	db := sql.OpenDB(countingConnector{connector(b, kind, env, dsn), statements})
	b.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		b.Skipf("needs %s (set %s): %v", kind, env, err)
	}
	return db, statements
}

// openSegment returns a segment generator with the defaults on a tag table
// of its own on the server of kind, closed and dropped when the benchmark
// ends, and the count of statements sent to the database. It skips the
// benchmark when the database does not answer.
func openSegment(b *testing.B, kind, env, dsn string) (*segment.Generator, *atomic.Int64) {
	db, statements := countedDB(b, kind, env, dsn)
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
	g, err := segment.New(ctx, segment.Config{DB: db, Table: table, Tag: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	// Registered after the table's: cleanups run last first, so Close
	// gives back its numbers before the table goes.
	b.Cleanup(func() {
		if err := g.Close(); err != nil {
			b.Error(err)
		}
	})
	return g, statements
}

// reportClaims adds the claims and statements a second since before: what
// the segment generator asked of the database while the benchmark ran.
func reportClaims(b *testing.B, g *segment.Generator, claims int64, statements *atomic.Int64, before int64) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(g.Stats().Claims-claims)/s, "claims/s")
		b.ReportMetric(float64(statements.Load()-before)/s, "stmts/s")
	}
}

// BenchmarkSegment takes numbers flat out from a segment generator on each
// server, from one goroutine (loop=serial) and from GOMAXPROCS goroutines
// (loop=parallel), beside the cached generator's NextID, which is the
// target: benchstat -col /gen puts them side by side. With the defaults
// the first range is the step, and the claim after it is sized to last
// ClaimEvery at the rate it went, so MaxStep: a run makes about one claim,
// and claims/s is about one over the run's length.
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
			for _, srv := range servers {
				b.Run("gen="+srv.kind, func(b *testing.B) {
					g, statements := openSegment(b, srv.kind, srv.env, srv.dsn)
					claims, before := g.Stats().Claims, statements.Load()
					loop.run(b, g.NextID)
					reportClaims(b, g, claims, statements, before)
				})
			}
		})
	}
}

// idleTick is the idle time each op of BenchmarkSegmentIdle stands for.
const idleTick = 10 * time.Millisecond

// BenchmarkSegmentIdle measures the claims a second of an idle segment
// generator on each server, after a first take: none, since only takes
// that drain the ring make the padder look at the range and ask for the
// next. It also reports the padder's runs a second, each a look at the
// range under its lock, which idleness needs no more than claims. Each op
// is an idle tick, so ns/op says nothing.
func BenchmarkSegmentIdle(b *testing.B) {
	for _, srv := range servers {
		b.Run("db="+srv.kind, func(b *testing.B) {
			g, statements := openSegment(b, srv.kind, srv.env, srv.dsn)
			if _, err := g.NextID(); err != nil {
				b.Fatal(err)
			}
			st, before := g.Stats(), statements.Load()
			for b.Loop() {
				time.Sleep(idleTick)
			}
			reportClaims(b, g, st.Claims, statements, before)
			b.ReportMetric(float64(g.Stats().PadRuns-st.PadRuns)/b.Elapsed().Seconds(), "padruns/s")
		})
	}
}
