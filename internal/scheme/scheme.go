// Package scheme is what both generators share between their flat Config
// and their first ID: the defaults, the checks, the worker ID, and the clock
// arithmetic of ticks. A delta is a count of the layout's ticks since its
// epoch (seconds in Baidu's layouts, milliseconds in Twitter's); a lease
// counts Unix seconds, and a tick is reserved with the second its last
// instant falls in. Nothing here does I/O but Assign.
package scheme

import (
	"context"
	"errors"
	"fmt"
	mathbits "math/bits"
	"math/rand/v2"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// dateLayout is how errors show instants: to the second, and to the
// millisecond where there are any, with the zone.
const dateLayout = "2006-01-02 15:04:05.999 MST"

// Params are the fields both generators' Configs share, as the user set
// them: zero means the default.
type Params struct {
	// Layout is the IDs' layout; zero means uidgen.DefaultLayout().
	Layout   uidgen.Layout
	Assigner uidgen.Assigner
	Leaser   uidgen.Leaser
	Clock    uidgen.Clock

	// After, where above 0, is an ID of an older generator that every ID
	// must be above: the first tick is the one after its tick.
	After int64

	// MaxAhead is how far ahead of the clock the first tick may be, where
	// a leased worker ID's earlier holders or After put it ahead: Assign
	// waits for the clock to come within it. Below 0: no limit.
	MaxAhead time.Duration
}

// Scheme is a checked layout, clock and assigner, and once Assign has run,
// the worker ID: everything needed to make IDs.
type Scheme struct {
	layout uidgen.Layout
	alloc  *bits.Allocator

	// seqShift is where the sequence starts in a UID, and geneBits the
	// gene's width: Sow's shifts, read once here rather than on every take.
	seqShift, geneBits uint

	clock    uidgen.Clock
	assigner uidgen.Assigner // nil when leaser is set
	leaser   uidgen.Leaser   // nil when assigner is set
	maxAhead time.Duration   // Params.MaxAhead
	workerID int64

	// after is Params.After; afterDelta the first tick above its tick, 0
	// without one.
	after, afterDelta int64

	// lease is the worker ID's lease when it came from the Leaser, and
	// firstDelta the first tick the generator may use: above every tick an
	// earlier holder may have used, and above After. Set once, by Assign.
	lease      uidgen.Lease
	firstDelta int64
}

// New checks p without I/O and returns the Scheme it describes, with no
// worker ID yet. Its errors carry no package prefix; the generator adds its
// own. It fails on:
//   - neither an Assigner nor a Leaser, or both, or a negative After
//     (uidgen.ErrConfig);
//   - an epoch after now (bits.ErrLayout);
//   - an epoch whose time bits ran out before now, or an After in the
//     layout's last tick (uidgen.ErrTimeExhausted).
func New(p Params) (*Scheme, error) {
	layout := p.Layout
	if layout.Bits() == nil {
		layout = uidgen.DefaultLayout()
	}
	if p.Assigner == nil && p.Leaser == nil {
		return nil, fmt.Errorf("%w: Assigner and Leaser are both nil: want exactly one, Assigner (uidgen.Static(id) for one process, a worker.NewDisposable for a fleet) or Leaser (a worker.NewLeased)", uidgen.ErrConfig)
	}
	if p.Assigner != nil && p.Leaser != nil {
		return nil, fmt.Errorf("%w: Assigner %T and Leaser %T are both set: want exactly one, the worker ID's source", uidgen.ErrConfig, p.Assigner, p.Leaser)
	}
	if p.Clock == nil {
		p.Clock = uidgen.SystemClock()
	}
	epoch := layout.Epoch()
	s := &Scheme{
		layout:   layout,
		alloc:    layout.Bits(),
		clock:    p.Clock,
		assigner: p.Assigner,
		leaser:   p.Leaser,
		maxAhead: p.MaxAhead,
	}
	s.seqShift = uint(mathbits.TrailingZeros64(uint64(s.alloc.Allocate(0, 0, 1))))
	s.geneBits = uint(s.alloc.Spec().GeneBits)
	if now := s.clock.Now(); now.Before(epoch) {
		return nil, fmt.Errorf("%w: epoch %s is in the future, after now %s",
			bits.ErrLayout, FormatTime(epoch), FormatTime(now))
	}
	if _, err := s.CheckedNowDelta(); err != nil {
		return nil, err
	}
	if err := s.setAfter(p.After); err != nil {
		return nil, err
	}
	return s, nil
}

// setAfter makes the first tick the one after the tick of after, an ID of
// an older generator, where after is above 0. The tick must be in the
// layout's time field, before the one it runs out with.
func (s *Scheme) setAfter(after int64) error {
	if after < 0 {
		return fmt.Errorf("%w: After %d: want 0 (none) or more", uidgen.ErrConfig, after)
	}
	if after == 0 {
		return nil
	}
	delta, _, _ := s.alloc.Parse(after)
	if err := s.CheckDelta(delta + 1); err != nil {
		return fmt.Errorf("After ID %d is in tick %s, the last of the layout or beyond it: %w",
			after, FormatTime(s.TimeOf(delta)), err)
	}
	s.after, s.afterDelta, s.firstDelta = after, delta+1, delta+1
	return nil
}

// Assign asks the Assigner for the worker ID under ctx, or the Leaser for a
// lease with the layout's maximum worker ID, and checks that it fits the
// layout: the one step of building a generator that does I/O. It fails with
// the Assigner's or Leaser's error, wrapped, or uidgen.ErrWorkerIDRange; a
// lease it cannot use it releases.
func (s *Scheme) Assign(ctx context.Context) error {
	if s.leaser != nil {
		return s.assignLease(ctx, s.leaser)
	}
	id, err := s.assigner.AssignWorkerID(ctx)
	if err != nil {
		return fmt.Errorf("assign worker ID: %w", err)
	}
	if err := CheckWorkerID(s.alloc, id); err != nil {
		return err
	}
	if err := s.waitForFirst(ctx, id, s.firstDelta); err != nil {
		return err
	}
	s.workerID = id
	return nil
}

func (s *Scheme) assignLease(ctx context.Context, l uidgen.Leaser) error {
	lease, err := l.LeaseWorkerID(ctx, s.alloc.MaxWorkerID())
	if err != nil {
		return fmt.Errorf("lease worker ID: %w", err)
	}
	first := max(s.firstTickOf(lease.First()), s.afterDelta)
	err = CheckWorkerID(s.alloc, lease.WorkerID())
	if err == nil {
		if err = s.CheckDelta(first); err != nil {
			err = fmt.Errorf("worker ID %d is leased from Unix second %d on: %w", lease.WorkerID(), lease.First(), err)
		}
	}
	if err == nil {
		err = s.waitForFirst(ctx, lease.WorkerID(), first)
	}
	if err != nil {
		// Nothing was used: release it unchanged, under a context of its
		// own, since ctx may be what ended.
		rctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
		defer cancel()
		return errors.Join(err, lease.Release(rctx, lease.First()-1))
	}
	s.workerID, s.lease, s.firstDelta = lease.WorkerID(), lease, max(first, 0)
	return nil
}

// firstTickOf returns the first tick that starts at or after Unix second
// unix, which may be negative: the first tick of a lease from unix on.
func (s *Scheme) firstTickOf(unix int64) int64 {
	start := time.Unix(unix, 0)
	tick := s.layout.TickOf(start)
	if s.TimeOf(tick).Before(start) { // a tick that straddles the second's start
		tick++
	}
	return tick
}

// lastSecondOf returns the Unix second the last instant of tick delta
// falls in: the second a lease must have reserved before the tick is used.
func (s *Scheme) lastSecondOf(delta int64) int64 {
	end := s.TimeOf(delta + 1)
	if end.Nanosecond() == 0 {
		return end.Unix() - 1
	}
	return end.Unix()
}

// aheadCheck is how often waitForFirst looks at the clock: a clock that is
// not the system's may move in steps no timer sees.
const aheadCheck = time.Second

// waitForFirst waits, under ctx, until first, the first tick the generator
// may use with worker ID id, is no further ahead of the clock than
// maxAhead: a holder that died reserved its ID ahead, or After is an ID of
// an older generator that borrowed ahead, and the IDs must not carry a
// time further in the future than the generator may go.
func (s *Scheme) waitForFirst(ctx context.Context, id, first int64) error {
	if s.maxAhead < 0 {
		return nil
	}
	ahead := int64(s.maxAhead / s.Tick())
	for {
		now := s.clock.Now()
		if first <= s.layout.TickOf(now)+ahead {
			return nil
		}
		why := fmt.Sprintf("worker ID %d is reserved by its last holder up to %s", id, FormatTime(s.TimeOf(first-1)))
		if s.after > 0 && first == s.afterDelta {
			why = fmt.Sprintf("After ID %d is of %s", s.after, FormatTime(s.TimeOf(first-1)))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s, more than %v ahead of the clock's %s; waiting for the clock: %w",
				why, s.maxAhead, FormatTime(now), ctx.Err())
		case <-time.After(min(s.TimeOf(first-ahead).Sub(now), aheadCheck)):
		}
	}
}

