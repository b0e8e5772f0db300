package scheme

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// TestRandomFirstSequence: a second's first sequence stays within the second, whatever
// rate is measured (a sample read while the counters move can come out
// negative or above a second's IDs), and never makes UID 0.
func TestRandomFirstSequence(t *testing.T) {
	s, err := New(Params{TimeBits: 40, WorkerBits: 19, SeqBits: 4, Assigner: uidgen.Static(0), Epoch: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rate := range []int64{-100, -1, 0, 1, 8, 15, 16, 17, 1 << 40} {
		for delta := range int64(200) {
			first := s.RandomFirstSequence(delta%2, s.Unused(rate))
			if first < 0 || first > 15 || delta%2 == 0 && first == 0 {
				t.Fatalf("RandomFirstSequence(%d, rate %d) = %d, want in [0, 15] and not UID 0", delta%2, rate, first)
			}
			if rate >= 15 && first > s.FirstSequence(delta%2) {
				t.Fatalf("RandomFirstSequence(%d, rate %d) = %d: at a full second's rate no sequence may be skipped", delta%2, rate, first)
			}
		}
	}
}
