package hammer

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
		Goroutines:    4,
		Duration:      50 * time.Millisecond,
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
	if got, want := r.Latency.Count(), uint64(r.IDs)/3; got < want || got > want+4 {
		t.Errorf("timed %d calls of %d, want about %d", got, r.IDs, want)
	}
	if r.Elapsed < 50*time.Millisecond || progressed.Load() == 0 {
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
