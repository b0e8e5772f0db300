package uidgen_test

import (
	"cmp"
	"encoding/hex"
	"errors"
	"math"
	mbits "math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// testKey returns a fixed key of size bytes, different for each n: the
// statistical tests below are then exact, never lucky or unlucky.
func testKey(n, size int) []byte {
	key, _ := hex.DecodeString(strings.Repeat("0123456789abcdef", 4))
	key[0] = byte(n)
	return key[:size]
}

func newOpaque(t testing.TB, layout uidgen.Layout, keys ...[]byte) *uidgen.Opaque {
	t.Helper()
	o, err := uidgen.NewOpaque(layout, keys...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// jsLayout returns the 53-bit layout of docs/layouts.md, whose IDs a
// JavaScript number holds exactly.
func jsLayout(t testing.TB) uidgen.Layout {
	t.Helper()
	l, err := uidgen.NewLayout(bits.Spec{TimeBits: 32, WorkerBits: 8, SeqBits: 13}, time.Second, uidgen.DefaultLayout().Epoch())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// spaceMax returns the largest ID of layout's space: 2^width - 1.
func spaceMax(layout uidgen.Layout) int64 {
	s := layout.Bits().Spec()
	return int64(1)<<min(s.TimeBits+s.WorkerBits+s.SeqBits+s.GeneBits, 63) - 1
}

// TestOpaqueRoundTrip: on every named layout, the ends of the space and
// random IDs hide into the space and reveal back, as ints and as text in
// every encoding, under each AES key size.
func TestOpaqueRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := append(uidgen.LayoutNames(), "53 bits")
	random := sizetest.Pick(1_000_000, 50_000) / len(names) / 3
	for _, name := range names {
		layout, err := uidgen.NamedLayout(name)
		if name == "53 bits" {
			layout, err = jsLayout(t), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		top := spaceMax(layout)
		for i, size := range []int{16, 24, 32} {
			o := newOpaque(t, layout, testKey(i, size))
			ids := []int64{0, 1, top - 1, top}
			for range random {
				ids = append(ids, rng.Int64()&top)
			}
			for j, id := range ids {
				h, err := o.Hide(id)
				if err != nil || h < 0 || h > top {
					t.Fatalf("%s: Hide(%d) = %d, %v; want a number from 0 to %d", name, id, h, err, top)
				}
				if back, err := o.Reveal(h); err != nil || back != id {
					t.Fatalf("%s: Reveal(Hide(%d)) = %d, %v", name, id, back, err)
				}
				if j >= 8 {
					continue
				}
				for _, e := range encodings {
					enc := e.enc
					text, err := o.Format(id, enc)
					if err != nil || text != "1_"+enc.Format(h) {
						t.Fatalf("%s: Format(%d, %v) = %q, %v; want %q", name, id, enc, text, err, "1_"+enc.Format(h))
					}
					if back, err := o.Parse(text, enc); err != nil || back != id {
						t.Fatalf("%s: Parse(%q, %v) = %d, %v; want %d", name, text, enc, back, err, id)
					}
				}
			}
		}
	}
}

// TestOpaqueHidesOrder: a million consecutive IDs, as a generator makes
// them in one tick, hide into numbers with no order left and bits that
// differ as random ones do. Between neighbours about half the bits flip,
// each bit about half the time, and the rank correlation of the IDs with
// their opaque IDs is near 0. The key is fixed, so the test is exact; the
// bounds are ten standard deviations of what random numbers give.
func TestOpaqueHidesOrder(t *testing.T) {
	layout := uidgen.DefaultLayout()
	o := newOpaque(t, layout, testKey(9, 16))
	const width = 63
	n := sizetest.Pick(1_000_000, 100_000)
	base := layout.Bits().Allocate(1_000_000, 7, 0)
	hidden := make([]int64, n)
	for i := range hidden {
		h, err := o.Hide(base + int64(i))
		if err != nil {
			t.Fatal(err)
		}
		hidden[i] = h
	}
	var flips [width]int
	total := 0
	for i := 1; i < n; i++ {
		d := uint64(hidden[i] ^ hidden[i-1])
		total += mbits.OnesCount64(d)
		for b := range width {
			flips[b] += int(d >> b & 1)
		}
	}
	pairs := float64(n - 1)
	if mean, sd := float64(total)/pairs, math.Sqrt(width/4.0/pairs); math.Abs(mean-width/2.0) > 10*sd {
		t.Errorf("neighbours' opaque IDs differ in %.3f bits on average, want %.1f ± %.3f", mean, width/2.0, 10*sd)
	}
	for b, f := range flips {
		if rate, sd := float64(f)/pairs, math.Sqrt(0.25/pairs); math.Abs(rate-0.5) > 10*sd {
			t.Errorf("bit %d flips between neighbours %.4f of the time, want 0.5 ± %.4f", b, rate, 10*sd)
		}
	}
	// Spearman's rank correlation: the IDs' ranks are their indexes.
	byValue := make([]int, n)
	for i := range byValue {
		byValue[i] = i
	}
	slices.SortFunc(byValue, func(a, b int) int { return cmp.Compare(hidden[a], hidden[b]) })
	var sumSq float64
	for rank, i := range byValue {
		d := float64(rank - i)
		sumSq += d * d
	}
	fn := float64(n)
	rho := 1 - 6*sumSq/(fn*(fn*fn-1))
	if sd := 1 / math.Sqrt(fn-1); math.Abs(rho) > 10*sd {
		t.Errorf("the rank correlation of %d consecutive IDs with their opaque IDs is %.5f, want 0 ± %.5f", n, rho, 10*sd)
	}
}

// TestOpaqueRotation: an Opaque of the old key and a new one reads the
// texts the old key wrote, and writes new ones under the new key's number;
// an Opaque of the old key alone refuses those.
func TestOpaqueRotation(t *testing.T) {
	layout := uidgen.DefaultLayout()
	old := newOpaque(t, layout, testKey(1, 32))
	both := newOpaque(t, layout, testKey(1, 32), testKey(2, 32))
	if old.Keys() != 1 || both.Keys() != 2 {
		t.Fatalf("Keys() = %d and %d, want 1 and 2", old.Keys(), both.Keys())
	}
	id := layout.Bits().Allocate(123_456, 42, 7)
	for _, e := range encodings {
		enc := e.enc
		was, _ := old.Format(id, enc)
		if got, err := both.Parse(was, enc); err != nil || got != id {
			t.Fatalf("after the rotation Parse(%q, %v) = %d, %v; want %d", was, enc, got, err, id)
		}
		now, _ := both.Format(id, enc)
		if !strings.HasPrefix(now, "2_") || now[2:] == was[2:] {
			t.Fatalf("after the rotation Format(%d, %v) = %q, want key 2's text, not key 1's %q", id, enc, now, was)
		}
		if _, err := old.Parse(now, enc); !errors.Is(err, uidgen.ErrIDSyntax) || !strings.Contains(err.Error(), "key 2") {
			t.Fatalf("the old key's Parse(%q) = %v, want ErrIDSyntax naming key 2", now, err)
		}
		h, err := both.Hide(id)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := both.Reveal(h); err != nil || got != id {
			t.Fatalf("Reveal(Hide(%d)) under the new key = %d, %v", id, got, err)
		}
	}
}

// TestOpaqueErrors: bad keys and layouts, IDs outside the space and text
// that is no opaque ID are errors that name the value and the limit.
func TestOpaqueErrors(t *testing.T) {
	layout := uidgen.DefaultLayout()
	narrow, err := uidgen.NewLayout(bits.Spec{TimeBits: 8, WorkerBits: 4, SeqBits: 4}, time.Second, uidgen.DefaultLayout().Epoch())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		layout uidgen.Layout
		keys   [][]byte
		want   string
	}{
		{"no key", layout, nil, "got none"},
		{"a short key", layout, [][]byte{make([]byte, 15)}, "15 bytes, want 16, 24 or 32"},
		{"a bad second key", layout, [][]byte{make([]byte, 16), make([]byte, 33)}, "key 2: 33 bytes"},
		{"the zero layout", uidgen.Layout{}, [][]byte{make([]byte, 16)}, "zero Layout"},
		{"a 16-bit layout", narrow, [][]byte{make([]byte, 16)}, "16-bit layout"},
	} {
		if _, err := uidgen.NewOpaque(c.layout, c.keys...); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewOpaque with %s = %v, want ErrConfig saying %q", c.name, err, c.want)
		}
	}

	js := jsLayout(t)
	o := newOpaque(t, js, testKey(0, 16))
	top := spaceMax(js)
	for _, v := range []int64{-1, top + 1, math.MaxInt64} {
		if _, err := o.Hide(v); !errors.Is(err, uidgen.ErrIDRange) || !strings.Contains(err.Error(), "0 to "+uidgen.Decimal.Format(top)) {
			t.Errorf("Hide(%d) = %v, want ErrIDRange naming the space, 0 to %d", v, err, top)
		}
		if _, err := o.Reveal(v); !errors.Is(err, uidgen.ErrIDRange) {
			t.Errorf("Reveal(%d) = %v, want ErrIDRange", v, err)
		}
	}
	for _, text := range []string{"", "1", "_5", "0_5", "01_5", "+1_5", "x_5", "2_5", "1_", "1_x", "1_-5"} {
		_, err := o.Parse(text, uidgen.Decimal)
		if err == nil || !strings.Contains(err.Error(), `"`+text+`"`) {
			t.Errorf("Parse(%q) = %v, want an error naming the text", text, err)
		}
	}
	big := "1_" + uidgen.Decimal.Format(top+1)
	if _, err := o.Parse(big, uidgen.Decimal); !errors.Is(err, uidgen.ErrIDRange) {
		t.Errorf("Parse(%q) = %v, want ErrIDRange", big, err)
	}
}

// TestOpaqueConcurrent: goroutines hiding and revealing at once get what
// one would alone: every opaque ID distinct and each revealing its ID.
func TestOpaqueConcurrent(t *testing.T) {
	o := newOpaque(t, uidgen.DefaultLayout(), testKey(5, 16))
	const goroutines = 16
	per := sizetest.Pick(50_000, 5_000)
	out := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				id := int64(g*per + i)
				h, err := o.Hide(id)
				if err != nil {
					t.Error(err)
					return
				}
				if back, err := o.Reveal(h); err != nil || back != id {
					t.Errorf("Reveal(Hide(%d)) = %d, %v", id, back, err)
					return
				}
				out[g] = append(out[g], h)
			}
		})
	}
	wg.Wait()
	all := slices.Sorted(slices.Values(slices.Concat(out...)))
	if len(all) != goroutines*per {
		t.Fatalf("%d opaque IDs, want %d", len(all), goroutines*per)
	}
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("opaque ID %d came out twice", all[i])
		}
	}
}

