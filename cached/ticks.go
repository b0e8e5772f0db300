package cached

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen/internal/ring"
	"github.com/seed4d941b13/uidgen/internal/scheme"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// reservationRetry is how often the padder looks again at a lease whose
// reservation has not reached the next tick.
const reservationRetry = 10 * time.Millisecond

// ticks is the padding.Source of the cached generator: it makes whole ticks
// of UIDs (a tick is the layout's unit of time: a second in Baidu's
// layouts, a millisecond in Twitter's). Each tick is max(last+1, now) by the
// scheme's clock, so under light load the IDs carry the real time and under
// heavy load it borrows ticks from the future, as Baidu's padder does, up to
// maxAhead beyond the clock when that is set.
//
// It borrows only what load forces: it puts a tick past the clock's next
// (or the lease's first and the next) only once takes have gone past the
// clock's tick, or emptied the ring. Baidu's fills the whole ring at idle,
// 8 ticks past the clock on the default layout, and a lease must reserve
// every tick in the ring: a crash would then cost those ticks too, and a
// restart's first ID would start past them (docs/leases.md, "How far ahead
// an ID can be"). Under load the takes are past the clock's tick, and the
// ring fills as Baidu's does (TestBorrowsOnlyUnderLoad).
//
// Unlike Baidu's, it starts a tick only when the whole tick fits the room
// it is given, so no tick is half used and thrown away: over any run, the
// ticks borrowed beyond the clock are at most (IDs taken + ring size) / IDs
// per tick + 2.
//
// With a leased worker ID it uses no tick below the lease's first and none
// beyond what the lease has reserved: it pauses the padder until a renewal
// reaches the next tick's second, and stops for good once the lease is
// lost.
//
// Two things keep the IDs true to their time at any load. At the start of
// every fill (Refresh, at least once a second) it drops the ring's UIDs
// below the first of tick now+1s-maxLag, so takes never see IDs that fell
// further behind the clock. And a tick no further ahead of the clock than
// the ring's ticks starts at a random sequence, so that at a few IDs a tick the IDs still spread
// evenly over id % 2^k (TestSpread). The start skips only sequences the
// takes of the last second of the clock left unused, and no more than a
// ring's share of the tick, 1/2^BoostPower: the take rate is not known
// right after New or an idle spell, so a burst then may take these ticks
// whole, and the ring's worth of them wastes under a tick of IDs. A tick
// further ahead is borrowed under load and starts at its first sequence: no
// tick is wasted (TestBurstWastesNoSecond). The spread is even over
// id % 2^k for k up to SeqBits - BoostPower.
type ticks struct {
	s         *scheme.Scheme
	ring      *ringbuffer.Ring
	maxAhead  int64 // ticks beyond the clock it may go; -1: unbounded
	maxLag    int64 // ticks behind the clock an ID may be; -1: unbounded
	ringTicks int64 // ticks of IDs the ring holds: 2^BoostPower
	perTick   int64 // IDs a tick: 2^SeqBits

	// The take rate, in IDs a tick of the clock, and the sample it was
	// measured from; clockBound says the padder waited for the clock during
	// the sample, when takes wanted more than it gave. Only the padding
	// goroutine touches them.
	rate        int64
	sampleAt    time.Time
	sampleTaken int64
	clockBound  bool

	// last is the newest tick made, counted from the epoch; -1 before the
	// first. waitingSince is when the padder began to wait for the clock,
	// zero when it is not waiting. Both written and read only by the
	// padding goroutine.
	last         int64
	waitingSince time.Time

	// Published for Stats; written only by the padding goroutine.
	lastMade  atomic.Int64
	clockWait atomic.Int64 // nanoseconds waited for the clock under maxAhead
}

func newTicks(s *scheme.Scheme, ring *ringbuffer.Ring, maxAhead, maxLag time.Duration) *ticks {
	src := &ticks{s: s, ring: ring, maxAhead: -1, maxLag: -1, perTick: s.Bits().MaxSequence() + 1, last: -1}
	src.ringTicks = ring.Stats().Size / src.perTick
	if maxAhead > 0 {
		src.maxAhead = int64(maxAhead / s.Tick())
	}
	if maxLag > 0 {
		src.maxLag = int64(maxLag / s.Tick())
	}
	src.lastMade.Store(-1)
	return src
}

