package bench

import (
	"context"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
)

// batch is how many IDs BenchmarkCachedBatch takes per NextIDs call.
const batch = 64

// openCached builds a cached generator with the defaults (a ring of 65,536
// slots) that the benchmark closes when it ends.
func openCached(b *testing.B) *cached.Generator {
	g, err := cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}

// BenchmarkCached is the product: NextID from the ring the padder keeps
// full, borrowing future seconds when the load outruns 8,192 IDs/s.
func BenchmarkCached(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		return shared(openCached(b).NextID)
	})
}

// BenchmarkCachedBatch takes IDs with NextIDs, batch at a time, into a
// buffer of each goroutine's own, and hands them out one per op, so its
// ns/op is per ID as everywhere else.
func BenchmarkCachedBatch(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		g := openCached(b)
		return func() nextFunc {
			buf := make([]int64, batch)
			i := len(buf)
			return func() (int64, error) {
				if i == len(buf) {
					if _, err := g.NextIDs(buf); err != nil {
						return 0, err
					}
					i = 0
				}
				i++
				return buf[i-1], nil
			}
		}
	})
}
