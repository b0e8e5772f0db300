package bench

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bwmarrin/snowflake"

	"github.com/seed4d941b13/uidgen"
)

// encodingIDs returns 0, 1, 2^63-1, each power of two and n random IDs of
// every magnitude, from a fixed seed.
func encodingIDs(n int) []int64 {
	ids := []int64{0, 1, math.MaxInt64}
	for k := range 63 {
		ids = append(ids, 1<<k, 1<<k-1)
	}
	r := rand.New(rand.NewPCG(36, 58))
	for range n {
		ids = append(ids, r.Int64()>>r.IntN(63))
	}
	return ids
}

// TestEncodingBase58IsBwmarrins: uidgen.Base58 writes what bwmarrin's
// ID.Base58 writes, bwmarrin's ParseBase58 reads it back, and uidgen reads
// what bwmarrin writes.
func TestEncodingBase58IsBwmarrins(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 1_000
	}
	for _, id := range encodingIDs(n) {
		ours, theirs := uidgen.Base58.Format(id), snowflake.ParseInt64(id).Base58()
		if ours != theirs {
			t.Fatalf("%d: uidgen writes %q, bwmarrin %q", id, ours, theirs)
		}
		if back, err := snowflake.ParseBase58([]byte(ours)); err != nil || back.Int64() != id {
			t.Fatalf("bwmarrin reads uidgen's %q as %d, %v; want %d", ours, back, err, id)
		}
		if back, err := uidgen.Base58.Parse(theirs); err != nil || back != id {
			t.Fatalf("uidgen reads bwmarrin's %q as %d, %v; want %d", theirs, back, err, id)
		}
	}
}

// TestEncodingBase58Stricter: what bwmarrin's ParseBase58 lets through
// (empty text, bytes outside its alphabet read as its zero digit, numbers
// past 2^63-1 wrapped round), uidgen refuses, as docs/ids-as-text.md says.
func TestEncodingBase58Stricter(t *testing.T) {
	for _, tt := range []struct {
		in string
		is error
	}{
		{"", uidgen.ErrIDSyntax},
		{"2l", uidgen.ErrIDSyntax},
		{"2I", uidgen.ErrIDSyntax},
		{"2O", uidgen.ErrIDSyntax},
		{"2_", uidgen.ErrIDSyntax},
		{"npL6MjP8Qfd", uidgen.ErrIDRange}, // 2^63
	} {
		theirs, theirErr := snowflake.ParseBase58([]byte(tt.in))
		if theirErr != nil {
			t.Errorf("bwmarrin now refuses %q (%v): docs/ids-as-text.md says it reads it", tt.in, theirErr)
		}
		if ours, err := uidgen.Base58.Parse(tt.in); !errors.Is(err, tt.is) {
			t.Errorf("uidgen reads %q, which bwmarrin reads as %d, as %d, %v; want %v", tt.in, theirs, ours, err, tt.is)
		}
	}
}

// TestEncodingJSONIsBwmarrins: a uidgen.UID and a bwmarrin ID write the
// same JSON string, and each reads the other's.
func TestEncodingJSONIsBwmarrins(t *testing.T) {
	for _, id := range encodingIDs(1_000) {
		ours, err := json.Marshal(uidgen.UID(id))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := json.Marshal(snowflake.ParseInt64(id))
		if err != nil || string(ours) != string(theirs) {
			t.Fatalf("%d: uidgen writes %s, bwmarrin %s, %v", id, ours, theirs, err)
		}
		var u uidgen.UID
		var s snowflake.ID
		if err := json.Unmarshal(theirs, &u); err != nil || int64(u) != id {
			t.Fatalf("uidgen reads bwmarrin's %s as %d, %v", theirs, u, err)
		}
		if err := json.Unmarshal(ours, &s); err != nil || s.Int64() != id {
			t.Fatalf("bwmarrin reads uidgen's %s as %d, %v", ours, s, err)
		}
	}
}

// BenchmarkEncodingBase58: uidgen's Base58 beside bwmarrin's, which it
// writes bit for bit.
func BenchmarkEncodingBase58(b *testing.B) {
	const id = 512360392635531266
	b.Run("uidgen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodingSink = uidgen.Base58.Format(id)
		}
	})
	b.Run("bwmarrin", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodingSink = snowflake.ParseInt64(id).Base58()
		}
	})
}

var encodingSink string
