package defaultgen_test

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// TestSpread: at 10 IDs a second for 1,000 s, and at flat out, the IDs
// spread evenly over id % 2^k. Without a random start every ID at 10 a
// second would be among the first ten of its second: on ten shards of 1,024.
func TestSpread(t *testing.T) {
	clock := clocktest.New(start)
	g := newGen(t, defaultgen.Config{Clock: clock})
	slow := make([]int64, 10_000)
	for i := range slow {
		clock.Advance(100 * time.Millisecond)
		var err error
		if slow[i], err = g.NextID(); err != nil {
			t.Fatal(err)
		}
	}
	fast, err := idtest.Collect(1, 64<<10, g.NextID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range [][]int64{slow, fast[0]} {
		for _, k := range []int{2, 6, 10} {
			idtest.CheckSpread(t, ids, k)
		}
	}
}