// Refresh drops the ring's UIDs below the first of tick now+1s-maxLag, and
// measures the take rate. The bound is a second ahead of the clock because
// it stands until the next refresh, up to a second later: no ID taken before
// then is more than maxLag behind.
func (src *ticks) Refresh() {
	now := src.s.Clock().Now()
	if src.maxLag >= 0 {
		oldest := max(src.s.Layout().TickOf(now)+src.s.PerSecond()-src.maxLag, 0)
		src.ring.DropBelow(src.s.Bits().Allocate(oldest, 0, 0))
	}
	taken := src.ring.Stats().Taken
	if elapsed := now.Sub(src.sampleAt); elapsed >= time.Second {
		// The counters are read one at a time, so a sample may come out
		// a little short, never below none.
		src.rate = max(int64(float64(taken-src.sampleTaken)/(elapsed.Seconds()/src.s.Tick().Seconds())), 0)
		if src.clockBound {
			src.rate = src.perTick // the takes wanted every sequence
		}
		src.sampleAt, src.sampleTaken, src.clockBound = now, taken, false
	}
}

// Next returns the next whole tick of UIDs, as one run, if it fits room,
// and nothing otherwise. On a layout with gene bits their genes are zero:
// the generator sows them as it takes. It pauses the padder (a *padding.Pause) while the tick would be
// more than maxAhead beyond the clock, or is not yet reserved. Once the next
// tick would not fit the time bits, it fails with an error wrapping
// uidgen.ErrTimeExhausted, and once the lease is lost, with one wrapping
// uidgen.ErrLeaseLost: the UIDs never wrap, never go negative, and never
// use a tick another holder may use.
func (src *ticks) Next(room int) (ringbuffer.Run, error) {
	if int64(room) < src.perTick {
		return ringbuffer.Run{}, nil
	}
	now := src.s.NowDelta()
	base := max(now, src.s.FirstDelta())
	tick := max(src.last+1, base)
	if tick > base+1 && !src.takenPast(base) {
		return ringbuffer.Run{}, nil // no load forces a tick ahead yet
	}
	if err := src.s.CheckDelta(tick); err != nil {
		if tick > now {
			return ringbuffer.Run{}, fmt.Errorf("%w (tick %d is %v ahead of the clock)", err, tick, time.Duration(tick-now)*src.s.Tick())
		}
		return ringbuffer.Run{}, err
	}
	if src.maxAhead >= 0 && tick > now+src.maxAhead {
		return ringbuffer.Run{}, src.pauseForClock(tick)
	}
	if !src.waitingSince.IsZero() {
		src.clockWait.Add(int64(src.s.Clock().Now().Sub(src.waitingSince)))
		src.waitingSince = time.Time{}
	}
	if !src.s.Reserve(tick) {
		err := src.s.Unreserved(tick)
		if src.s.LeaseLost() {
			return ringbuffer.Run{}, err
		}
		return ringbuffer.Run{}, &padding.Pause{Retry: reservationRetry, Why: err}
	}
	first := src.s.FirstSequence(tick)
	if tick-now <= src.ringTicks {
		first = src.s.RandomFirstSequence(tick, min(src.s.Unused(src.rate), src.perTick/src.ringTicks))
	}
	src.last = tick
	src.lastMade.Store(tick)
	// The next sequence's UID is Step above: 1 where the sequence is the
	// low bits, 2^WorkerBits where it sits above the worker (sonyflake),
	// 2^GeneBits where the gene sits below it.
	return ringbuffer.Run{
		First: src.s.Bits().Allocate(tick, src.s.WorkerID(), first),
		Step:  src.s.Bits().Allocate(0, 0, 1),
		N:     int(src.perTick - first),
	}, nil
}

// takenPast reports whether the takes have gone past tick base: the next
// ID a take gets is of a later tick, or none waits. Only then does load
// force a tick further ahead than base+1.
func (src *ticks) takenPast(base int64) bool {
	head, ok := (*ring.Ring)(src.ring).Head()
	if !ok {
		return true
	}
	tick, _, _ := src.s.Bits().Parse(head)
	return tick > base
}

// pauseForClock returns the Pause that waits for the clock to come within
// maxAhead of tick.
func (src *ticks) pauseForClock(tick int64) error {
	src.rate, src.clockBound = src.perTick, true // takes want more than the clock gives
	clock := src.s.Clock().Now()
	if src.waitingSince.IsZero() {
		src.waitingSince = clock
	}
	wait := src.s.TimeOf(tick - src.maxAhead).Sub(clock)
	return &padding.Pause{
		Retry: max(wait, time.Millisecond),
		Clock: true,
		Why: fmt.Errorf("tick %s would be more than MaxAhead (%v) ahead of the clock",
			scheme.FormatTime(src.s.TimeOf(tick)), time.Duration(src.maxAhead)*src.s.Tick()),
	}
}

// ahead returns how far the newest tick made is ahead of the clock's: the
// time borrowed from the future, 0 when not ahead.
func (src *ticks) ahead() time.Duration {
	return time.Duration(max(0, src.lastMade.Load()-src.s.NowDelta())) * src.s.Tick()
}
