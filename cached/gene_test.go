package cached

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// geneConfig is a 63-bit layout with 10 gene bits, on a stopped clock.
func geneConfig(t testing.TB) Config {
	return Config{
		Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 10, SeqBits: 13, GeneBits: 10}),
		Clock:  clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Hour)),
	}
}

func TestNextIDFor(t *testing.T) {
	idtest.CheckNextIDFor(t, newGenerator(t, geneConfig(t)), sizetest.Pick(1_000_000, 64_000))
	idtest.CheckNoGeneBits(t, newGenerator(t, Config{}))
}

// TestNextIDSpreadsOverGenes: NextID on a gene layout spreads its IDs over
// every residue of id % 2^k, down into the gene bits.
func TestNextIDSpreadsOverGenes(t *testing.T) {
	g := newGenerator(t, geneConfig(t))
	ids := make([]int64, 256<<10) // a mean of 64 IDs a residue at k = 12
	if _, err := g.NextIDs(ids); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{4, 10, 12} {
		idtest.CheckSpread(t, ids, k)
	}
}

// TestJavaScriptSafeToTheEnd drives a 53-bit layout (32 time, 8 worker, 9
// sequence and 4 gene bits) through its last seconds: every ID stays an
// exact JavaScript number, and the end is the same error as a 64-bit
// layout's.
func TestJavaScriptSafeToTheEnd(t *testing.T) {
	schemetest.WholeSeconds(t)
	last := time.Now().Add(-time.Hour)
	epoch := last.Add(-(1<<32 - 3) * time.Second) // 3 seconds of IDs left at the clock's second
	g := newGenerator(t, Config{
		Layout:     idtest.LayoutFrom(t, bits.Spec{TimeBits: 32, WorkerBits: 8, SeqBits: 9, GeneBits: 4}, epoch),
		BoostPower: 1,
		Assigner:   uidgen.Static(255), Clock: clocktest.New(last),
	})
	if ids := idtest.CheckToTheEnd(t, g, 1<<20); len(ids) != 3<<9 {
		t.Fatalf("%d IDs before the end, want 3 seconds of 512", len(ids))
	}
}
