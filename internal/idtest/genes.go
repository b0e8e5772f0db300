package idtest

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

// Generator is what the shared generator checks need: both generators are
// one.
type Generator interface {
	Parser
	NextID() (int64, error)
	NextIDFor(key int64) (int64, error)
}

// Keys returns n distinct shard keys, some negative, spread over the range
// of int64 so that their low bits vary.
func Keys(n int) []int64 {
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(uint64(i+1) * 0x9e3779b97f4a7c15) // Weyl sequence: distinct, both signs
	}
	return keys
}

// CheckNextIDFor takes n IDs from 16 goroutines with NextIDFor over 1,024
// distinct keys and fails t unless every ID carries its key's gene, all are
// unique, and each goroutine's increase once the gene bits are shifted off.
func CheckNextIDFor(t *testing.T, g Generator, n int) {
	t.Helper()
	const goroutines = 16
	keys := Keys(1024)
	key := func(gr, i int) int64 { return keys[(gr*61+i)%len(keys)] }
	ids, err := CollectFor(goroutines, n/goroutines, g.NextIDFor, key)
	if err != nil {
		t.Fatal(err)
	}
	if got := Check(t, g, ids); got != n/goroutines*goroutines {
		t.Fatalf("checked %d IDs, want %d", got, n/goroutines*goroutines)
	}
	CheckKeys(t, g, ids, key)
}

// CheckNoGeneBits fails t unless NextIDFor on a layout without gene bits is
// an error wrapping uidgen.ErrNoGeneBits, not a silent NextID.
func CheckNoGeneBits(t *testing.T, g Generator) {
	t.Helper()
	if id, err := g.NextIDFor(42); !errors.Is(err, uidgen.ErrNoGeneBits) || id != 0 {
		t.Fatalf("NextIDFor on a layout without gene bits = %d, %v; want ErrNoGeneBits", id, err)
	}
}

// CheckToTheEnd takes IDs from g, alternating NextID and NextIDFor, until
// its time bits run out, and fails t unless every ID is below 2^(the sum of
// the layout's widths) and survives a round trip through a JSON number into
// a float64 (which holds integers exactly only up to 2^53), and the end is
// the same clear error as for 64-bit layouts. It returns the IDs.
func CheckToTheEnd(t *testing.T, g Generator, atMost int) []int64 {
	t.Helper()
	var ids []int64
	for len(ids) < atMost {
		next := g.NextID
		if len(ids)%2 == 1 {
			next = func() (int64, error) { return g.NextIDFor(int64(len(ids))) }
		}
		id, err := next()
		if err != nil {
			if !errors.Is(err, uidgen.ErrTimeExhausted) || !strings.Contains(err.Error(), "time bits, which ran out at") {
				t.Fatalf("after %d IDs: %v, want ErrTimeExhausted saying when the time bits ran out", len(ids), err)
			}
			Check(t, g, [][]int64{ids})
			return ids
		}
		var f float64
		if err := json.Unmarshal([]byte(strconv.FormatInt(id, 10)), &f); err != nil || int64(f) != id {
			t.Fatalf("ID %d came back from a JSON float64 as %.0f (%v)", id, f, err)
		}
		ids = append(ids, id)
	}
	t.Fatalf("%d IDs and the time bits have not run out", len(ids))
	return nil
}
