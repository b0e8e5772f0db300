// Package cached is Baidu's CachedUidGenerator in Go: UIDs made a whole
// second at a time by one padding goroutine, kept in a lock-free ring, and
// handed out by a single atomic add.
//
//	g, err := cached.New(ctx, cached.Config{Assigner: uidgen.Static(7)})
//	defer g.Close()
//	id, err := g.NextID()
//
// A fleet gives each process its worker ID through package worker,
// etcdworker or redisworker (Config.Assigner, or Config.Leaser for an ID
// that comes back). Read Config next; package metrics exports Stats.
//
// A Generator wires the pieces together: a layout, epoch, clock and worker ID
// (checked as defaultgen checks them), a ringbuffer.Ring of
// 2^SeqBits << BoostPower IDs, and a padding.Executor that keeps it full
// with whole ticks of the layout (seconds in Baidu's, milliseconds in
// Twitter's), borrowing future ticks under heavy load. Where the
// Java original can hand one UID to two threads, throws on an empty ring
// under ordinary load, and wastes a second of IDs on every refill, this one
// does none of that, and its Stats say how far ahead of the clock it has
// borrowed.
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package cached

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/ring"
	"github.com/seed4d941b13/uidgen/internal/scheme"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// defaultMaxLag is the MaxLag of a Config that leaves it zero.
const defaultMaxLag = 2 * time.Second

// defaultBoostPower is the BoostPower of a Config that leaves it zero: a
// ring of 8 seconds of IDs, 65,536 with 13 sequence bits.
const defaultBoostPower = 3

// minTickRingBits is the fewest IDs, as a power of two, of the ring of a
// layout whose tick is under a second and whose Config leaves BoostPower
// zero.
const minTickRingBits = 16

// errNextIDClosed is what NextID returns after Close, made once so that the
// check costs no allocation.
var errNextIDClosed = fmt.Errorf("cached: next ID: %w", uidgen.ErrClosed)

// Config says how to build a Generator. Its zero value, but for Assigner or
// Leaser, means the defaults.
type Config struct {
	// Layout is the IDs' layout. Zero means uidgen.DefaultLayout(),
	// 1+30+20+13 bits in seconds from 2025-01-01; uidgen.NamedLayout gives a
	// peer's. Its epoch must not be in the future, nor its time bits spent.
	// Every other field keeps its meaning in the layout's ticks.
	Layout uidgen.Layout

	// After, where above 0, is an ID of an older generator that every ID
	// this one makes is above, whatever the clock says: an older fleet may
	// have borrowed time ahead. The first ID is in the tick after After's;
	// one more than MaxAhead ahead makes New wait for the clock under its ctx.
	After int64

	// Assigner gives this process its worker ID, once, in New:
	// uidgen.Static(id) for a process that owns its ID space, a
	// worker.NewDisposable for a fleet. Exactly one of Assigner and Leaser
	// is required.
	Assigner uidgen.Assigner

	// Leaser lends this process a worker ID that comes back when Close
	// gives it back, with the seconds reserved for it (a worker.NewLeased):
	// New takes the lease, and the generator uses no second the lease has
	// not reserved. Set it in place of Assigner.
	Leaser uidgen.Leaser

	// Clock is the source of time. Nil means uidgen.SystemClock(): the
	// system clock anchored to Go's monotonic clock, which never runs
	// backwards while the process lives, whatever is done to the wall clock.
	Clock uidgen.Clock

	// MaxAhead bounds borrowing: no tick more than MaxAhead beyond the clock
	// is put, and takes wait for the clock instead (Stats.ClockWait). It bounds
	// a leased ID's first tick and After's too: New waits under its ctx for
	// the clock to come within MaxAhead of them. Zero keeps Baidu's unbounded
	// borrowing; where set it is at least a tick. Set it where the IDs' time
	// must stay near the clock.
	MaxAhead time.Duration

	// MaxLag bounds how stale an ID may be: none handed out has a tick more
	// than MaxLag (at least a second) behind the clock; older ones are thrown
	// away (Stats.Stale), and the padder wakes every second to refill. Zero
	// means 2 seconds. A negative MaxLag keeps Baidu's behaviour: an ID waits
	// in the ring however slow the takes, and only the padding threshold
	// wakes the padder.
	MaxLag time.Duration

	// BoostPower sizes the ring at 2^BoostPower ticks of IDs, at least 1 and
	// at most 2^24 IDs. Zero means 3 (8 ticks), and in a layout whose tick is
	// under a second whatever more makes the ring at least 2^16 IDs, so that
	// the padder wakes no more often than in the default layout's
	// (BenchmarkCachedTwitter). The ring's memory is two cache lines a tick.
	BoostPower int

	// PaddingFactor is the percentage of the ring below which a take wakes
	// the padder, above 0 and below 100. Zero means 50. The padder puts a
	// tick only when a whole tick is free, so a factor above
	// 100 - 100/2^BoostPower wakes it early for nothing.
	PaddingFactor int

	// RejectedTake decides what NextID does when the ring is empty. Nil
	// means ringbuffer.Wait(time.Second): wait while the padder refills,
	// and fail only if it puts nothing for a second.
	// ringbuffer.Fail is Baidu's: fail at once.
	RejectedTake ringbuffer.TakePolicy
}

