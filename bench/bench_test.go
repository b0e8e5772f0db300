package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"
)

// Every benchmark here measures one thing the same way: ns/op is the wall
// time per ID across all goroutines, and IDs/s is its inverse, at 1
// goroutine (a plain loop), 2 and 64 (RunParallel). Each implementation is
// called through a func value, so the harness costs the same nanosecond or
// so in every row, the atomic baseline included.

// goroutineLevels are the contention levels every implementation runs at.
var goroutineLevels = []int{1, 2, 64}

// nextFunc hands out one ID per call.
type nextFunc func() (int64, error)

// opener builds a fresh implementation for one sub-benchmark and returns a
// func that each goroutine calls once for the nextFunc it will use: the
// same one for most implementations, a goroutine's own for a batch.
type opener func(b *testing.B) (perGoroutine func() nextFunc)

// shared is the perGoroutine of an implementation whose goroutines all
// call next.
func shared(next nextFunc) func() nextFunc { return func() nextFunc { return next } }

// sink keeps the compiler from proving an ID unused.
var sink atomic.Int64

// benchLevels runs a sub-benchmark per goroutine level, each on a fresh
// implementation from open.
func benchLevels(b *testing.B, open opener) {
	for _, g := range goroutineLevels {
		if g == 1 {
			b.Run("goroutines=1", func(b *testing.B) { serial(b, open(b)()) })
			continue
		}
		// RunParallel starts parallelism × GOMAXPROCS goroutines; the name
		// says how many ran.
		procs := runtime.GOMAXPROCS(0)
		parallelism := max(1, (g+procs-1)/procs)
		b.Run(fmt.Sprintf("goroutines=%d", parallelism*procs), func(b *testing.B) {
			parallel(b, parallelism, open(b))
		})
	}
}

func serial(b *testing.B, next nextFunc) {
	b.ReportAllocs()
	var last int64
	for b.Loop() {
		id, err := next()
		if err != nil {
			b.Fatal(err)
		}
		last = id
	}
	sink.Store(last)
	reportRate(b)
}

func parallel(b *testing.B, parallelism int, perGoroutine func() nextFunc) {
	b.ReportAllocs()
	b.SetParallelism(parallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		next := perGoroutine()
		var last int64
		for pb.Next() {
			id, err := next()
			if err != nil {
				b.Error(err)
				return
			}
			last = id
		}
		sink.Store(last)
	})
	reportRate(b)
}

// reportRate adds IDs/s, the number the plot and the ratios use.
func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "IDs/s")
	}
}

// BenchmarkAtomic is the baseline: a bare atomic.Int64.Add, unique but
// neither time-ordered nor unique across processes.
func BenchmarkAtomic(b *testing.B) {
	benchLevels(b, func(*testing.B) func() nextFunc { return shared(baseline.Atomic()) })
}

// BenchmarkMutex is a counter under a sync.Mutex: what any lock-based
// generator pays at least.
func BenchmarkMutex(b *testing.B) {
	benchLevels(b, func(*testing.B) func() nextFunc { return shared(baseline.Mutex()) })
}

// BenchmarkDefaultgen is uidgen's baseline, Baidu's DefaultUidGenerator:
// the default layout's 13 sequence bits cap it at 8,192 IDs per second,
// after which callers sleep to the next second.
func BenchmarkDefaultgen(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		g, err := defaultgen.New(context.Background(), defaultgen.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			b.Fatal(err)
		}
		return shared(g.NextID)
	})
}
