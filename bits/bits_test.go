package bits_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/bits"
)

func TestNewRejectsBadLayouts(t *testing.T) {
	tests := []struct {
		name              string
		time, worker, seq int
		wantInMessage     []string
	}{
		{"sum too large", 30, 22, 13, []string{"time 30", "worker 22", "sequence 13", "= 66", "more than 64"}},
		{"zero time bits", 0, 50, 13, []string{"time 0", "at least 1"}},
		{"zero worker bits", 50, 0, 13, []string{"worker 0", "at least 1"}},
		{"zero sequence bits", 50, 13, 0, []string{"sequence 0", "at least 1"}},
		{"negative bits", 70, -5, -2, []string{"worker -5", "at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := bits.New(tt.time, tt.worker, tt.seq)
			if !errors.Is(err, bits.ErrLayout) {
				t.Fatalf("New(%d, %d, %d) = %v, %v; want ErrLayout", tt.time, tt.worker, tt.seq, a, err)
			}
			for _, s := range tt.wantInMessage {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestMaxima(t *testing.T) {
	tests := []struct {
		time, worker, seq           int
		maxDelta, maxWorker, maxSeq int64
	}{
		{28, 22, 13, 1<<28 - 1, 1<<22 - 1, 1<<13 - 1},
		{30, 20, 13, 1<<30 - 1, 1<<20 - 1, 8191},
		{1, 1, 61, 1, 1, 1<<61 - 1},
		{61, 1, 1, 1<<61 - 1, 1, 1},
	}
	for _, tt := range tests {
		a, err := bits.New(tt.time, tt.worker, tt.seq)
		if err != nil {
			t.Fatal(err)
		}
		if a.MaxDeltaSeconds() != tt.maxDelta || a.MaxWorkerID() != tt.maxWorker || a.MaxSequence() != tt.maxSeq {
			t.Errorf("%v: maxima %d/%d/%d, want %d/%d/%d", a,
				a.MaxDeltaSeconds(), a.MaxWorkerID(), a.MaxSequence(), tt.maxDelta, tt.maxWorker, tt.maxSeq)
		}
		if a.TimeBits() != tt.time || a.WorkerBits() != tt.worker || a.SeqBits() != tt.seq {
			t.Errorf("%v: bit counts %d/%d/%d", a, a.TimeBits(), a.WorkerBits(), a.SeqBits())
		}
		// The largest ID of the layout is MaxInt64: every bit but the sign.
		if got := a.Allocate(a.MaxDeltaSeconds(), a.MaxWorkerID(), a.MaxSequence()); got != math.MaxInt64 {
			t.Errorf("%v: Allocate(max, max, max) = %#x, want MaxInt64", a, got)
		}
	}
}

// TestParseMatchesJava checks Parse against values computed by hand with
// Java's shifts, including negative UIDs, where >>> differs from Go's >> on
// int64.
func TestParseMatchesJava(t *testing.T) {
	a, err := bits.New(28, 22, 13) // Baidu's default layout
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		uid                int64
		delta, worker, seq int64
	}{
		{0, 0, 0, 0},
		{1<<35 | 5<<13 | 7, 1, 5, 7},
		// Java: -1L >>> 35 = 2^29-1; the sign bit shows in deltaSeconds.
		{-1, 1<<29 - 1, 1<<22 - 1, 1<<13 - 1},
		// Java: Long.MIN_VALUE >>> 35 = 2^28, worker and sequence 0.
		{math.MinInt64, 1 << 28, 0, 0},
		{math.MaxInt64, 1<<28 - 1, 1<<22 - 1, 1<<13 - 1},
	}
	for _, tt := range tests {
		d, w, s := a.Parse(tt.uid)
		if d != tt.delta || w != tt.worker || s != tt.seq {
			t.Errorf("Parse(%d) = (%d, %d, %d), want (%d, %d, %d)", tt.uid, d, w, s, tt.delta, tt.worker, tt.seq)
		}
	}
}

func TestAllocateIsBaidus(t *testing.T) {
	a, err := bits.New(29, 21, 13)
	if err != nil {
		t.Fatal(err)
	}
	// (delta << 34) | (worker << 13) | seq, as BitsAllocator.allocate.
	if got, want := a.Allocate(100, 3, 9), int64(100)<<34|3<<13|9; got != want {
		t.Fatalf("Allocate(100, 3, 9) = %d, want %d", got, want)
	}
}

// FuzzRoundTrip checks Parse(Allocate(d, w, s)) == (d, w, s) for any valid
// layout and any in-range triple, and that the UID is never negative.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(28), uint8(22), int64(0), int64(0), int64(0))
	f.Add(uint8(30), uint8(20), int64(1<<30-1), int64(1<<20-1), int64(8191))
	f.Add(uint8(1), uint8(1), int64(1), int64(1), int64(-1))
	f.Add(uint8(61), uint8(1), int64(-5), int64(7), int64(3))
	f.Fuzz(func(t *testing.T, timeBits, workerBits uint8, d, w, s int64) {
		tb, wb := int(timeBits%61)+1, int(workerBits%61)+1
		sb := 63 - tb - wb
		if sb < 1 {
			return
		}
		a, err := bits.New(tb, wb, sb)
		if err != nil {
			t.Fatalf("New(%d, %d, %d): %v", tb, wb, sb, err)
		}
		// Fold the triple into range: the property is about in-range values.
		d, w, s = fold(d, a.MaxDeltaSeconds()), fold(w, a.MaxWorkerID()), fold(s, a.MaxSequence())
		uid := a.Allocate(d, w, s)
		if uid < 0 {
			t.Fatalf("%v: Allocate(%d, %d, %d) = %d < 0", a, d, w, s, uid)
		}
		if gd, gw, gs := a.Parse(uid); gd != d || gw != w || gs != s {
			t.Fatalf("%v: Parse(Allocate(%d, %d, %d)) = (%d, %d, %d)", a, d, w, s, gd, gw, gs)
		}
	})
}

func fold(v, max int64) int64 {
	if v < 0 {
		v = -(v + 1)
	}
	return v % (max + 1)
}

// FuzzGeneRoundTrip checks, for any layout NewGene accepts and any in-range
// fields, that Parse and Gene invert Allocate with the gene ORed in, that the
// UID stays below 2^UsedBits, and that uid % 2^G is the gene.
func FuzzGeneRoundTrip(f *testing.F) {
	f.Add(uint8(31), uint8(8), uint8(13), uint8(0), int64(5), int64(7), int64(9), int64(0))
	f.Add(uint8(29), uint8(10), uint8(14), uint8(10), int64(-1), int64(1023), int64(3), int64(-7))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(60), int64(1), int64(1), int64(1), int64(1<<60-1))
	f.Fuzz(func(t *testing.T, timeBits, workerBits, seqBits, geneBits uint8, d, w, s, g int64) {
		tb, wb, sb, gb := int(timeBits%61)+1, int(workerBits%61)+1, int(seqBits%61)+1, int(geneBits%61)
		a, err := bits.NewGene(tb, wb, sb, gb)
		if 1+tb+wb+sb+gb > 64 {
			if !errors.Is(err, bits.ErrLayout) {
				t.Fatalf("NewGene(%d, %d, %d, %d) = %v, %v; want ErrLayout", tb, wb, sb, gb, a, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("NewGene(%d, %d, %d, %d): %v", tb, wb, sb, gb, err)
		}
		d, w, s, g = fold(d, a.MaxDeltaSeconds()), fold(w, a.MaxWorkerID()), fold(s, a.MaxSequence()), fold(g, a.MaxGene())
		uid := a.Allocate(d, w, s) | g
		if uid < 0 || a.UsedBits() < 63 && uid >= 1<<a.UsedBits() {
			t.Fatalf("%v: UID %d is not in [0, 2^%d)", a, uid, a.UsedBits())
		}
		if gd, gw, gs := a.Parse(uid); gd != d || gw != w || gs != s || a.Gene(uid) != g {
			t.Fatalf("%v: Parse(%d) = (%d, %d, %d), gene %d; want (%d, %d, %d), gene %d", a, uid, gd, gw, gs, a.Gene(uid), d, w, s, g)
		}
		if gb > 0 && uid%(1<<gb) != g {
			t.Fatalf("%v: %d %% 2^%d = %d, want the gene %d", a, uid, gb, uid%(1<<gb), g)
		}
	})
}

// TestNewGeneIsNewOnBaiduLayouts: with no gene bits and all 64 used, NewGene
// packs and parses exactly as Baidu's New.
func TestNewGeneIsNewOnBaiduLayouts(t *testing.T) {
	baidu, err := bits.New(28, 22, 13)
	if err != nil {
		t.Fatal(err)
	}
	gene, err := bits.NewGene(28, 22, 13, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 8246337208330108984} {
		bd, bw, bs := baidu.Parse(uid)
		gd, gw, gs := gene.Parse(uid)
		if bd != gd || bw != gw || bs != gs || gene.Gene(uid) != 0 {
			t.Errorf("Parse(%d): New gives (%d, %d, %d), NewGene (%d, %d, %d) gene %d", uid, bd, bw, bs, gd, gw, gs, gene.Gene(uid))
		}
	}
	if baidu.String() != gene.String() || baidu.UsedBits() != 63 {
		t.Errorf("String: %q and %q, UsedBits %d", baidu, gene, baidu.UsedBits())
	}
}

// TestNewTakesFewerBits: a layout of fewer than 64 bits is as
// good to New as to uidgen.NewLayout, and to NewGene without gene bits.
func TestNewTakesFewerBits(t *testing.T) {
	a, err := bits.New(28, 22, 12)
	if err != nil {
		t.Fatalf("New(28, 22, 12) = %v, want the 63-bit layout of IDs below 2^62", err)
	}
	g, err := bits.NewGene(28, 22, 12, 0)
	if err != nil || a.String() != g.String() || a.UsedBits() != 62 {
		t.Fatalf("New(28, 22, 12) = %v (%d bits used), NewGene(28, 22, 12, 0) = %v, %v; want the same 62 bits", a, a.UsedBits(), g, err)
	}
}