// Generator hands out UIDs from a ring that a padding goroutine keeps full.
// It is safe for concurrent use. Build one with New and stop it with Close.
type Generator struct {
	s      *scheme.Scheme
	ring   *ring.Ring // the ringbuffer.Ring the padder fills
	src    *ticks
	padder *padding.Executor

	closed    atomic.Bool // set once, by Close; read by every NextID
	closeOnce sync.Once
	closeErr  error // set once, by Close
}

// New checks cfg, asks its Assigner for the worker ID (or its Leaser for a
// lease) under ctx, fills the ring, and starts the padding goroutine; Close
// stops it. Every field is checked before the Assigner or Leaser is asked,
// so a bad Config costs no worker ID. Errors start "cached: " and wrap:
//   - uidgen.ErrConfig, naming the field, its value and its limits:
//     Assigner and Leaser are both nil, or both set; After is negative;
//     BoostPower is negative or makes the ring too large; PaddingFactor
//     is outside (0, 100); MaxAhead is negative, or shorter than a tick;
//     MaxLag is above 0 but below a second;
//   - bits.ErrLayout: the layout's epoch is after the clock's now;
//   - uidgen.ErrTimeExhausted: the ticks since the layout's epoch no longer
//     fit its time bits, or After is in the layout's last tick;
//   - the Assigner's or Leaser's own error;
//   - ctx.Err(), where a leased worker ID's first tick, or After's next
//     one, is more than MaxAhead ahead of the clock and ctx ends before the
//     clock comes within it;
//   - uidgen.ErrWorkerIDRange: the worker ID is below 0 or above the layout's
//     maximum.
func New(ctx context.Context, cfg Config) (*Generator, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, fmt.Errorf("cached: %w", err)
	}
	ring, err := ringbuffer.New(ringbuffer.Config{
		Size:          c.ringSize,
		PaddingFactor: cfg.PaddingFactor,
		RejectedTake:  cfg.RejectedTake,
	})
	if err != nil {
		return nil, fmt.Errorf("cached: %w", err)
	}
	if err := c.s.Assign(ctx); err != nil {
		return nil, fmt.Errorf("cached: %w", err)
	}
	g, err := start(c, ring)
	if err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), scheme.ReleaseTimeout)
		defer cancel()
		return nil, fmt.Errorf("cached: %w", errors.Join(err, c.s.Release(ctx, -1)))
	}
	return g, nil
}

// checked is a Config with every field checked and every default filled
// in, and the scheme without its worker ID yet.
type checked struct {
	s                *scheme.Scheme
	ringSize         int
	maxAhead, maxLag time.Duration
	interval         time.Duration // between the padder's scheduled fills: a second under MaxLag; 0: none
}