// CheckWorkerID returns an error wrapping uidgen.ErrWorkerIDRange, naming
// id and the range, where id does not fit a's worker bits: what a
// generator says when given it, for a caller that would rather say it
// before it starts one.
func CheckWorkerID(a *bits.Allocator, id int64) error {
	if max := a.MaxWorkerID(); id < 0 || id > max {
		return fmt.Errorf("%w: worker ID %d is not in [0, %d], the range of %d worker bits; a fleet that has used up its worker IDs needs wider WorkerBits or a new worker table with a new epoch",
			uidgen.ErrWorkerIDRange, id, max, a.Spec().WorkerBits)
	}
	return nil
}

// FirstDelta returns the first tick the generator may use: 0, the tick
// after After's, or with a lease the first tick above every earlier
// holder's.
func (s *Scheme) FirstDelta() int64 { return s.firstDelta }

// Reserve tells the lease that the generator is about to use tick delta, so
// that it reserves ahead, and reports whether delta is reserved now.
// Without a lease every tick is.
func (s *Scheme) Reserve(delta int64) bool {
	if s.lease == nil {
		return true
	}
	unix := s.lastSecondOf(delta)
	s.lease.Need(unix)
	return unix <= s.lease.Reserved()
}

// LeaseLost reports whether the worker ID's lease was lost: no second past
// what it had reserved may be used.
func (s *Scheme) LeaseLost() bool { return s.lease != nil && s.lease.Err() != nil }

