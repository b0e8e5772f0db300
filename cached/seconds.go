package cached

import (
	"fmt"
	"sync/atomic"

	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// seconds is the padding.Source of the cached generator: it makes whole
// seconds of UIDs. Each second is max(last+1, now) by the scheme's clock, so
// under light load the IDs carry the real time and under heavy load it
// borrows seconds from the future, as Baidu's padder does.
//
// Unlike Baidu's, it starts a second only when the whole second fits the
// room it is given, so no second is half used and thrown away: over any run,
// the seconds borrowed beyond the clock are at most (IDs taken + ring size)
// / IDs per second + 2.
type seconds struct {
	s     *scheme.Scheme
	batch []int64 // one second of IDs; reused, so filling allocates nothing

	// last is the newest second made, in delta seconds; -1 before the
	// first. Written and read only by the padding goroutine.
	last int64

	// lastMade publishes last for Stats; written only by the padding
	// goroutine.
	lastMade atomic.Int64
}

func newSeconds(s *scheme.Scheme) *seconds {
	src := &seconds{s: s, batch: make([]int64, s.Bits().MaxSequence()+1), last: -1}
	src.lastMade.Store(-1)
	return src
}

// Next returns the next whole second of UIDs if it fits room, and nothing
// otherwise. Once the next second would not fit the time bits, it fails with
// an error wrapping uidgen.ErrTimeExhausted; the UIDs never wrap and never go
// negative.
func (src *seconds) Next(room int) ([]int64, error) {
	if room < len(src.batch) {
		return nil, nil
	}
	now := src.s.Now()
	second := max(src.last+1, now)
	if err := src.s.CheckDelta(second); err != nil {
		if second > now {
			return nil, fmt.Errorf("%w (second %d is %d s ahead of the clock)", err, second, second-now)
		}
		return nil, err
	}
	src.s.Fill(src.batch, src.s.Bits().Allocate(second, src.s.WorkerID(), 0))
	src.last = second
	src.lastMade.Store(second)
	return src.batch[src.s.FirstSequence(second):], nil // never UID 0
}

// ahead returns how many seconds the newest second made is ahead of the
// clock's: the seconds borrowed from the future, 0 when not ahead.
func (src *seconds) ahead() int64 {
	return max(0, src.lastMade.Load()-src.s.Now())
}