// check checks every field of cfg but PaddingFactor, which the ring checks,
// without I/O, and fills in the defaults. Its errors are New's, unprefixed.
func (cfg Config) check() (checked, error) {
	ahead := cfg.MaxAhead
	if ahead == 0 {
		ahead = -1 // Baidu's unbounded borrowing
	}
	s, err := scheme.New(scheme.Params{
		Layout: cfg.Layout, After: cfg.After,
		Assigner: cfg.Assigner, Leaser: cfg.Leaser, Clock: cfg.Clock, MaxAhead: ahead,
	})
	if err != nil {
		return checked{}, err
	}
	c := checked{s: s, maxAhead: cfg.MaxAhead, maxLag: cmp.Or(cfg.MaxLag, defaultMaxLag)}
	if c.ringSize, err = cfg.ringSize(s); err != nil {
		return checked{}, err
	}
	// Checked here too, as the ring checks it, so that the error is
	// cached's field's and not ringbuffer's.
	if _, err := defaults.PaddingFactor(cfg.PaddingFactor); err != nil {
		return checked{}, err
	}
	if c.maxAhead < 0 {
		return checked{}, fmt.Errorf("%w: MaxAhead %v, want 0 (unbounded) or more", uidgen.ErrConfig, c.maxAhead)
	}
	if c.maxAhead > 0 && c.maxAhead < s.Tick() {
		return checked{}, fmt.Errorf("%w: MaxAhead %v is shorter than the layout's tick, %v: want 0 (unbounded) or a tick or more", uidgen.ErrConfig, c.maxAhead, s.Tick())
	}
	if c.maxLag > 0 && c.maxLag < time.Second {
		return checked{}, fmt.Errorf("%w: MaxLag %v, want a second or more, or below 0 for no bound", uidgen.ErrConfig, c.maxLag)
	}
	if c.maxLag > 0 {
		c.interval = time.Second // the stale bound moves once a second
	}
	return c, nil
}

// ringSize returns the ring's size for the layout of s: 2^(sequence bits
// + BoostPower), a zero BoostPower's default raised for a tick under a
// second to a ring of at least 2^minTickRingBits IDs.
func (cfg Config) ringSize(s *scheme.Scheme) (int, error) {
	boost, seqBits := cmp.Or(cfg.BoostPower, defaultBoostPower), s.Bits().Spec().SeqBits
	if cfg.BoostPower == 0 && s.Tick() < time.Second {
		boost = max(boost, minTickRingBits-seqBits)
	}
	if maxBits := bits.Len(defaults.RingMaxSize) - 1; boost < 1 || seqBits+boost > maxBits {
		given := strconv.Itoa(cfg.BoostPower)
		if cfg.BoostPower == 0 {
			given = fmt.Sprintf("0 (%d by default)", boost)
		}
		want := fmt.Sprintf("want BoostPower 1 to %d, a ring of at most 2^%d", maxBits-seqBits, maxBits)
		if maxBits-seqBits < 1 {
			want = fmt.Sprintf("want a layout of at most %d sequence bits: a ring holds at most 2^%d IDs", maxBits-1, maxBits)
		}
		return 0, fmt.Errorf("%w: BoostPower %s with %d sequence bits makes a ring of 2^%d IDs: %s",
			uidgen.ErrConfig, given, seqBits, seqBits+boost, want)
	}
	return 1 << (seqBits + boost), nil
}

// start fills ring with whole ticks and starts the padder that keeps it
// full.
func start(c checked, rb *ringbuffer.Ring) (*Generator, error) {
	src := newTicks(c.s, rb, c.maxAhead, c.maxLag)
	padder, err := padding.New(padding.Config{Ring: rb, Source: src, Interval: c.interval})
	if err != nil {
		return nil, err
	}
	return &Generator{s: c.s, ring: (*ring.Ring)(rb), src: src, padder: padder}, nil
}

// NextID returns a new UID. IDs from one goroutine increase (on a layout
// with gene bits, once the gene bits are shifted off: there the gene spreads
// IDs evenly over id % 2^k).
//
// It fails with an error wrapping uidgen.ErrClosed after Close; wrapping
// uidgen.ErrTimeExhausted (and ringbuffer.ErrEmpty) once the time bits are
// spent and the ring has drained; and, on an empty ring, with whatever the
// RejectedTake policy returns (by default, once the padder has put nothing
// for a second, an error wrapping ringbuffer.ErrEmpty). It never returns a
// UID twice, 0, or a negative UID.
func (g *Generator) NextID() (int64, error) {
	if g.closed.Load() {
		return 0, errNextIDClosed
	}
	uid, miss, off := g.ring.TakeFast()
	if miss != nil {
		var err error
		if uid, err = g.ring.TakeMiss(miss, off); err != nil {
			return 0, fmt.Errorf("cached: next ID: %w", err)
		}
	}
	return g.s.Sow(uid), nil
}