// TestOpaqueAllocatesNothing: Hide and Reveal allocate nothing, so they
// cost no garbage on a hot path. Under -race sync.Pool drops a share of
// what is put back, so only a build without it counts.
func TestOpaqueAllocatesNothing(t *testing.T) {
	if sizetest.Race() {
		t.Skip("the race detector's sync.Pool drops blocks on purpose")
	}
	o := newOpaque(t, uidgen.DefaultLayout(), testKey(6, 32))
	id := int64(12345)
	if n := testing.AllocsPerRun(1000, func() { id, _ = o.Hide(id) }); n != 0 {
		t.Errorf("Hide allocates %.1f times a call, want 0", n)
	}
	if n := testing.AllocsPerRun(1000, func() { id, _ = o.Reveal(id) }); n != 0 {
		t.Errorf("Reveal allocates %.1f times a call, want 0", n)
	}
}

// FuzzOpaqueParse: Parse of any text fails or returns an ID of the space
// whose text form parses back to it.
func FuzzOpaqueParse(f *testing.F) {
	layout := jsLayout(f)
	o := newOpaque(f, layout, testKey(7, 16), testKey(8, 16))
	for _, s := range []string{"1_5", "2_ZZZZZZZZZZZ", "3_1", "1__1", "٣_1", "1_0000000000000000000001", "2_7ZZZZZZZZZZZZ"} {
		f.Add(s, uint8(0))
	}
	top := spaceMax(layout)
	f.Fuzz(func(t *testing.T, text string, e uint8) {
		enc := encodings[int(e)%len(encodings)].enc
		id, err := o.Parse(text, enc)
		if err != nil {
			return
		}
		if id < 0 || id > top {
			t.Fatalf("Parse(%q, %v) = %d, outside 0 to %d", text, enc, id, top)
		}
		again, err := o.Format(id, enc)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := o.Parse(again, enc); err != nil || back != id {
			t.Fatalf("Parse(Format(%d)) = %d, %v", id, back, err)
		}
	})
}

// FuzzOpaqueReveal: Reveal of any int64 fails outside the space and
// otherwise returns the ID that Hide maps back to it.
func FuzzOpaqueReveal(f *testing.F) {
	o := newOpaque(f, uidgen.DefaultLayout(), testKey(9, 24))
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		id, err := o.Reveal(v)
		if (err != nil) != (v < 0) {
			t.Fatalf("Reveal(%d) = %d, %v", v, id, err)
		}
		if err != nil {
			return
		}
		if h, err := o.Hide(id); err != nil || h != v {
			t.Fatalf("Hide(Reveal(%d)) = %d, %v", v, h, err)
		}
	})
}