// Unreserved returns why tick delta is not reserved: the lease was lost
// (wrapping uidgen.ErrLeaseLost), or the reservation runs out before it,
// wrapping why the last renewal failed where the lease says (a database
// that does not answer). The generator goes on once a renewal reaches it,
// unless the lease is lost.
func (s *Scheme) Unreserved(delta int64) error {
	if err := s.lease.Err(); err != nil {
		return fmt.Errorf("worker ID %d: %w", s.workerID, err)
	}
	err := fmt.Errorf("the reservation of worker ID %d runs out with second %s, before %s; waiting for a renewal",
		s.workerID, FormatTime(time.Unix(s.lease.Reserved(), 0)), FormatTime(s.TimeOf(delta)))
	if r, ok := s.lease.(renewer); ok {
		if rerr := r.RenewalErr(); rerr != nil {
			err = fmt.Errorf("%w, and the last renewal failed: %w", err, rerr)
		}
	}
	return err
}

// renewer is a Lease that says why its last renewal failed, as package
// worker's leases do.
type renewer interface{ RenewalErr() error }

// WaitReserved returns nil once tick delta is reserved, waiting for the
// lease's renewals under ctx, and otherwise an error that says why it is
// not: Unreserved's, with the lease's own.
func (s *Scheme) WaitReserved(ctx context.Context, delta int64) error {
	if s.Reserve(delta) {
		return nil
	}
	if err := s.lease.Wait(ctx, s.lastSecondOf(delta)); err != nil {
		if s.LeaseLost() {
			return s.Unreserved(delta) // says so once; the wait's error says it again
		}
		return fmt.Errorf("%w: %w", s.Unreserved(delta), err)
	}
	return nil
}

