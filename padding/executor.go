// Package padding keeps a ring full: its Executor is the one goroutine that
// puts runs of values into a ringbuffer.Ring, after Baidu's
// BufferPaddingExecutor. The cached generator runs one; a program needs it
// only to fill a ring of its own:
//
//	e, err := padding.New(padding.Config{Ring: ring, Source: src})
//	defer e.Close()
//
// What goes in the ring is a Source's business: the cached generator's
// source makes whole seconds of UIDs, borrowing future seconds under heavy
// load. The executor decides only when to fill: once in New, again whenever
// a take leaves the ring below its padding threshold (the ring's Wakeups),
// and on every tick of an optional schedule. Each fill asks the source for
// runs while the ring has room, and stops at the first empty run. When
// the source fails, the executor seals the ring with its error and stops:
// takes drain what is left, then fail with that error.
package padding

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// Pause is what a Source's Next returns, as its error, when it has nothing to
// put now but is not done: the second it would make is further ahead of the
// clock than it may go, or not yet reserved. The executor does not seal the
// ring. It tells the ring's takes why (ringbuffer.Ring.Pause) and asks the
// source again after Retry, or sooner when a take wakes it.
type Pause struct {
	// Retry is when to ask again. It must be more than 0.
	Retry time.Duration

	// Clock says the source waits only for the clock, so it will have
	// values after Retry: takes wait that long without counting it as the
	// producer stalling. Otherwise they count it, and give up as their
	// policy says.
	Clock bool

	// Why is what a take that gives up wraps in its error.
	Why error
}

func (h *Pause) Error() string { return fmt.Sprintf("pausing for %v: %v", h.Retry, h.Why) }

func (h *Pause) Unwrap() error { return h.Why }

// Source makes the values an Executor puts. Only the executor's goroutine
// calls it, one call at a time, so it needs no locks of its own.
type Source interface {
	// Next returns the next run of values, at most room of them, which the
	// executor puts at once, above the last value of the run before (else
	// Put's ringbuffer.ErrOrder seals the ring). An empty run (N 0) means
	// nothing fits in room now: the executor waits for the next wake-up or
	// tick. A *Pause error pauses the executor for a while; any other error
	// stops it, and it seals the ring with that error.
	Next(room int) (ringbuffer.Run, error)
}

// Refresher is a Source that wants a word at the start of every fill, before
// the executor looks at the ring's room: the cached generator's source
// drops the values gone stale there (ringbuffer.Ring.DropBelow), so that they make room.
type Refresher interface {
	Source
	Refresh()
}

// Config says what an Executor fills, from where, and how often.
type Config struct {
	// Ring is the ring to fill. Required. The Executor is its only
	// producer.
	Ring *ringbuffer.Ring

	// Source makes the values. Required.
	Source Source

	// Interval is Baidu's scheduleInterval: the Executor also fills the
	// ring this often. Zero means only when a take asks; it must not be
	// negative.
	Interval time.Duration
}

// Executor is the goroutine that fills a ring. Build one with New and stop it
// with Close. An Executor must not be copied.
type Executor struct {
	ring *ringbuffer.Ring
	src  Source

	fills atomic.Int64 // fills so far; written only by the filling goroutine

	// retry runs while a Pause lasts, and paused says one does: wake-ups
	// are left unanswered, the ring's wake-up flag up, so that takes do not
	// wake the executor for nothing. Every fill, the retry's or a tick's,
	// ends the pause, which only the source pausing again sets again: the
	// wake-ups after it are answered. Only the filling goroutine touches
	// them.
	retry  *time.Timer
	paused bool

	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when run returns
	closeOnce sync.Once
}

// New checks cfg, fills cfg.Ring, and starts the goroutine that keeps it
// full. It fails with an error wrapping uidgen.ErrConfig, naming the
// field, when Ring or Source is nil or Interval is negative. If the source
// fails during the first fill, New still succeeds: the ring is sealed, and
// takes fail once it drains.
func New(cfg Config) (*Executor, error) {
	var missing []string
	if cfg.Ring == nil {
		missing = append(missing, "Ring")
	}
	if cfg.Source == nil {
		missing = append(missing, "Source")
	}
	switch {
	case len(missing) == 1:
		return nil, fmt.Errorf("padding: %w: %s is nil: want both Ring and Source", uidgen.ErrConfig, missing[0])
	case len(missing) == 2:
		return nil, fmt.Errorf("padding: %w: Ring and Source are nil: want both", uidgen.ErrConfig)
	case cfg.Interval < 0:
		return nil, fmt.Errorf("padding: %w: Interval %v: want 0 (off) or more", uidgen.ErrConfig, cfg.Interval)
	}
	e := &Executor{
		ring:  cfg.Ring,
		src:   cfg.Source,
		retry: time.NewTimer(time.Hour),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	e.retry.Stop()
	if err := e.fill(); err != nil {
		e.ring.Seal(err)
		close(e.done)
		return e, nil
	}
	var tick <-chan time.Time
	var ticker *time.Ticker
	if cfg.Interval > 0 {
		ticker = time.NewTicker(cfg.Interval)
		tick = ticker.C
	}
	go e.run(tick, ticker)
	return e, nil
}

// run fills the ring each time a take asks or the schedule ticks, until Close
// or until the source fails.
func (e *Executor) run(tick <-chan time.Time, ticker *time.Ticker) {
	defer close(e.done)
	if ticker != nil {
		defer ticker.Stop()
	}
	defer e.retry.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-e.ring.Wakeups():
			if e.paused {
				continue
			}
		case <-tick:
		case <-e.retry.C:
		}
		e.ring.Rearm() // before fill reads Free: a later ask is not lost
		if err := e.fill(); err != nil {
			e.ring.Seal(err)
			return
		}
	}
}

// fill puts the source's runs while it has any that fit. It returns the
// source's error, if any, but for a Pause, which it tells the ring and
// schedules a retry for.
func (e *Executor) fill() error {
	e.fills.Add(1)
	if e.paused {
		e.paused = false
		e.retry.Stop()
	}
	if r, ok := e.src.(Refresher); ok {
		r.Refresh()
	}
	for {
		select {
		case <-e.stop:
			return nil
		default:
		}
		run, err := e.src.Next(e.ring.Free())
		var h *Pause
		if errors.As(err, &h) {
			var until time.Time
			if h.Clock {
				until = time.Now().Add(h.Retry)
			}
			e.ring.Pause(until, h.Why)
			e.retry.Reset(h.Retry)
			e.paused = true
			return nil
		}
		if err != nil || run.N <= 0 {
			return err
		}
		if _, err := e.ring.Put(run); err != nil {
			return err // a run out of order: the source is broken
		}
	}
}

// Close stops the goroutine and waits for it to return. It is idempotent and
// safe to call from any goroutine; it always returns nil. The ring is left as
// it is: its values can still be taken.
func (e *Executor) Close() error {
	e.closeOnce.Do(func() { close(e.stop) })
	<-e.done
	return nil
}

// Fills returns how many fills the executor has made: the one in New, and
// one per wake-up or tick since.
func (e *Executor) Fills() int64 { return e.fills.Load() }
