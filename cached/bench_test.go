package cached

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// The baselines, from internal/baseline, called through a func value as the
// bench module calls every implementation.

func BenchmarkAtomicCounter(b *testing.B) { benchSerial(b, baseline.Atomic()) }

func BenchmarkAtomicCounterParallel(b *testing.B) { benchParallel(b, baseline.Atomic()) }

func BenchmarkMutexCounter(b *testing.B) { benchSerial(b, baseline.Mutex()) }

func BenchmarkMutexCounterParallel(b *testing.B) { benchParallel(b, baseline.Mutex()) }

// benchSerial loops over b.N, not b.Loop: b.Loop ramps up before the
// testing package sets GOMAXPROCS for the first -cpu value, so a -cpu 1,2
// run would time its -cpu 1 row at the process's GOMAXPROCS
// (golang/go#49980).
func benchSerial(b *testing.B, next func() (int64, error)) {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := next(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchParallel(b *testing.B, next func() (int64, error)) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := next(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// paddedSlot is a value alone on its cache line, as a ring's slot is.
type paddedSlot struct {
	v atomic.Int64
	_ [max(unsafe.Sizeof(cpu.CacheLinePad{}), 8) - 8]byte // none on wasm, whose pad is 0
}

// BenchmarkPaddedSlotsParallel is what a take that hands its slot back
// would cost, as Baidu's per-slot flags do: claim a slot with a CAS, then an
// atomic store to that slot's own line, and no producer at all. Under
// RunParallel the locked store waits for a line last written by the other
// core; the ring avoids it by reading slots before it claims them and never
// writing them.
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
		Assigner: uidgen.Static(1), Clock: clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Hour)),
	})
	if err != nil {
		b.Fatal(err)
	}
	benchSerial(b, g.NextID)
}

// benchGenerator returns a generator with the defaults, and reports its
// Stats when the benchmark ends: takes that waited for the padder, takes
// that failed (the target is none), and seconds borrowed ahead of the clock.
func benchGenerator(b *testing.B, cfg Config) *Generator {
	b.ReportAllocs()
	g := newGenerator(b, cfg)
	b.Cleanup(func() {
		s := g.Stats()
		b.ReportMetric(float64(s.TakesWaited), "waits")
		b.ReportMetric(float64(s.TakesFailed), "fails")
		b.ReportMetric(s.Ahead.Seconds(), "s-ahead")
	})
	return g
}

func BenchmarkNextID(b *testing.B) { benchSerial(b, benchGenerator(b, Config{}).NextID) }

// BenchmarkNextIDDirect and BenchmarkAtomicDirect are the raw loop: the
// call alone, no func value around it, against an atomic add inlined in
// the same loop.
func BenchmarkNextIDDirect(b *testing.B) {
	g := benchGenerator(b, Config{})
	b.ResetTimer()
	for range b.N {
		if _, err := g.NextID(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAtomicDirect(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	for range b.N {
		n.Add(1)
	}
}

func BenchmarkNextIDParallel(b *testing.B) { benchParallel(b, benchGenerator(b, Config{}).NextID) }

// benchGeneConfig has the default layout less 10 worker bits, given to the gene.
func benchGeneConfig(b *testing.B) Config {
	return Config{Layout: idtest.Layout(b, bits.Spec{TimeBits: 30, WorkerBits: 10, SeqBits: 13, GeneBits: 10})}
}

// BenchmarkNextIDFor takes IDs for shard keys on a layout with 10 gene bits:
// NextID's take, and one mask of the key into the gene.
func BenchmarkNextIDFor(b *testing.B) {
	g := benchGenerator(b, benchGeneConfig(b))
	var key int64
	benchSerial(b, func() (int64, error) {
		key++
		return g.NextIDFor(key)
	})
}

// BenchmarkNextIDGene is NextID on the same gene layout: the padder puts
// the spreading gene in, so a take costs what it costs without one.
func BenchmarkNextIDGene(b *testing.B) { benchSerial(b, benchGenerator(b, benchGeneConfig(b)).NextID) }

// BenchmarkNextIDs takes 256 IDs per call; ns/op is per ID.
func BenchmarkNextIDs(b *testing.B) {
	g := benchGenerator(b, Config{})
	dst := make([]int64, 256)
	for i := 0; i < b.N; i += len(dst) {
		if _, err := g.NextIDs(dst); err != nil {
			b.Fatal(err)
		}
	}
}
