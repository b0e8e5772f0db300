package idtest

import (
	"errors"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// CheckLayouts builds a generator with worker ID 7 in every named layout
// (uidgen.LayoutNames) through build, takes n IDs from each of 8 goroutines,
// and fails t unless they pass Check, the first and last carry a time
// within a minute of the clock's (a layout read in the wrong unit is off by
// years), and 64 IDs taken by one goroutine alone are one sequence apart
// within a tick: 2^WorkerBits apart with the sequence above the worker. Baidu's layout, whose time bits
// ran out in 2024, must be refused with uidgen.ErrTimeExhausted.
func CheckLayouts(t *testing.T, n int, build func(t *testing.T, layout uidgen.Layout) (Generator, error)) {
	for _, name := range uidgen.LayoutNames() {
		t.Run(name, func(t *testing.T) {
			layout, err := uidgen.NamedLayout(name)
			if err != nil {
				t.Fatal(err)
			}
			g, err := build(t, layout)
			if layout.RunsOut().Before(time.Now()) {
				if !errors.Is(err, uidgen.ErrTimeExhausted) {
					t.Fatalf("a generator in %s, spent on %s: %v, want %v", layout, layout.RunsOut(), err, uidgen.ErrTimeExhausted)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			ids, err := Collect(8, n, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			Check(t, g, ids)
			// The earliest ID is near the clock; the latest at most as far
			// ahead as the IDs taken fill ticks, borrowed from the future.
			// A goroutine that starts late takes its first ID far ahead,
			// so the earliest and latest are over all goroutines.
			perTick := layout.Bits().MaxSequence() + 1
			borrowed := time.Duration(int64(8*n)/perTick+2) * layout.Tick()
			lo, hi := ids[0][0], ids[0][n-1]
			for _, s := range ids {
				lo, hi = min(lo, s[0]), max(hi, s[n-1])
			}
			first, last := g.Layout().Parse(lo), g.Layout().Parse(hi)
			if first.Time.Sub(start).Abs() > time.Minute {
				t.Fatalf("%s: the earliest ID parses as %+v, not within a minute of %s, when the first was taken", name, first, start)
			}
			if ahead := last.Time.Sub(time.Now()); ahead > borrowed+time.Minute {
				t.Fatalf("%s: the latest ID parses as %+v, %v ahead of now, more than the %v its IDs borrow and a minute",
					name, last, ahead, borrowed)
			}
			// Alone, a goroutine's IDs are consecutive sequences.
			alone, err := Collect(1, 64, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			checkSequenceStep(t, g, alone[0])
		})
	}
}

// checkSequenceStep fails t unless each two consecutive IDs of one goroutine
// in the same tick differ by one sequence: 1 with the sequence in the low
// bits, 2^WorkerBits with the sequence above the worker (and the gene bits
// shifted off).
func checkSequenceStep(t *testing.T, g Generator, ids []int64) {
	t.Helper()
	b := g.Layout().Bits()
	gene := b.Spec().GeneBits
	step := b.Allocate(0, 0, 1) >> gene
	same := 0
	for i := 1; i < len(ids); i++ {
		prev, id := g.Layout().Parse(ids[i-1]), g.Layout().Parse(ids[i])
		if !id.Time.Equal(prev.Time) || id.Sequence != prev.Sequence+1 {
			continue
		}
		same++
		if d := ids[i]>>gene - ids[i-1]>>gene; d != step {
			t.Fatalf("IDs %d and %d, sequences %d and %d of one tick, are %d apart, want %d", ids[i-1], ids[i], prev.Sequence, id.Sequence, d, step)
		}
	}
	if same == 0 {
		t.Fatalf("no two of %d consecutive IDs share a tick", len(ids))
	}
}
