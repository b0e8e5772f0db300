// Package cached is Baidu's CachedUidGenerator in Go: UIDs made a whole
// second at a time by one padding goroutine, kept in a lock-free ring, and
// handed out by a single compare-and-swap.
//
// A Generator wires the pieces together: defaultgen's Scheme (layout, epoch,
// worker ID, clock), a ringbuffer.Ring of (2^SeqBits << BoostPower) slots,
// and a padding.Executor that keeps it full, borrowing future seconds under
// heavy load. Where the Java original can hand one UID to two threads, throws
// on an empty ring under ordinary load, and wastes a second of IDs on every
// refill, this one does none of that, and its Stats say how far ahead of the
// clock it has borrowed.
package cached

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// DefaultBoostPower is the BoostPower of a Config that leaves it zero: a
// ring of 8 seconds of IDs, 65,536 slots (4 MiB) with 13 sequence bits.
const DefaultBoostPower = 3

var (
	// ErrClosed: the Generator has been closed.
	ErrClosed = errors.New("cached: generator closed")
	// ErrBoostPower: Config.BoostPower is negative, or makes the ring
	// larger than ringbuffer.MaxSize.
	ErrBoostPower = errors.New("cached: boost power out of range")
)

// Config says how to build a Generator. Its zero value, but for Assigner,
// means the defaults.
type Config struct {
	// Config is the layout, epoch, worker ID assigner and clock, as for
	// defaultgen, with the same defaults and checks.
	defaultgen.Config

	// BoostPower sizes the ring: 2^SeqBits << BoostPower slots, that is
	// 2^BoostPower seconds of IDs. Zero means DefaultBoostPower; it must be
	// positive, and the ring at most ringbuffer.MaxSize slots.
	BoostPower int

	// PaddingFactor is the percentage of the ring below which a take wakes
	// the padder, in (0, 100). Zero means ringbuffer.DefaultPaddingFactor
	// (50). The padder puts a second only when a whole second is free, so
	// a factor above 100 - 100/2^BoostPower wakes it early for nothing.
	PaddingFactor int

	// ScheduleInterval makes the padder also refill the ring this often, as
	// Baidu's scheduleInterval does. Zero means off; it must not be
	// negative.
	ScheduleInterval time.Duration

	// RejectedPut is told of UIDs the padder could not put, which are
	// dropped and never handed out. Nil means they are only counted (in
	// Stats.PutsRejected). The padder puts a second only when it fits, so
	// this stays quiet.
	RejectedPut ringbuffer.PutPolicy

	// RejectedTake decides what NextID does when the ring is empty. Nil
	// means ringbuffer.Wait(ringbuffer.DefaultWait): wait while the padder
	// refills, and fail only if it puts nothing for a second.
	// ringbuffer.Fail is Baidu's: fail at once.
	RejectedTake ringbuffer.TakePolicy
}

// Generator hands out UIDs from a ring that a padding goroutine keeps full.
// It is safe for concurrent use. Build one with New and stop it with Close.
type Generator struct {
	scheme *defaultgen.Scheme
	ring   *ringbuffer.Ring
	padder *padding.Executor

	closed    atomic.Bool // set once, by Close; read by every NextID
	closeOnce sync.Once
}

// New checks cfg, assigns the worker ID under ctx, fills the ring, and starts
// the padding goroutine; Close stops it. It fails as defaultgen's
// Config.Scheme does (a bad layout, no Assigner, an epoch in the future or
// exhausted, the Assigner's error, a worker ID out of range), and when
// BoostPower is negative or makes the ring too large (ErrBoostPower),
// PaddingFactor is outside (0, 100) (ringbuffer.ErrPaddingFactor), or
// ScheduleInterval is negative (padding.ErrInterval).
func New(ctx context.Context, cfg Config) (*Generator, error) {
	// The ring first: a bad BoostPower or PaddingFactor must not cost a
	// worker ID.
	layout, err := cfg.Config.Layout()
	if err != nil {
		return nil, err
	}
	boost := cfg.BoostPower
	if boost == 0 {
		boost = DefaultBoostPower
	}
	seqBits := layout.SeqBits()
	if maxBits := bits.Len(ringbuffer.MaxSize) - 1; boost < 1 || seqBits+boost > maxBits {
		return nil, fmt.Errorf("%w: %d with %d sequence bits makes a ring of 2^%d slots; want a boost power of at least 1 and a ring of at most 2^%d (ringbuffer.MaxSize)",
			ErrBoostPower, boost, seqBits, seqBits+boost, maxBits)
	}
	ring, err := ringbuffer.New(ringbuffer.Config{
		Size:          1 << (seqBits + boost),
		PaddingFactor: cfg.PaddingFactor,
		RejectedPut:   cfg.RejectedPut,
		RejectedTake:  cfg.RejectedTake,
	})
	if err != nil {
		return nil, fmt.Errorf("cached: %w", err)
	}
	scheme, err := cfg.Config.Scheme(ctx)
	if err != nil {
		return nil, err
	}
	padder, err := padding.New(padding.Config{Ring: ring, Scheme: scheme, Interval: cfg.ScheduleInterval})
	if err != nil {
		return nil, fmt.Errorf("cached: %w", err)
	}
	return &Generator{scheme: scheme, ring: ring, padder: padder}, nil
}

