package cached

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/fakeclock"
	"github.com/seed4d941b13/uidgen/worker"
)

// The baselines: the cheapest shared counters there are. A UID generator
// cannot beat a bare atomic add; the targets are ratios to it.

func BenchmarkAtomicCounter(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	for b.Loop() {
		n.Add(1)
	}
}

func BenchmarkAtomicCounterParallel(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Add(1)
		}
	})
}

// mutexCounter is a counter behind a mutex, the shape of defaultgen's
// NextID without its clock.
type mutexCounter struct {
	mu sync.Mutex
	n  int64
}

func (c *mutexCounter) next() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func BenchmarkMutexCounter(b *testing.B) {
	b.ReportAllocs()
	var c mutexCounter
	for b.Loop() {
		c.next()
	}
}

func BenchmarkMutexCounterParallel(b *testing.B) {
	b.ReportAllocs()
	var c mutexCounter
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.next()
		}
	})
}

// paddedSlot is a value alone on its cache line, as a ring's slot is.
type paddedSlot struct {
	v atomic.Int64
	_ [unsafe.Sizeof(cpu.CacheLinePad{}) - 8]byte
}

// BenchmarkPaddedSlotsParallel is what a take that hands its slot back
// costs, as Baidu's flags and this ring's first version did: claim a slot
// with a CAS, then an atomic store to that slot's own line, and no producer
// at all. Under RunParallel the locked store waits for a line last written
// by the other core, and this costs many times the bare counter; the ring
// avoids it by reading slots before it claims them and never writing them.
func BenchmarkPaddedSlotsParallel(b *testing.B) {
	b.ReportAllocs()
	const size = 1 << 16
	var cursor atomic.Int64
	slots := make([]paddedSlot, size)
	b.ResetTimer() // the 4 MiB of slots are not what is measured
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for {
				c := cursor.Load()
				if cursor.CompareAndSwap(c, c+1) {
					slots[c&(size-1)].v.Store(c)
					break
				}
			}
		}
	})
}

// BenchmarkDefaultgen is the mutex-guarded generator on a hand-driven clock
// whose Sleep returns at once: on the system clock it makes 8,192 IDs a
// second and sleeps, which would time the sleep, not the generator.
func BenchmarkDefaultgen(b *testing.B) {
	b.ReportAllocs()
	g, err := defaultgen.New(b.Context(), defaultgen.Config{
		Assigner: worker.Static(1), Clock: fakeclock.New(defaultgen.DefaultEpoch.Add(time.Hour)),
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.NextID(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGenerator returns a generator with the defaults, and reports its
// Stats when the benchmark ends: takes that waited for the padder, takes
// that failed (the target is none), and seconds borrowed ahead of the clock.
func benchGenerator(b *testing.B) *Generator {
	b.ReportAllocs()
	g := newGenerator(b, Config{})
	b.Cleanup(func() {
		s := g.Stats()
		b.ReportMetric(float64(s.TakesWaited), "waits")
		b.ReportMetric(float64(s.TakesFailed), "fails")
		b.ReportMetric(float64(s.SecondsAhead), "s-ahead")
	})
	return g
}

func BenchmarkNextID(b *testing.B) {
	g := benchGenerator(b)
	for b.Loop() {
		if _, err := g.NextID(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNextIDParallel(b *testing.B) {
	g := benchGenerator(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := g.NextID(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkNextIDs takes 256 IDs per call; ns/op is per ID.
func BenchmarkNextIDs(b *testing.B) {
	g := benchGenerator(b)
	dst := make([]int64, 256)
	for i := 0; i < b.N; i += len(dst) {
		if _, err := g.NextIDs(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextIDLatency times every NextID of two goroutines while the
// padder refills the ring behind them, and reports percentiles of the
// latency. Each goroutine reads the clock once per call, so a latency
// includes one clock read and the loop (some 20-40 ns).
func BenchmarkNextIDLatency(b *testing.B) {
	const consumers, bucket, buckets = 2, 10 * time.Nanosecond, 100_000 // up to 1 ms
	g := benchGenerator(b)
	hists := make([][]int64, consumers)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range consumers {
		hist := make([]int64, buckets+1) // the last holds everything above
		hists[i] = hist
		wg.Go(func() {
			start := time.Now()
			last := time.Duration(0)
			for range b.N / consumers {
				if _, err := g.NextID(); err != nil {
					b.Error(err)
					return
				}
				now := time.Since(start)
				hist[min((now-last)/bucket, buckets)]++
				last = now
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	total := make([]int64, buckets+1)
	for _, h := range hists {
		for i, n := range h {
			total[i] += n
		}
	}
	for _, p := range []struct {
		q    float64
		unit string
	}{{0.5, "p50-ns"}, {0.99, "p99-ns"}, {0.999, "p99.9-ns"}, {0.9999, "p99.99-ns"}} {
		b.ReportMetric(float64(percentile(total, p.q, bucket)), p.unit)
	}
}

// percentile returns the upper edge of the bucket of width bucket below
// which a fraction q of the counts in hist fall.
func percentile(hist []int64, q float64, bucket time.Duration) time.Duration {
	var sum int64
	for _, n := range hist {
		sum += n
	}
	want := int64(q * float64(sum))
	acc := int64(0)
	i := slices.IndexFunc(hist, func(n int64) bool { acc += n; return acc > want })
	return time.Duration(max(i, 0)+1) * bucket
}
