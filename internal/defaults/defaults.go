// Package defaults holds the defaults and limits of the library's Configs
// that more than one of its packages reads: the generators that build on a
// ring, and the command's flags that show them. Exported from the package
// that owns them, v1 would freeze them; here they can move, and each is
// still written once. A Config's doc says each in words, and an error names
// the one a value broke (Duration writes a duration as people do). The
// lease defaults and limits (LeaseTTL, LeaseHorizon) live in
// internal/leasing, beside the code that keeps leases.
package defaults

import (
	"fmt"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// The ring's (ringbuffer).
const (
	// RingMaxSize is the largest ring ringbuffer.New accepts: 2^24 values.
	RingMaxSize = 1 << 24

	// RingWait is how long a take on an empty ring waits under the default
	// policy for a producer that puts nothing. A running producer refills
	// a ring in microseconds; one that has put nothing for a second is
	// gone or starved, and the caller is better told. A shorter limit
	// fails takes whose producer is only descheduled: on a machine that
	// other processes share, the producer's thread can wait a good
	// fraction of a second for a CPU.
	RingWait = time.Second
)

// PaddingFactor returns the ring's padding factor for a Config's f: 50
// where f is 0, f itself from 1 to 99, and otherwise an error wrapping
// uidgen.ErrConfig that names it. ringbuffer.New and cached check it with
// this, each under its own prefix, so that one rule reads one way.
func PaddingFactor(f int) (int, error) {
	switch {
	case f == 0:
		return 50, nil
	case f < 0 || f >= 100:
		return 0, fmt.Errorf("%w: PaddingFactor %d, want 1 to 99, or 0 for 50", uidgen.ErrConfig, f)
	}
	return f, nil
}

// The segment generator's (segment.Config), which package serial and the
// command read too.
const (
	// SegmentStep is the step of a tag that segment.New creates: Leaf's
	// example rows use 2000.
	SegmentStep = 2000

	// SegmentMaxStep bounds the range a claim takes, and so what a crash
	// loses: a process killed while it takes flat out held at most about
	// 1.5 × MaxStep numbers (3 million), at the cost of a claim statement
	// every 2 million numbers handed out. bench/RESULTS.md has the
	// trade-off against other bounds.
	SegmentMaxStep = 2_000_000

	// SegmentClaimEvery is how long a range is sized to last.
	SegmentClaimEvery = 5 * time.Minute

	// SegmentRingSize is the most numbers a segment generator's ring holds.
	SegmentRingSize = 1 << 16
)

// Duration writes d as an error names a default or a limit, without the
// zero units that time.Duration's String keeps: 1h, 24h and 5m, not
// 1h0m0s, 24h0m0s and 5m0s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