// LeaseStats describes the worker ID's lease for a generator's Stats: all
// zero without one.
func (s *Scheme) LeaseStats() uidgen.LeaseStats {
	if s.lease == nil {
		return uidgen.LeaseStats{}
	}
	return uidgen.LeaseStats{Leased: true, Lost: s.LeaseLost(), Expires: s.lease.Expires(),
		Reserved: time.Unix(s.lease.Reserved(), 0)}
}

// ReleaseTimeout bounds the statement that gives a leased worker ID back
// when a generator closes.
const ReleaseTimeout = 5 * time.Second

// Release gives a leased worker ID back, recording the second of
// lastDelta, the newest tick the generator used; below FirstDelta, it used
// none. Without a lease it does nothing.
func (s *Scheme) Release(ctx context.Context, lastDelta int64) error {
	if s.lease == nil {
		return nil
	}
	if lastDelta < s.firstDelta {
		return s.lease.Release(ctx, s.lease.First()-1)
	}
	return s.lease.Release(ctx, max(s.lastSecondOf(lastDelta), s.lease.First()-1))
}

// Layout returns the layout.
func (s *Scheme) Layout() uidgen.Layout { return s.layout }

// Bits returns the layout's bit arithmetic.
func (s *Scheme) Bits() *bits.Allocator { return s.alloc }

// WorkerID returns the worker ID Assign got.
func (s *Scheme) WorkerID() int64 { return s.workerID }

// Clock returns the clock.
func (s *Scheme) Clock() uidgen.Clock { return s.clock }

// CheckedNowDelta returns NowDelta, or an error wrapping
// uidgen.ErrTimeExhausted once that no longer fits the time bits.
func (s *Scheme) CheckedNowDelta() (int64, error) {
	delta := s.NowDelta()
	if err := s.CheckDelta(delta); err != nil {
		return 0, err
	}
	return delta, nil
}

// NowDelta returns the clock's current tick since the epoch, whether it
// fits the time bits or not.
func (s *Scheme) NowDelta() int64 { return s.layout.TickOf(s.clock.Now()) }

// Tick returns the layout's tick: a second in Baidu's layouts.
func (s *Scheme) Tick() time.Duration { return s.layout.Tick() }

// PerSecond returns the ticks in a second: 1 in Baidu's layouts.
func (s *Scheme) PerSecond() int64 { return int64(time.Second / s.Tick()) }

// CheckDelta returns an error wrapping uidgen.ErrTimeExhausted if tick
// delta does not fit the time bits.
func (s *Scheme) CheckDelta(delta int64) error {
	if max := s.alloc.MaxDelta(); delta > max {
		return fmt.Errorf("%w: %s since epoch %s is over the maximum %d of %d time bits, which ran out at %s",
			uidgen.ErrTimeExhausted, s.ticks(delta), FormatTime(s.layout.Epoch()), max, s.alloc.Spec().TimeBits,
			FormatTime(s.layout.RunsOut()))
	}
	return nil
}

