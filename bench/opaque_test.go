package bench

import (
	"context"
	"crypto/aes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"
)

// opaqueKey is a fixed AES-128 key: a key's value does not change the cost.
var opaqueKey = []byte("0123456789abcdef")

// opaqueLayouts are the layouts Opaque is measured on: the default, whose
// IDs fill 63 bits, and one whose IDs stay below 2^53, exact as JavaScript
// numbers (docs/layouts.md's example), which no named layout is. FF1 does
// the same ten AES blocks on both; only the halves' widths differ.
func opaqueLayouts(b *testing.B) []struct {
	name   string
	layout uidgen.Layout
} {
	js, err := uidgen.NewLayout(bits.Spec{TimeBits: 32, WorkerBits: 8, SeqBits: 13}, time.Second,
		time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	return []struct {
		name   string
		layout uidgen.Layout
	}{{"uidgen", uidgen.DefaultLayout()}, {"js53", js}}
}

// openOpaque returns the Opaque of layout under opaqueKey and an ID of
// layout from now, worker 1, sequence 0.
func openOpaque(b *testing.B, layout uidgen.Layout) (*uidgen.Opaque, int64) {
	o, err := uidgen.NewOpaque(layout, opaqueKey)
	if err != nil {
		b.Fatal(err)
	}
	return o, layout.Bits().Allocate(layout.TickOf(time.Now()), 1, 0)
}

// BenchmarkOpaque measures Opaque's Hide, Reveal and Format (Base62) on
// each of opaqueLayouts, beside what an ID costs without it (the atomic
// floor, the default and the cached generators' NextID), the ten AES
// blocks that are FF1's work and nothing else, and the opaque ID a user
// would pick instead (a random UUIDv4), all in one run, so that
// their ratios hold on a shared machine. ns/op is per ID, as in
// bench_test.go, whose harness calls every op that returns an int64; the
// UUIDs and Format's strings run in a plain loop, a nanosecond cheaper.
//
// Hide and Reveal feed each result back in as the next input: an opaque
// ID is in the layout's space, so every input is valid and none repeats
// the last. Hide runs at 1, 2 and 64 goroutines, a chain each, beside
// the ten blocks with a scratch block of each goroutine's own: where
// Hide gains less than they do from a second goroutine, the pool of
// scratch blocks contends.
func BenchmarkOpaque(b *testing.B) {
	b.Run("atomic", func(b *testing.B) { serial(b, baseline.Atomic()) })
	b.Run("defaultgen.NextID", func(b *testing.B) {
		g, err := defaultgen.New(context.Background(), defaultgen.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { g.Close() })
		serial(b, g.NextID)
	})
	b.Run("cached.NextID", func(b *testing.B) { serial(b, openCached(b).NextID) })
	b.Run("aes10", func(b *testing.B) {
		benchLevels(b, func(b *testing.B) func() nextFunc {
			block, err := aes.NewCipher(opaqueKey)
			if err != nil {
				b.Fatal(err)
			}
			return func() nextFunc {
				q := new([aes.BlockSize]byte)
				return func() (int64, error) {
					for range 10 {
						block.Encrypt(q[:], q[:])
					}
					return int64(binary.BigEndian.Uint64(q[:8])), nil
				}
			}
		})
	})
	b.Run("uuid.New", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			uuidSink = uuid.New()
		}
	})
	b.Run("uuid.NewString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodingSink = uuid.NewString()
		}
	})
	for _, l := range opaqueLayouts(b) {
		b.Run("Hide/layout="+l.name, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) func() nextFunc {
				o, first := openOpaque(b, l.layout)
				return func() nextFunc { return chain(first, o.Hide) }
			})
		})
		b.Run("Reveal/layout="+l.name, func(b *testing.B) {
			o, first := openOpaque(b, l.layout)
			serial(b, chain(first, o.Reveal))
		})
		b.Run("Format/layout="+l.name, func(b *testing.B) {
			o, id := openOpaque(b, l.layout)
			b.ReportAllocs()
			for b.Loop() {
				s, err := o.Format(id, uidgen.Base62)
				if err != nil {
					b.Fatal(err)
				}
				encodingSink = s
				id++ // the next sequence number, and then the next worker's
			}
		})
	}
}

// chain returns a nextFunc that applies f to its last result, starting
// from f(first).
func chain(first int64, f func(int64) (int64, error)) nextFunc {
	id := first
	return func() (int64, error) {
		var err error
		id, err = f(id)
		return id, err
	}
}

var uuidSink uuid.UUID