// NextIDFor returns a new UID whose gene bits are key's low ones, so that
// uid % 2^GeneBits == key % 2^GeneBits for a key of 0 or more: the UID lands
// on the key's shard. A negative key gives its two's-complement low bits,
// that is key mod 2^GeneBits counted from 0. The UID is unique like every
// other, whatever the key, and IDs from one goroutine increase once the gene
// bits are shifted off. It fails as NextID does, and with an error wrapping
// uidgen.ErrNoGeneBits on a layout without gene bits.
func (g *Generator) NextIDFor(key int64) (int64, error) {
	if g.s.Bits().Spec().GeneBits == 0 {
		return 0, fmt.Errorf("cached: next ID for key %d: %w: give Config.Layout gene bits", key, uidgen.ErrNoGeneBits)
	}
	if g.closed.Load() {
		return 0, fmt.Errorf("cached: next ID for key %d: %w", key, uidgen.ErrClosed)
	}
	uid, miss, off := g.ring.TakeFast()
	if miss != nil {
		var err error
		if uid, err = g.ring.TakeMiss(miss, off); err != nil {
			return 0, fmt.Errorf("cached: next ID for key %d: %w", key, err)
		}
	}
	return g.s.WithGene(uid, key), nil
}

// NextIDs fills dst with new UIDs, in increasing order, claiming as many as
// a tick of the ring holds with each atomic add, and returns len(dst). On an
// error it returns how many it filled and the error, as NextID would, and
// leaves dst past them zero.
func (g *Generator) NextIDs(dst []int64) (int, error) {
	if g.closed.Load() {
		return 0, fmt.Errorf("cached: next IDs: %w", uidgen.ErrClosed)
	}
	n, err := g.ring.TakeAll(dst)
	g.s.SowAll(dst[:n])
	if err != nil {
		return n, fmt.Errorf("cached: next IDs: %w", err)
	}
	return n, nil
}

// WorkerID returns the worker ID this generator puts in every UID.
func (g *Generator) WorkerID() int64 { return g.s.WorkerID() }

// Layout returns the layout and epoch of the generator's IDs, which
// reads them: g.Layout().Parse(id), and Baidu's string, ParseUID.
func (g *Generator) Layout() uidgen.Layout { return g.s.Layout() }

// Close stops the padding goroutine and waits for it; NextID then fails with
// uidgen.ErrClosed, and a NextID waiting on an empty ring stops waiting. A
// leased worker ID is given back, recording the tick of the last ID a take
// got, so that the next holder starts in the tick after it: the ticks the
// padder put in the ring and no take reached cost the next holder nothing.
// A take still in flight when Close begins gets an ID at most that tick, or
// none: the ring is drained first, and after that no take gets an ID.
// Close is idempotent and safe to call concurrently; it returns the
// release's error, the same to every call.
func (g *Generator) Close() error {
	g.closeOnce.Do(func() {
		g.closed.Store(true)
		g.padder.Close()
		g.ring.Seal(uidgen.ErrClosed)
		lastDelta := int64(-1)
		if uid, ok := g.ring.Drain(); ok {
			lastDelta, _, _ = g.s.Bits().Parse(uid)
		}
		ctx, cancel := context.WithTimeout(context.Background(), scheme.ReleaseTimeout)
		defer cancel()
		if err := g.s.Release(ctx, lastDelta); err != nil {
			g.closeErr = fmt.Errorf("cached: close: %w", err)
		}
	})
	return g.closeErr
}

// Stats is a snapshot of a Generator's ring and padder.
type Stats struct {
	// Stats is the ring's: its values are UIDs, and Stale counts those
	// thrown away, more than MaxLag behind the clock.
	ringbuffer.Stats

	Fills int64 // padder fills: at start, and per wake-up or tick

	// Ahead is how far the newest tick the padder made is ahead of the
	// clock's: the time borrowed from the future, 0 when not ahead.
	Ahead time.Duration

	// ClockWait is how long the padder has waited for the clock under
	// Config.MaxAhead, in all.
	ClockWait time.Duration

	// Lease describes a leased worker ID; all zero for another Assigner's.
	Lease uidgen.LeaseStats
}

// Stats returns a snapshot of g's ring and padder. Under load the fields are
// read one at a time, so they describe nearby instants, not one.
func (g *Generator) Stats() Stats {
	return Stats{
		Stats:     ringbuffer.Stats(g.ring.Stats()),
		Fills:     g.padder.Fills(),
		Ahead:     g.src.ahead(),
		ClockWait: time.Duration(g.src.clockWait.Load()),
		Lease:     g.s.LeaseStats(),
	}
}