// ticks says n ticks in words: "1024 seconds", or "1024 ticks of 1ms".
func (s *Scheme) ticks(n int64) string {
	if s.Tick() == time.Second {
		return fmt.Sprintf("%d seconds", n)
	}
	return fmt.Sprintf("%d ticks of %v", n, s.Tick())
}

// FirstSequence returns the first sequence a generator may use in tick
// delta: 0, except in the epoch's own tick for worker 0, where sequence 0
// would make the UID 0, which many stores read as "no ID". That one UID is
// skipped.
func (s *Scheme) FirstSequence(delta int64) int64 {
	if delta == 0 && s.workerID == 0 {
		return 1
	}
	return 0
}

// Spread returns base, a UID whose gene bits are zero, with a gene that
// spreads the generator's IDs evenly over id % 2^k for every k: a hash of
// base, which is unique, so the gene repeats no more often than chance
// says. Base itself for a layout without gene bits.
func (s *Scheme) Spread(base int64) int64 {
	if s.alloc.Spec().GeneBits == 0 {
		return base
	}
	return base | int64(mix(uint64(base)))&s.alloc.MaxGene()
}

// Sow returns base, a UID of gene 0 that the cached generator takes from a
// run of consecutive sequences, with a gene that spreads such runs evenly
// over id % 2^k for every k: the top GeneBits bits of base's bits from
// the sequence up times 2^64 over the golden ratio (Fibonacci hashing),
// so that consecutive sequences fall far apart and each tick differently,
// at the cost of one multiply a UID. Base itself for a layout without
// gene bits.
func (s *Scheme) Sow(base int64) int64 {
	if s.geneBits == 0 {
		return base
	}
	return base | int64((uint64(base)>>s.seqShift)*golden>>(64-s.geneBits))
}

// SowAll sows each of uids, as Sow does, with one look at the layout for
// them all.
func (s *Scheme) SowAll(uids []int64) {
	if s.geneBits == 0 {
		return
	}
	for i, uid := range uids {
		uids[i] = s.Sow(uid)
	}
}

// golden is 2^64 over the golden ratio, odd.
const golden = 0x9e3779b97f4a7c15

// WithGene returns base, a UID, with its gene bits replaced by key's low
// ones, so that uid % 2^GeneBits == key % 2^GeneBits for a key of 0 or more.
// The other fields keep the UID unique whatever the gene.
func (s *Scheme) WithGene(base, key int64) int64 {
	mask := s.alloc.MaxGene()
	return base&^mask | key&mask
}

// mix is SplitMix64's finalizer: a bijection of 64 bits whose every output
// bit depends on every input bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Random picks a tick's first sequence below n. Tests that count a tick's
// IDs exactly make it return 0 (schemetest.WholeSeconds).
var Random = rand.Int64N

// RandomFirstSequence returns the first sequence to use in tick delta: a
// random one of its first spread sequences, and not below FirstSequence; a
// spread of 1 or less gives FirstSequence. At a few IDs a tick, a tick's
// first IDs are all that are taken, and a random start spreads them evenly
// over id % 2^k. The generator picks spread so that the sequences skipped
// are ones its takes would not use (Unused).
func (s *Scheme) RandomFirstSequence(delta, spread int64) int64 {
	first := s.FirstSequence(delta)
	if spread = min(spread, s.alloc.MaxSequence()+1); spread > 1 {
		first = max(first, Random(spread))
	}
	return first
}

// Unused returns how many of a tick's sequences takes at rate IDs a tick
// leave unused: none at 2^SeqBits a tick or more.
func (s *Scheme) Unused(rate int64) int64 {
	return max(s.alloc.MaxSequence()+1-max(rate, 0), 0)
}

// TimeOf returns the instant tick delta starts at.
func (s *Scheme) TimeOf(delta int64) time.Time { return s.layout.TimeOf(delta) }

// FormatTime formats an instant as errors show it: to the millisecond where
// it has any.
func FormatTime(t time.Time) string { return t.Format(dateLayout) }