// NextID returns a new UID. IDs from one goroutine increase.
//
// It fails with ErrClosed after Close; with an error wrapping
// defaultgen.ErrTimeExhausted (and ringbuffer.ErrEmpty) once the time bits
// are spent and the ring has drained; and, on an empty ring, with whatever
// the RejectedTake policy returns (by default, once the padder has put
// nothing for a second, an error wrapping ringbuffer.ErrEmpty). It never
// returns a UID twice, 0, or a negative UID.
func (g *Generator) NextID() (int64, error) {
	if g.closed.Load() {
		return 0, ErrClosed
	}
	uid, err := g.ring.Take()
	if err != nil {
		return 0, fmt.Errorf("cached: next ID: %w", err)
	}
	return uid, nil
}

// NextIDs fills dst with new UIDs, in increasing order, claiming as many as
// the ring holds with each compare-and-swap, and returns len(dst). On an
// error it returns how many it filled and the error, as NextID would.
func (g *Generator) NextIDs(dst []int64) (int, error) {
	if g.closed.Load() {
		return 0, ErrClosed
	}
	filled := 0
	for filled < len(dst) {
		n, err := g.ring.TakeN(dst[filled:])
		filled += n
		if err != nil {
			// The ring reads before it claims: what it left past filled
			// may be other callers' IDs. Hand back none of them.
			clear(dst[filled:])
			return filled, fmt.Errorf("cached: next IDs: %w", err)
		}
	}
	return filled, nil
}

// ParseUID returns Baidu's string form of uid:
//
//	{"UID":"%d","timestamp":"yyyy-MM-dd HH:mm:ss","workerId":"%d","sequence":"%d"}
func (g *Generator) ParseUID(uid int64) string { return g.scheme.ParseUID(uid) }

// Parse takes uid apart for Go callers.
func (g *Generator) Parse(uid int64) defaultgen.ID { return g.scheme.Parse(uid) }

// WorkerID returns the worker ID this generator puts in every UID.
func (g *Generator) WorkerID() int64 { return g.scheme.WorkerID() }

// Close stops the padding goroutine and waits for it; NextID then fails with
// ErrClosed, and a NextID waiting on an empty ring stops waiting. Close is
// idempotent and safe to call concurrently; it always returns nil.
func (g *Generator) Close() error {
	g.closeOnce.Do(func() {
		g.closed.Store(true)
		g.padder.Close()
		g.ring.Seal(ErrClosed)
	})
	return nil
}

// Stats is a snapshot of a Generator's ring and padder.
type Stats struct {
	Size         int64 // slots in the ring
	Available    int64 // UIDs waiting in the ring
	Tail         int64 // ring sequence of the last UID put; -1 before the first
	Cursor       int64 // ring sequence of the last UID taken; -1 before the first
	PutsRejected int64 // UIDs the padder could not put, dropped
	TakesWaited  int64 // takes that found the ring empty and waited for the padder
	TakesFailed  int64 // takes that returned an error
	PadRuns      int64 // padder runs: at start, and per wake-up or tick
	SecondsAhead int64 // seconds the padder has borrowed ahead of the clock
}

// Stats returns a snapshot of g's ring and padder. Under load the fields are
// read one at a time, so they describe nearby instants, not one.
func (g *Generator) Stats() Stats {
	rs, ps := g.ring.Stats(), g.padder.Stats()
	return Stats{
		Size:         rs.Size,
		Available:    rs.Available,
		Tail:         rs.Tail,
		Cursor:       rs.Cursor,
		PutsRejected: rs.PutsRejected,
		TakesWaited:  rs.TakesWaited,
		TakesFailed:  rs.TakesFailed,
		PadRuns:      ps.Runs,
		SecondsAhead: ps.Ahead,
	}
}
