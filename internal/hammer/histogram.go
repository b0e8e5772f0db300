package hammer

import (
	"math"
	"math/bits"
	"time"
)

// subBits sets the histogram's resolution: each power of two is split into
// 2^subBits buckets, so a bucket is at most 1/2^subBits (3.1%) wider than the
// smallest value in it, and values below 2^(subBits+1) ns are exact.
const subBits = 5

const (
	subCount = 1 << subBits        // buckets per power of two
	exact    = 2 * subCount        // values below this have a bucket each
	nBuckets = exact + 57*subCount // enough for any int64 nanoseconds
)

// Histogram counts durations in log-linear buckets, as HdrHistogram does:
// constant relative error, fixed size, no allocation per value. The zero
// value is empty and ready to use. A Histogram is not safe for concurrent
// use: give each goroutine its own and Merge them.
type Histogram struct {
	counts   [nBuckets]uint64
	n        uint64
	min, max time.Duration
}

// Record adds one duration. Negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	d = max(d, 0)
	h.counts[bucket(d)]++
	if h.n == 0 || d < h.min {
		h.min = d
	}
	h.max = max(h.max, d)
	h.n++
}

// Merge adds every duration recorded in o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
}

// Count returns how many durations were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Min returns the shortest duration recorded, exactly; 0 when empty.
func (h *Histogram) Min() time.Duration { return h.min }

// Max returns the longest duration recorded, exactly; 0 when empty.
func (h *Histogram) Max() time.Duration { return h.max }

// Quantile returns a duration that at least a fraction q of the recorded
// durations do not exceed: the upper edge of the bucket where the q-th
// fraction falls, never above Max. Quantile(0.99) is the p99. It returns 0
// when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(upper(i), h.max)
		}
	}
	return h.max
}

// Bar is one line of a coarse view of a histogram: how many durations fell
// in [From, To).
type Bar struct {
	From, To time.Duration
	Count    uint64
}

// PowersOfTwo returns the histogram folded into power-of-two ranges of
// nanoseconds, from the one holding Min to the one holding Max, empty ranges
// between included: a view short enough to print.
func (h *Histogram) PowersOfTwo() []Bar {
	if h.n == 0 {
		return nil
	}
	lo, hi := bits.Len64(uint64(h.min)), bits.Len64(uint64(h.max))
	out := make([]Bar, 0, hi-lo+1)
	for l := lo; l <= hi; l++ {
		b := Bar{To: time.Duration(1) << l}
		if l > 0 {
			b.From = time.Duration(1) << (l - 1)
		}
		out = append(out, b)
	}
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		l := bits.Len64(uint64(lower(i)))
		out[l-lo].Count += c
	}
	return out
}

// bucket returns the index of the bucket that holds d (d >= 0).
func bucket(d time.Duration) int {
	v := uint64(d)
	if v < exact {
		return int(v)
	}
	shift := bits.Len64(v) - (subBits + 1) // >= 1
	top := v >> shift                      // in [subCount, 2*subCount)
	return exact + (shift-1)*subCount + int(top-subCount)
}

// lower returns the smallest duration bucket i holds.
func lower(i int) time.Duration {
	if i < exact {
		return time.Duration(i)
	}
	shift := (i-exact)/subCount + 1
	top := uint64((i-exact)%subCount + subCount)
	return time.Duration(top << shift)
}

// upper returns the largest duration bucket i holds.
func upper(i int) time.Duration {
	if i+1 == nBuckets {
		return math.MaxInt64
	}
	return lower(i+1) - 1
}

// Round returns d rounded to three significant digits, so that its String
// is short enough for a table: 1.07s, 131µs, 64ns.
func Round(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 || -d/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit)
}
