// Package defaultgen is Baidu's DefaultUidGenerator done properly in Go: a
// mutex-guarded Snowflake that makes each ID when it is asked for, in
// Baidu's per-second layouts or any other (Config.Layout: Twitter's
// milliseconds, sonyflake's 10 ms), waiting for the next tick when a tick's
// sequence is spent, as bwmarrin/snowflake does.
//
//	g, err := defaultgen.New(ctx, defaultgen.Config{Assigner: uidgen.Static(7)})
//	defer g.Close()
//	id, err := g.NextID()
//
// It is the baseline the cached generator (package cached) is measured
// against, and the simplest correct generator for a service that needs a few
// thousand IDs a second. Its Config is the cached generator's, less the
// ring: the same layout, epoch, assigner and clock, with the same defaults
// and checks.
//
// Where Baidu's Java refuses to work, this one goes on without repeating an
// ID: a wall clock stepped back does not reach it (uidgen.SystemClock), an
// injected clock stepped back is bridged by borrowing the last tick, and a
// tick whose sequence is spent is waited out by sleeping to its end, not
// by spinning a core.
package defaultgen

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// maxClockWait is the longest NextID waits for the clock to reach the next
// tick once the last tick's sequence is spent. A spent sequence alone needs
// at most a tick; a clock stepped back, or After ahead of the clock, needs
// as long as the step.
// Past maxClockWait, NextID returns uidgen.ErrClockBackwards instead of
// blocking every caller for longer.
const maxClockWait = 5 * time.Second

// Generator hands out UIDs one at a time under a mutex. It is safe for
// concurrent use. Build one with New.
type Generator struct {
	s *scheme.Scheme

	mu     sync.Mutex
	last   int64 // guarded by mu: tick of the last UID handed out
	seq    int64 // guarded by mu: sequence of the last UID within last
	count  int64 // guarded by mu: UIDs handed out in tick last
	closed bool  // guarded by mu: set by Close

	// closeErr is Close's result, written by the first Close under mu and
	// returned by every Close after it.
	closeErr error

	// Counters for Stats, guarded by mu: plain ints, so that counting
	// costs the take nothing beyond the lock it holds anyway. Takes that
	// returned a UID, that waited for the clock or a reservation first, and
	// that failed.
	taken, waited, failed int64
}

// New checks cfg, then asks its Assigner for the worker ID (or its Leaser
// for a lease) under ctx. Every field is checked before the Assigner or
// Leaser is asked, so a bad Config costs no worker ID. Errors start
// "defaultgen: " and wrap:
//   - uidgen.ErrConfig: Assigner and Leaser are both nil, or both set; or
//     After is negative;
//   - bits.ErrLayout: the layout's epoch is after the clock's now;
//   - uidgen.ErrTimeExhausted: the ticks since the layout's epoch no longer
//     fit its time bits, or After is in the layout's last tick;
//   - uidgen.ErrClockBackwards: After's next tick is more than 5 seconds
//     ahead of the clock, the longest NextID waits for it;
//   - the Assigner's or Leaser's own error;
//   - ctx.Err(), where a leased worker ID's first tick, above the
//     seconds its last holder reserved, is more than 5 seconds ahead of
//     the clock and ctx ends before the clock comes within it;
//   - uidgen.ErrWorkerIDRange: the worker ID is below 0 or above the layout's
//     maximum.
func New(ctx context.Context, cfg Config) (*Generator, error) {
	s, err := scheme.New(cfg.params())
	if err != nil {
		return nil, fmt.Errorf("defaultgen: %w", err)
	}
	if ahead := s.TimeOf(s.FirstDelta()).Sub(s.Clock().Now()); cfg.After > 0 && ahead > maxClockWait {
		return nil, fmt.Errorf("defaultgen: %w: After ID %d is of %s, and its next tick is %v ahead of the clock; refusing to wait more than %v",
			uidgen.ErrClockBackwards, cfg.After, scheme.FormatTime(s.TimeOf(s.FirstDelta()-1)), ahead.Round(time.Millisecond), maxClockWait)
	}
	if err := s.Assign(ctx); err != nil {
		return nil, fmt.Errorf("defaultgen: %w", err)
	}
	// The tick before the first, spent, so that the first NextID starts a
	// tick and checks its reservation.
	first := max(s.NowDelta(), s.FirstDelta())
	return &Generator{s: s, last: first - 1, seq: s.Bits().MaxSequence()}, nil
}

// NextID returns a new UID, unique in this process and, with a sound
// Assigner, across the fleet. IDs from one goroutine increase (on a layout
// with gene bits, once the gene bits are shifted off: there the gene spreads
// IDs evenly over id % 2^k).
//
// When the current tick's sequence is spent, NextID sleeps to the start of
// the next tick (a second in Baidu's layouts). When the clock reads earlier
// than the last UID's tick, it goes on in that tick until its sequence is
// spent, then waits for the clock. It fails with uidgen.ErrTimeExhausted once the time bits are spent
// (it never wraps) and with uidgen.ErrClockBackwards when the clock is more
// than 5 seconds behind: it waits no longer, for every caller waits with it.
func (g *Generator) NextID() (int64, error) {
	base, err := g.next()
	if err != nil {
		return 0, fmt.Errorf("defaultgen: next ID: %w", err)
	}
	return g.s.Spread(base), nil
}

