package load

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The range and precision of a latency histogram. A call of an ID generator
// takes from a nanosecond (a clock read is tens) to, when a generator stalls,
// seconds; a minute bounds any stall a benchmark survives. Two significant
// digits put every quantile within 1% of the truth, finer than the noise
// of a shared machine, in a few kilobytes a goroutine.
const (
	lowest  = 1
	highest = int64(time.Minute)
	sigFigs = 2
)

// NewHistogram returns an empty latency histogram: HdrHistogram, constant
// relative error and no allocation per value. It is not safe for
// concurrent use: give each goroutine its own and Merge them.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(lowest, highest, sigFigs) }

// Record adds d to h, clamped into the histogram's range: a duration below
// a nanosecond counts as one, and one above a minute as a minute.
func Record(h *hdrhistogram.Histogram, d time.Duration) {
	// In range, RecordValue cannot fail.
	_ = h.RecordValue(min(max(int64(d), lowest), highest))
}

// Quantile returns the duration that a fraction q (0.99 for the p99) of the
// durations in h do not exceed, to h's precision; 0 when h is empty.
func Quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	return time.Duration(h.ValueAtQuantile(q * 100))
}

// Max returns the longest duration in h, to h's precision.
func Max(h *hdrhistogram.Histogram) time.Duration { return time.Duration(h.Max()) }

// Round returns d rounded to three significant digits, so that its String
// is short enough for a table: 1.07s, 131µs, 64ns.
func Round(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 || -d/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit)
}
