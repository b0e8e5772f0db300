package load

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunCountsEveryID(t *testing.T) {
	var issued atomic.Int64
	var progressed atomic.Int64
	r := Run(Config{
		Goroutines: 4,
		// Long against the progress period: four goroutines spinning on
		// two processors can keep Run's goroutine off the CPU for several
		// ticks.
		Duration:      200 * time.Millisecond,
		SampleEvery:   3,
		ProgressEvery: 5 * time.Millisecond,
		Progress:      func(int64, time.Duration) { progressed.Add(1) },
	}, func() (int64, error) { return issued.Add(1), nil })
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.IDs != issued.Load() || r.IDs == 0 {
		t.Fatalf("counted %d IDs, next handed out %d", r.IDs, issued.Load())
	}
	// Every goroutine times its calls 0, 3, 6, ...: about a third in all.
	if got, want := r.Latency.TotalCount(), r.IDs/3; got < want || got > want+4 {
		t.Errorf("timed %d calls of %d, want about %d", got, r.IDs, want)
	}
	if r.Elapsed < 200*time.Millisecond || progressed.Load() == 0 {
		t.Errorf("elapsed %v, %d progress calls", r.Elapsed, progressed.Load())
	}
	if r.PerSecond() <= 0 || r.NsPerID() <= 0 {
		t.Errorf("PerSecond %v, NsPerID %v", r.PerSecond(), r.NsPerID())
	}
}

func TestRunStopsAGoroutineAtItsError(t *testing.T) {
	boom := errors.New("boom")
	var calls atomic.Int64
	r := Run(Config{Goroutines: 2, Duration: time.Minute}, func() (int64, error) {
		if calls.Add(1) > 10 {
			return 0, boom
		}
		return 1, nil
	})
	if !errors.Is(r.Err, boom) || r.IDs != 10 {
		t.Fatalf("err %v, %d IDs; want boom after 10", r.Err, r.IDs)
	}
	if r.Elapsed > 10*time.Second {
		t.Fatalf("ran %v after every goroutine failed", r.Elapsed)
	}
}

func TestRunStopsASlowGenerator(t *testing.T) {
	// A generator far slower than flushEvery IDs per Duration still stops
	// on time.
	r := Run(Config{Duration: 30 * time.Millisecond}, func() (int64, error) {
		time.Sleep(time.Millisecond)
		return 1, nil
	})
	if r.Elapsed > time.Second || r.IDs == 0 {
		t.Fatalf("elapsed %v for %d IDs", r.Elapsed, r.IDs)
	}
}

// TestLatency: quantiles within the histogram's 1%, and durations outside
// its range clamped to it rather than lost.
func TestLatency(t *testing.T) {
	h := NewHistogram()
	for d := range time.Duration(1000) {
		Record(h, d+1) // 1ns .. 1000ns
	}
	Record(h, -time.Second)
	Record(h, 2*time.Minute)
	if n := h.TotalCount(); n != 1002 {
		t.Fatalf("%d recorded, want 1002: none dropped", n)
	}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500}, {0.99, 990}} {
		if got := Quantile(h, tt.q); got < tt.want*99/100 || got > tt.want*101/100 {
			t.Errorf("Quantile(%v) = %v, want %v within 1%%", tt.q, got, tt.want)
		}
	}
	if got := Max(h); got < time.Minute*99/100 || got > time.Minute*101/100 {
		t.Errorf("Max = %v, want the 2 minutes clamped to a minute", got)
	}
	if got := h.Min(); got != 1 {
		t.Errorf("Min = %d ns, want the negative duration clamped to 1", got)
	}
	if got := Round(1234567 * time.Nanosecond); got != 1230*time.Microsecond {
		t.Errorf("Round(1.234567ms) = %v, want 1.23ms", got)
	}
}
