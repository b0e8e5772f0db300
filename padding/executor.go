// Package padding keeps a ring of UIDs full: its Executor is the one goroutine
// that puts whole seconds of IDs into a ringbuffer.Ring, after Baidu's
// BufferPaddingExecutor.
//
// Each second it puts is max(last+1, now) in the scheme's clock: under light
// load the IDs carry the real time, and under heavy load the executor borrows
// seconds from the future, as Baidu's does, and reports how far ahead it is.
// Unlike Baidu's, it starts a second only when the whole second fits in the
// ring, so no second is half used and thrown away: over any run, the seconds
// borrowed beyond the clock are at most (IDs taken + ring size) / IDs per
// second + 2.
//
// The executor fills the ring once in New, then again whenever a take leaves
// the ring below its padding threshold, and on every tick of an optional
// schedule. When the next second would not fit the time bits, it seals the
// ring with an error wrapping defaultgen.ErrTimeExhausted and stops: takes
// drain what is left, then fail. A UID never wraps and never goes negative.
package padding

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

var (
	// ErrConfig: Config.Ring or Config.Scheme is nil.
	ErrConfig = errors.New("padding: incomplete config")
	// ErrRingTooSmall: the ring cannot hold one second of IDs.
	ErrRingTooSmall = errors.New("padding: ring smaller than one second of IDs")
	// ErrInterval: Config.Interval is negative.
	ErrInterval = errors.New("padding: negative schedule interval")
)

// Config says what an Executor fills, with what, and how often.
type Config struct {
	// Ring is the ring to fill; it must hold at least one second of IDs
	// (2^SeqBits). Required. The Executor is its only producer.
	Ring *ringbuffer.Ring

	// Scheme gives the layout, worker ID and clock of the IDs. Required.
	Scheme *defaultgen.Scheme

	// Interval is Baidu's scheduleInterval: the Executor also fills the
	// ring this often. Zero means only when a take asks.
	Interval time.Duration
}

// Executor is the goroutine that fills a ring. Build one with New and stop it
// with Close. An Executor must not be copied.
type Executor struct {
	ring   *ringbuffer.Ring
	scheme *defaultgen.Scheme
	batch  []int64 // one second of IDs; reused, so filling allocates nothing

	// last is the newest second put, in delta seconds; -1 before the first.
	// Written and read only by the filling goroutine (New's, then run's).
	last int64

	// Published for Stats; written only by the filling goroutine.
	lastSecond atomic.Int64
	runs       atomic.Int64

	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when run returns
	closeOnce sync.Once
}

// New checks cfg, fills cfg.Ring, and starts the goroutine that keeps it
// full. It fails when Ring or Scheme is nil (ErrConfig), when the ring holds
// less than one second of IDs (ErrRingTooSmall), or when Interval is negative
// (ErrInterval). If the time bits run out during the first fill, New still
// succeeds: the ring is sealed, and takes fail once it drains.
func New(cfg Config) (*Executor, error) {
	if cfg.Ring == nil || cfg.Scheme == nil {
		return nil, fmt.Errorf("%w: Ring %v and Scheme %v are both required", ErrConfig, cfg.Ring != nil, cfg.Scheme != nil)
	}
	perSecond := cfg.Scheme.Allocator().MaxSequence() + 1
	if size := int64(cfg.Ring.Size()); size < perSecond {
		return nil, fmt.Errorf("%w: %d slots, one second is %d IDs (%d sequence bits)",
			ErrRingTooSmall, size, perSecond, cfg.Scheme.Allocator().SeqBits())
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("%w: %v, want 0 (off) or more", ErrInterval, cfg.Interval)
	}
	e := &Executor{
		ring:   cfg.Ring,
		scheme: cfg.Scheme,
		batch:  make([]int64, perSecond),
		last:   -1,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	e.lastSecond.Store(-1)
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
// or until the time bits run out.
func (e *Executor) run(tick <-chan time.Time, ticker *time.Ticker) {
	defer close(e.done)
	if ticker != nil {
		defer ticker.Stop()
	}
	for {
		select {
		case <-e.stop:
			return
		case <-e.ring.Wakeups():
		case <-tick:
		}
		e.ring.Rearm() // before fill reads Free: a later ask is not lost
		if err := e.fill(); err != nil {
			e.ring.Seal(err)
			return
		}
	}
}

// fill puts whole seconds into the ring while one fits. It returns an error
// only when the time bits have run out.
func (e *Executor) fill() error {
	e.runs.Add(1)
	alloc := e.scheme.Allocator()
	for len(e.batch) <= e.ring.Free() {
		select {
		case <-e.stop:
			return nil
		default:
		}
		now, err := e.scheme.Second()
		if err != nil {
			return err
		}
		second := max(e.last+1, now)
		if err := e.scheme.CheckDelta(second); err != nil {
			return fmt.Errorf("padding: borrowing second %d, %d ahead of the clock: %w", second, second-now, err)
		}
		first := alloc.Allocate(second, e.scheme.WorkerID(), 0)
		for i := range e.batch {
			e.batch[i] = first + int64(i) // the sequence is the low bits
		}
		e.last = second
		e.lastSecond.Store(second)
		e.ring.Put(e.batch[e.scheme.FirstSequence(second):]) // never UID 0
	}
	return nil
}

// Close stops the goroutine and waits for it to return. It is idempotent and
// safe to call from any goroutine; it always returns nil. The ring is left as
// it is: its values can still be taken.
func (e *Executor) Close() error {
	e.closeOnce.Do(func() { close(e.stop) })
	<-e.done
	return nil
}

// Stats is a snapshot of an Executor's work.
type Stats struct {
	// Runs counts fills: the one in New, and one per wake-up or tick.
	Runs int64
	// LastSecond is the newest second put, in delta seconds since the
	// epoch; -1 before the first.
	LastSecond int64
	// Ahead is how many seconds LastSecond is ahead of the clock's current
	// second: the seconds borrowed from the future. Zero when not ahead.
	Ahead int64
}

// Stats returns a snapshot of e's work.
func (e *Executor) Stats() Stats {
	last := e.lastSecond.Load()
	now := e.scheme.Clock().Now().Unix() - e.scheme.Epoch().Unix()
	return Stats{Runs: e.runs.Load(), LastSecond: last, Ahead: max(0, last-now)}
}
