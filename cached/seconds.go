package cached

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen/internal/scheme"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// reservationRetry is how often the padder looks again at a lease whose
// reservation has not reached the next second.
const reservationRetry = 10 * time.Millisecond

// seconds is the padding.Source of the cached generator: it makes whole
// seconds of UIDs. Each second is max(last+1, now) by the scheme's clock, so
// under light load the IDs carry the real time and under heavy load it
// borrows seconds from the future, as Baidu's padder does, up to maxAhead
// seconds beyond the clock when that is set.
//
// Unlike Baidu's, it starts a second only when the whole second fits the
// room it is given, so no second is half used and thrown away: over any run,
// the seconds borrowed beyond the clock are at most (IDs taken + ring size)
// / IDs per second + 2.
//
// With a leased worker ID it uses no second below the lease's first and
// none beyond what the lease has reserved: it pauses the padder until a
// renewal reaches the next second, and stops for good once the lease is
// lost.
//
// Two things keep the IDs true to their time at any load. At the start of
// every fill (Refresh, at least once a second) it drops the ring's UIDs
// below the first of second now+1-maxLag, so takes never see IDs that fell
// further behind the clock. And a second no further ahead of the clock than
// the ring's seconds, where the padder keeps the ring at low load, starts at
// a random sequence, so that at a few IDs a second the IDs still spread
// evenly over id % 2^k (TestSpread). The start skips only sequences the
// takes of the last second of the clock left unused, and no more than a
// ring's share of the second, 1/2^BoostPower: the take rate is not known
// right after New or an idle spell, so a burst then may take these seconds
// whole, and the ring's worth of them wastes under a second of IDs. A second
// further ahead is borrowed under load and starts at its first sequence: no
// second is wasted (TestBurstWastesNoSecond). The spread is even over
// id % 2^k for k up to SeqBits - BoostPower.
type seconds struct {
	s           *scheme.Scheme
	ring        *ringbuffer.Ring
	maxAhead    int64   // seconds beyond the clock it may go; -1: unbounded
	maxLag      int64   // seconds behind the clock an ID may be; -1: unbounded
	ringSeconds int64   // seconds of IDs the ring holds: 2^BoostPower
	batch       []int64 // one second of IDs; reused, so filling allocates nothing

	// The take rate, in IDs a second of the clock, and the sample it was
	// measured from; clockBound says the padder waited for the clock during
	// the sample, when takes wanted more than it gave. Only the padding
	// goroutine touches them.
	rate        int64
	sampleAt    time.Time
	sampleTaken int64
	clockBound  bool

	// last is the newest second made, in delta seconds; -1 before the
	// first. waitingSince is when the padder began to wait for the clock,
	// zero when it is not waiting. Both written and read only by the
	// padding goroutine, and by Close once it has stopped.
	last         int64
	waitingSince time.Time

	// Published for Stats; written only by the padding goroutine.
	lastMade  atomic.Int64
	clockWait atomic.Int64 // nanoseconds waited for the clock under maxAhead
}

func newSeconds(s *scheme.Scheme, ring *ringbuffer.Ring, maxAhead, maxLag time.Duration) *seconds {
	src := &seconds{s: s, ring: ring, maxAhead: -1, maxLag: -1, batch: make([]int64, s.Bits().MaxSequence()+1), last: -1}
	src.ringSeconds = int64(ring.Size()) / int64(len(src.batch))
	if maxAhead > 0 {
		src.maxAhead = int64(maxAhead / time.Second)
	}
	if maxLag > 0 {
		src.maxLag = int64(maxLag / time.Second)
	}
	src.lastMade.Store(-1)
	return src
}

// Refresh drops the ring's UIDs below the first of second now+1-maxLag, and
// measures the take rate. The bound is one second ahead of the clock because
// it stands until the next refresh, up to a second later: no ID taken before
// then is more than maxLag behind.
func (src *seconds) Refresh() {
	now := src.s.Clock().Now()
	if src.maxLag >= 0 {
		oldest := max(now.Unix()-src.s.TimeOf(0).Unix()+1-src.maxLag, 0)
		src.ring.DropBelow(src.s.Bits().Allocate(oldest, 0, 0))
	}
	taken := src.ring.Stats().Taken
	if elapsed := now.Sub(src.sampleAt); elapsed >= time.Second {
		// The counters are read one at a time, so a sample may come out
		// a little short, never below none.
		src.rate = max(int64(float64(taken-src.sampleTaken)/elapsed.Seconds()), 0)
		if src.clockBound {
			src.rate = int64(len(src.batch)) // the takes wanted every sequence
		}
		src.sampleAt, src.sampleTaken, src.clockBound = now, taken, false
	}
}

// Next returns the next whole second of UIDs if it fits room, and nothing
// otherwise. It pauses the padder (a *padding.Pause) while the second would be
// more than maxAhead beyond the clock, or is not yet reserved. Once the next
// second would not fit the time bits, it fails with an error wrapping
// uidgen.ErrTimeExhausted, and once the lease is lost, with one wrapping
// uidgen.ErrLeaseLost: the UIDs never wrap, never go negative, and never
// use a second another holder may use.
func (src *seconds) Next(room int) ([]int64, error) {
	if room < len(src.batch) {
		return nil, nil
	}
	now := src.s.NowDelta()
	second := max(src.last+1, now, src.s.FirstDelta())
	if err := src.s.CheckDelta(second); err != nil {
		if second > now {
			return nil, fmt.Errorf("%w (second %d is %d s ahead of the clock)", err, second, second-now)
		}
		return nil, err
	}
	if src.maxAhead >= 0 && second > now+src.maxAhead {
		return nil, src.pauseForClock(second)
	}
	if !src.waitingSince.IsZero() {
		src.clockWait.Add(int64(src.s.Clock().Now().Sub(src.waitingSince)))
		src.waitingSince = time.Time{}
	}
	if !src.s.Reserve(second) {
		err := src.s.Unreserved(second)
		if src.s.LeaseLost() {
			return nil, err
		}
		return nil, &padding.Pause{Retry: reservationRetry, Why: err}
	}
	first := src.s.FirstSequence(second)
	if second-now <= src.ringSeconds {
		first = src.s.RandomFirstSequence(second, min(src.s.Unused(src.rate), int64(len(src.batch))/src.ringSeconds))
	}
	batch := src.batch[:int64(len(src.batch))-first]
	src.s.Fill(batch, src.s.Bits().Allocate(second, src.s.WorkerID(), first))
	src.last = second
	src.lastMade.Store(second)
	return batch, nil
}

// pauseForClock returns the Pause that waits for the clock to come within
// maxAhead of second.
func (src *seconds) pauseForClock(second int64) error {
	src.rate, src.clockBound = int64(len(src.batch)), true // takes want more than the clock gives
	clock := src.s.Clock().Now()
	if src.waitingSince.IsZero() {
		src.waitingSince = clock
	}
	wait := src.s.TimeOf(second - src.maxAhead).Sub(clock)
	return &padding.Pause{
		Retry: max(wait, time.Millisecond),
		Clock: true,
		Why:   fmt.Errorf("second %s would be more than MaxAhead (%d s) ahead of the clock", scheme.FormatTime(src.s.TimeOf(second)), src.maxAhead),
	}
}

// ahead returns how many seconds the newest second made is ahead of the
// clock's: the seconds borrowed from the future, 0 when not ahead.
func (src *seconds) ahead() int64 {
	return max(0, src.lastMade.Load()-src.s.NowDelta())
}