// NextIDFor returns a new UID whose gene bits are key's low ones, so that
// uid % 2^GeneBits == key % 2^GeneBits for a key of 0 or more: the UID lands
// on the key's shard. A negative key gives its two's-complement low bits,
// that is key mod 2^GeneBits counted from 0. The UID is unique like every
// other, whatever the key. It fails as NextID does, and with an error
// wrapping uidgen.ErrNoGeneBits on a layout without gene bits.
func (g *Generator) NextIDFor(key int64) (int64, error) {
	if g.s.Bits().Spec().GeneBits == 0 {
		return 0, fmt.Errorf("defaultgen: next ID for key %d: %w: give Config.Layout gene bits", key, uidgen.ErrNoGeneBits)
	}
	base, err := g.next()
	if err != nil {
		return 0, fmt.Errorf("defaultgen: next ID for key %d: %w", key, err)
	}
	return g.s.WithGene(base, key), nil
}

// next returns a new UID with gene 0, and counts the take for Stats.
func (g *Generator) next() (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return g.fail(false, uidgen.ErrClosed)
	}
	waited := false
	for {
		now, err := g.s.CheckedNowDelta()
		if err != nil {
			return g.fail(waited, err)
		}
		// A leased worker ID starts above every tick an earlier holder
		// may have used, which may be ahead of the clock.
		now = max(now, g.s.FirstDelta())
		switch {
		case now > g.last:
			if !g.s.Reserve(now) {
				waited = true
				if err := g.reserve(now); err != nil {
					return g.fail(waited, err)
				}
			}
			// Start the tick at a random sequence, so that at a few IDs a
			// tick they spread evenly over id % 2^k; a tick spent to
			// its end says the load wants every sequence.
			rate := g.count
			if g.seq == g.s.Bits().MaxSequence() && g.count > 0 {
				rate = g.s.Bits().MaxSequence() + 1
			}
			g.last, g.seq, g.count = now, g.s.RandomFirstSequence(now, g.s.Unused(rate)), 0
		case g.seq < g.s.Bits().MaxSequence():
			// The same tick, or a clock stepped back: borrow the last tick
			// while it has sequence left.
			g.seq++
		default:
			waited = true
			if err := g.waitFor(g.last + 1); err != nil {
				return g.fail(waited, err)
			}
			continue
		}
		g.count++
		g.taken++
		if waited {
			g.waited++
		}
		return g.s.Bits().Allocate(g.last, g.s.WorkerID(), g.seq), nil
	}
}

// fail counts a take that failed with err, and whether it waited first,
// and returns err. The caller holds mu.
func (g *Generator) fail(waited bool, err error) (int64, error) {
	g.failed++
	if waited {
		g.waited++
	}
	return 0, err
}

// reserve returns nil once tick delta is reserved for a leased worker ID,
// waiting up to maxClockWait for a renewal.
func (g *Generator) reserve(delta int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), maxClockWait)
	defer cancel()
	return g.s.WaitReserved(ctx, delta)
}

// Close gives a leased worker ID back, recording the last second used, so
// the next holder starts above it and wastes none of its reservation;
// without a lease it only stops the generator. NextID then fails with
// uidgen.ErrClosed. Close is idempotent and safe to call concurrently; it
// returns the release's error, the same to every call.
func (g *Generator) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return g.closeErr
	}
	g.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), scheme.ReleaseTimeout)
	defer cancel()
	if err := g.s.Release(ctx, g.last); err != nil {
		g.closeErr = fmt.Errorf("defaultgen: close: %w", err)
	}
	return g.closeErr
}

// waitFor sleeps until the clock reaches tick delta, and fails if that tick
// is past the time bits or more than maxClockWait away.
func (g *Generator) waitFor(delta int64) error {
	if err := g.s.CheckDelta(delta); err != nil {
		return err
	}
	clock := g.s.Clock()
	wait := g.s.TimeOf(delta).Sub(clock.Now())
	if wait > maxClockWait {
		return fmt.Errorf("%w: the clock is %v behind the tick of %s of the last UID; refusing to wait more than %v",
			uidgen.ErrClockBackwards, (wait - g.s.Tick()).Round(time.Millisecond),
			scheme.FormatTime(g.s.TimeOf(delta-1)), maxClockWait)
	}
	clock.Sleep(wait)
	return nil
}

// WorkerID returns the worker ID this generator puts in every UID.
func (g *Generator) WorkerID() int64 { return g.s.WorkerID() }

// Layout returns the layout and epoch of the generator's IDs, which
// reads them: g.Layout().Parse(id), and Baidu's string, ParseUID.
func (g *Generator) Layout() uidgen.Layout { return g.s.Layout() }

// Stats is a snapshot of a Generator's counters.
type Stats struct {
	Taken       int64 // UIDs handed out
	TakesWaited int64 // takes that waited: for the next tick, their own spent, or for a reservation
	TakesFailed int64 // takes that returned an error

	// Ahead is how far the last UID's tick is ahead of the clock's: under
	// a clock stepped back, or a lease or After that starts above it; 0
	// otherwise.
	Ahead time.Duration

	// Lease describes a leased worker ID; all zero for another Assigner's.
	Lease uidgen.LeaseStats
}

// Stats returns a snapshot of g's counters, taken under the mutex that
// NextID holds: at the sequence's limit, where a NextID sleeps to the next
// second holding it, Stats waits as long as any NextID does.
func (g *Generator) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	ahead := time.Duration(max(0, g.last-g.s.NowDelta())) * g.s.Tick()
	return Stats{
		Taken:       g.taken,
		TakesWaited: g.waited,
		TakesFailed: g.failed,
		Ahead:       ahead,
		Lease:       g.s.LeaseStats(),
	}
}
