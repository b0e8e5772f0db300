package ring

import (
	"sync/atomic"
	"testing"
)

// benchRing returns a ring of 2^16 values that a producer goroutine keeps
// full with runs of 8,192, as the cached generator's padder does, until
// the benchmark ends.
func benchRing(b *testing.B) *Ring {
	r, err := New(Config{Size: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	var next int64
	fill := func() {
		for r.Free() >= 8192 {
			n, _ := r.Put(Run{First: next, N: 8192}) // increasing: never refused
			next += int64(n)
		}
	}
	fill()
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-r.Wakeups():
				r.Rearm()
				fill()
			}
		}
	}()
	b.Cleanup(func() { close(stop); <-done })
	return r
}

// BenchmarkTake is a take from a ring kept full, called directly;
// BenchmarkAtomic is the floor it is measured against: one uncontended
// atomic add, inlined.
func BenchmarkTake(b *testing.B) {
	r := benchRing(b)
	b.ResetTimer()
	for range b.N {
		if _, err := r.Take(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAtomic(b *testing.B) {
	var n atomic.Int64
	for range b.N {
		n.Add(1)
	}
}

// BenchmarkTakeParallel is Take on every core at once, against
// BenchmarkAtomicParallel: both pass one cache line from core to core.
func BenchmarkTakeParallel(b *testing.B) {
	r := benchRing(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := r.Take(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkAtomicParallel(b *testing.B) {
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Add(1)
		}
	})
}
