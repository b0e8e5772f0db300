// Package load drives an ID generator from many goroutines for a fixed
// time and records how long its calls took, for `uidgen bench` and the runs
// in bench/. It measures; it asserts nothing about time.
package load

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Config says how hard and how long to hammer. Its zero value but for
// Duration means one goroutine timing every call.
type Config struct {
	// Goroutines is how many goroutines call next at once; 0 means 1.
	Goroutines int

	// Duration is how long they keep calling. Required.
	Duration time.Duration

	// SampleEvery times one call in SampleEvery and leaves the rest untimed,
	// since reading the clock can cost more than a cached NextID. 0 or 1
	// times every call, which makes Max exact.
	SampleEvery int

	// Progress, if not nil, is called from Run's goroutine about every
	// ProgressEvery with the IDs handed out so far and the time since the
	// start, while the goroutines run.
	Progress func(ids int64, elapsed time.Duration)

	// ProgressEvery is the period of Progress; 0 means 200ms.
	ProgressEvery time.Duration
}

// Result is what a Run measured.
type Result struct {
	IDs     int64                   // calls that returned an ID
	Elapsed time.Duration           // from the gate opening to the last goroutine done
	Latency *hdrhistogram.Histogram // the timed calls, successful or not (NewHistogram's)
	Err     error                   // the first error next returned; its goroutine stopped there
}

// PerSecond returns the IDs handed out per second of Elapsed.
func (r *Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.IDs) / r.Elapsed.Seconds()
}

// NsPerID returns the wall-clock nanoseconds per ID across all goroutines:
// 1e9 / PerSecond.
func (r *Result) NsPerID() float64 {
	if r.IDs == 0 {
		return 0
	}
	return float64(r.Elapsed.Nanoseconds()) / float64(r.IDs)
}

// flushEvery is how many IDs a goroutine takes between adding its count to
// the shared total: often enough for a live progress line, rarely enough
// that the shared cache line costs nothing.
const flushEvery = 1024

// Run starts cfg.Goroutines goroutines behind a gate, lets each call next
// until cfg.Duration has passed, and returns what they measured. A
// goroutine whose next fails stops; the others go on.
func Run(cfg Config, next func() (int64, error)) Result {
	goroutines := max(cfg.Goroutines, 1)
	var (
		c     = caller{next: next, every: int64(max(cfg.SampleEvery, 1)), gate: make(chan struct{})}
		wg    sync.WaitGroup
		hists = make([]*hdrhistogram.Histogram, goroutines)
		errs  = make([]error, goroutines)
	)
	for i := range goroutines {
		hists[i] = NewHistogram()
		wg.Go(func() { errs[i] = c.call(hists[i]) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	start := time.Now()
	close(c.gate)
	c.watch(cfg, start, done)

	r := Result{IDs: c.total.Load(), Elapsed: time.Since(start), Latency: NewHistogram()}
	for i := range hists {
		r.Latency.Merge(hists[i])
		if r.Err == nil {
			r.Err = errs[i]
		}
	}
	return r
}

// caller is what Run's goroutines share.
type caller struct {
	next  func() (int64, error)
	every int64         // time one call in every
	gate  chan struct{} // closed when the goroutines start calling
	total atomic.Int64  // IDs so far, added in chunks of flushEvery
	stop  atomic.Bool   // set once by watch when Duration is up
}

// call calls next, timing one call in every into h, until the stop flag
// is set or next fails, and returns next's error.
func (c *caller) call(h *hdrhistogram.Histogram) error {
	var n int64
	defer func() { c.total.Add(n % flushEvery) }()
	<-c.gate
	for {
		var err error
		if n%c.every == 0 {
			t := time.Now()
			_, err = c.next()
			Record(h, time.Since(t))
		} else {
			_, err = c.next()
		}
		if err != nil {
			return err
		}
		n++
		if n%flushEvery == 0 {
			c.total.Add(flushEvery)
		}
		// Looked at on every call, since a rate-limited generator may take
		// seconds for flushEvery IDs. Written once, the flag's line stays
		// shared in every core's cache.
		if c.stop.Load() {
			return nil
		}
	}
}

// watch reports progress every cfg.ProgressEvery and sets the stop flag
// once cfg.Duration has passed since start, until done is closed.
func (c *caller) watch(cfg Config, start time.Time, done <-chan struct{}) {
	progressEvery := cfg.ProgressEvery
	if progressEvery <= 0 {
		progressEvery = 200 * time.Millisecond
	}
	deadline := time.NewTimer(cfg.Duration)
	defer deadline.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cfg.Progress != nil {
				cfg.Progress(c.total.Load(), time.Since(start))
			}
		case <-deadline.C:
			c.stop.Store(true)
		case <-done:
			return
		}
	}
}
