package defaultgen_test

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

func TestNextIDFor(t *testing.T) {
	g := newGen(t, defaultgen.Config{
		Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 10, SeqBits: 13, GeneBits: 10}), Clock: clocktest.New(start),
	})
	idtest.CheckNextIDFor(t, g, sizetest.Pick(1_000_000, 64_000))
	idtest.CheckNoGeneBits(t, newGen(t, defaultgen.Config{}))
}

// TestJavaScriptSafeToTheEnd drives a 53-bit layout (32 time, 8 worker, 9
// sequence and 4 gene bits) through its last seconds: every ID stays an
// exact JavaScript number, and the end is the same error as a 64-bit
// layout's.
func TestJavaScriptSafeToTheEnd(t *testing.T) {
	schemetest.WholeSeconds(t)
	last := start
	epoch := last.Add(-(1<<32 - 3) * time.Second) // 3 seconds of IDs left at the clock's second
	g := newGen(t, defaultgen.Config{
		Layout:   idtest.LayoutFrom(t, bits.Spec{TimeBits: 32, WorkerBits: 8, SeqBits: 9, GeneBits: 4}, epoch),
		Assigner: uidgen.Static(255), Clock: clocktest.New(last),
	})
	if ids := idtest.CheckToTheEnd(t, g, 1<<20); len(ids) != 3<<9 {
		t.Fatalf("%d IDs before the end, want 3 seconds of 512", len(ids))
	}
}
