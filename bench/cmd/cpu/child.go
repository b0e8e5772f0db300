package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// sample is what a child measured, from just after its generator was built
// and warmed to its last take, as it prints it for the parent.
type sample struct {
	Wall    time.Duration
	Process time.Duration // the process's CPU time, user and system
	Taker   time.Duration // the taker thread's CPU time; flat out only
	IDs     int64         // IDs taken
}

// share returns cpu as a share of one core over s.Wall.
func (s sample) share(cpu time.Duration) float64 { return float64(cpu) / float64(s.Wall) }

// perSecond returns the IDs taken a second.
func (s sample) perSecond() float64 { return float64(s.IDs) / s.Wall.Seconds() }

// runChild builds the implementation named, takes IDs from it at rate a
// second for d (flat out for a rate of 0), and writes the sample to w as
// JSON. Start-up stays out of the sample: the process has built the
// generator, taken an ID and collected its garbage before it starts.
func runChild(w io.Writer, name string, rate int, d time.Duration) error {
	im, ok := lookup(name)
	if !ok {
		return fmt.Errorf("-child %q: no such implementation", name)
	}
	if rate < 0 {
		return fmt.Errorf("-rate %d: want 0 (flat out) or more", rate)
	}
	next, closeGen, err := im.open()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer closeGen()
	if _, err := next(); err != nil {
		return fmt.Errorf("%s: first ID: %w", name, err)
	}
	runtime.GC()
	var s sample
	if rate == 0 {
		s, err = flatOut(next, d)
	} else {
		s, err = paced(next, rate, d)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return json.NewEncoder(w).Encode(s)
}

// batch is how many IDs paced takes at a tick (more after a late one). A tick costs a timer's
// wake-up, tens of microseconds on a VM: a tick a millisecond would cost
// more than the takes of every generator here at 100k IDs a second, and hide
// what the table compares. 1,000 is fewer than bwmarrin/snowflake makes in a
// millisecond, so a tick's takes do not make it spin for the next one.
const batch = 1000

// paced takes rate IDs a second for d from one goroutine, which sleeps
// between ticks of batch IDs' time (a millisecond at 1M/s, a second at most)
// and at each takes what the rate owes by then. A late tick is made up at
// the next, so the rate holds however the ticks fall, and no core spins to
// keep it.
func paced(next func() (int64, error), rate int, d time.Duration) (sample, error) {
	t := time.NewTicker(min(time.Second, batch*time.Second/time.Duration(rate)))
	defer t.Stop()
	cpu0, err := processCPU()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	var taken int64
	for {
		<-t.C
		elapsed := time.Since(start)
		for owed := int64(float64(rate)*min(elapsed, d).Seconds()) - taken; owed > 0; owed-- {
			if _, err := next(); err != nil {
				return sample{}, fmt.Errorf("ID %d at %d/s: %w", taken+1, rate, err)
			}
			taken++
		}
		if elapsed >= d {
			break
		}
	}
	wall := time.Since(start)
	cpu1, err := processCPU()
	if err != nil {
		return sample{}, err
	}
	return sample{Wall: wall, Process: cpu1 - cpu0, IDs: taken}, nil
}

// checkEvery is how many takes flatOut makes between looks at the clock,
// which would cost more than the take it timed.
const checkEvery = 4096

// flatOut takes IDs as fast as one goroutine can for d. The goroutine keeps
// its thread to itself, so that the thread's CPU time is the taker's alone
// and the rest of the process's is the padder's and the runtime's.
func flatOut(next func() (int64, error), d time.Duration) (sample, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, err := processCPU()
	if err != nil {
		return sample{}, err
	}
	thread0, err := threadCPU()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	var taken int64
	for time.Since(start) < d {
		for range checkEvery {
			if _, err := next(); err != nil {
				return sample{}, fmt.Errorf("ID %d flat out: %w", taken+1, err)
			}
			taken++
		}
	}
	wall := time.Since(start)
	thread1, err := threadCPU()
	if err != nil {
		return sample{}, err
	}
	cpu1, err := processCPU()
	if err != nil {
		return sample{}, err
	}
	return sample{Wall: wall, Process: cpu1 - cpu0, Taker: thread1 - thread0, IDs: taken}, nil
}

// processCPU returns the user and system CPU time of the whole process.
func processCPU() (time.Duration, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// threadCPU returns the CPU time of the calling thread.
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
