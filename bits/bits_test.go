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
		{"sum too large", 30, 22, 13, []string{"time 30", "worker 22", "sequence 13", "= 66", "want at most 64"}},
		{"zero time bits", 0, 50, 13, []string{"time 0", "at least 1"}},
		{"zero worker bits", 50, 0, 13, []string{"worker 0", "at least 1"}},
		{"zero sequence bits", 50, 13, 0, []string{"sequence 0", "at least 1"}},
		{"negative bits", 70, -5, -2, []string{"worker -5", "at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := bits.New(bits.Spec{TimeBits: tt.time, WorkerBits: tt.worker, SeqBits: tt.seq})
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
		a, err := bits.New(bits.Spec{TimeBits: tt.time, WorkerBits: tt.worker, SeqBits: tt.seq})
		if err != nil {
			t.Fatal(err)
		}
		if a.MaxDelta() != tt.maxDelta || a.MaxWorkerID() != tt.maxWorker || a.MaxSequence() != tt.maxSeq {
			t.Errorf("%v: maxima %d/%d/%d, want %d/%d/%d", a,
				a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence(), tt.maxDelta, tt.maxWorker, tt.maxSeq)
		}
		if want := (bits.Spec{TimeBits: tt.time, WorkerBits: tt.worker, SeqBits: tt.seq}); a.Spec() != want {
			t.Errorf("%v: Spec() = %+v, want %+v", a, a.Spec(), want)
		}
		// The largest ID of the layout is MaxInt64: every bit but the sign.
		if got := a.Allocate(a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence()); got != math.MaxInt64 {
			t.Errorf("%v: Allocate(max, max, max) = %#x, want MaxInt64", a, got)
		}
	}
}

// TestParseMatchesJava checks Parse against values computed by hand with
// Java's shifts, including negative UIDs, where >>> differs from Go's >> on
// int64.
func TestParseMatchesJava(t *testing.T) {
	a, err := bits.New(bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 13}) // Baidu's default layout
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
	a, err := bits.New(bits.Spec{TimeBits: 29, WorkerBits: 21, SeqBits: 13})
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
		a, err := bits.New(bits.Spec{TimeBits: tb, WorkerBits: wb, SeqBits: sb})
		if err != nil {
			t.Fatalf("New(%d, %d, %d): %v", tb, wb, sb, err)
		}
		// Fold the triple into range: the property is about in-range values.
		d, w, s = fold(d, a.MaxDelta()), fold(w, a.MaxWorkerID()), fold(s, a.MaxSequence())
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

// TestNewTakesFewerBits: a layout of fewer than 64 bits is a layout, whose
// IDs stay below 2^62, as its String says.
func TestNewTakesFewerBits(t *testing.T) {
	a, err := bits.New(bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 12})
	if err != nil {
		t.Fatalf("New(28, 22, 12) = %v, want the layout of IDs below 2^62", err)
	}
	if a.String() != "1+28+22+12 bits (sign+time+worker+sequence), IDs below 2^62" {
		t.Fatalf("New(28, 22, 12) = %v; want IDs below 2^62", a)
	}
	if uid := a.Allocate(a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence()); uid != 1<<62-1 {
		t.Fatalf("the largest ID of 28+22+12 bits is %d, want 2^62-1", uid)
	}
}

// TestSpecOrderAndSign checks Allocate against shifts written out by hand
// for each order and sign, the maxima, String, and that Parse inverts
// Allocate at the largest fields.
func TestSpecOrderAndSign(t *testing.T) {
	tests := []struct {
		name     string
		spec     bits.Spec
		d, w, s  int64
		want     int64 // Allocate(d, w, s), by hand
		maxDelta int64
		str      string
	}{
		{"sonyflake v2: sequence above machine", bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true},
			100, 0x1234, 5, 100<<24 | 5<<16 | 0x1234, 1<<39 - 1, "1+39+8+16 bits (sign+time+sequence+worker)"},
		{"twitter: worker above sequence", bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12},
			100, 7, 5, 100<<22 | 7<<12 | 5, 1<<41 - 1, "1+41+10+12 bits (sign+time+worker+sequence)"},
		{"discord: no sign bit", bits.Spec{TimeBits: 42, WorkerBits: 10, SeqBits: 12, NoSignBit: true},
			100, 32, 7, 100<<22 | 32<<12 | 7, 1<<41 - 1, "42+10+12 bits (time+worker+sequence)"},
		{"instagram: no sign bit", bits.Spec{TimeBits: 41, WorkerBits: 13, SeqBits: 10, NoSignBit: true},
			100, 5001, 1023, 100<<23 | 5001<<10 | 1023, 1<<40 - 1, "41+13+10 bits (time+worker+sequence)"},
		{"sequence above worker with gene bits", bits.Spec{TimeBits: 30, WorkerBits: 8, SeqBits: 13, GeneBits: 4, SeqAboveWorker: true},
			3, 255, 9, 3<<25 | 9<<12 | 255<<4, 1<<30 - 1, "1+30+13+8+4 bits (sign+time+sequence+worker+gene), IDs below 2^55"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := bits.New(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Allocate(tt.d, tt.w, tt.s); got != tt.want {
				t.Errorf("Allocate(%d, %d, %d) = %#x, want %#x", tt.d, tt.w, tt.s, got, tt.want)
			}
			if d, w, s := a.Parse(tt.want); d != tt.d || w != tt.w || s != tt.s {
				t.Errorf("Parse(%#x) = (%d, %d, %d), want (%d, %d, %d)", tt.want, d, w, s, tt.d, tt.w, tt.s)
			}
			if a.MaxDelta() != tt.maxDelta {
				t.Errorf("MaxDelta = %d, want %d", a.MaxDelta(), tt.maxDelta)
			}
			if a.String() != tt.str || a.Spec() != tt.spec {
				t.Errorf("String = %q, Spec() = %+v; want %q, %+v", a, a.Spec(), tt.str, tt.spec)
			}
			top := a.Allocate(a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence()) | a.MaxGene()
			if top < 0 {
				t.Errorf("the largest ID %#x is negative", top)
			}
			if d, w, s := a.Parse(top); d != a.MaxDelta() || w != a.MaxWorkerID() || s != a.MaxSequence() || a.Gene(top) != a.MaxGene() {
				t.Errorf("Parse(%#x) = (%d, %d, %d), gene %d: not the maxima", top, d, w, s, a.Gene(top))
			}
		})
	}
}

func TestNewRejectsBadSpecs(t *testing.T) {
	for _, tt := range []struct {
		spec bits.Spec
		text string
	}{
		{bits.Spec{TimeBits: 42, WorkerBits: 10, SeqBits: 12}, "1 sign + time 42 + worker 10 + sequence 12 bits = 65: want at most 64"},
		{bits.Spec{TimeBits: 40, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true}, "1 sign + time 40 + sequence 8 + worker 16 bits = 65: want at most 64"},
		{bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12, NoSignBit: true}, "no sign bit: time 41 + worker 10 + sequence 12 bits = 63, want exactly 64"},
		{bits.Spec{TimeBits: 42, WorkerBits: 10, SeqBits: 12, GeneBits: 1, NoSignBit: true}, "+ gene 1 bits = 65, want exactly 64"},
		{bits.Spec{TimeBits: 63, SeqBits: 1, NoSignBit: true}, "worker 0"},
	} {
		a, err := bits.New(tt.spec)
		if !errors.Is(err, bits.ErrLayout) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("New(%+v) = %v, %v; want ErrLayout saying %q", tt.spec, a, err, tt.text)
		}
	}
}

// FuzzSpecRoundTrip checks, for any layout New accepts in either order and
// sign, with or without gene bits, that Parse and Gene invert Allocate on
// in-range fields, that the UID stays in [0, 2^sum of the widths), and that
// uid % 2^GeneBits is the gene.
func FuzzSpecRoundTrip(f *testing.F) {
	f.Add(uint8(39), uint8(16), uint8(8), uint8(0), true, false, int64(5), int64(7), int64(9), int64(0))
	f.Add(uint8(42), uint8(10), uint8(12), uint8(0), false, true, int64(-1), int64(-1), int64(-1), int64(0))
	f.Add(uint8(30), uint8(10), uint8(13), uint8(10), true, true, int64(1), int64(2), int64(3), int64(4))
	f.Fuzz(func(t *testing.T, timeBits, workerBits, seqBits, geneBits uint8, seqAbove, noSign bool, d, w, s, g int64) {
		spec := bits.Spec{TimeBits: int(timeBits%62) + 1, WorkerBits: int(workerBits%62) + 1, SeqBits: int(seqBits%62) + 1,
			GeneBits: int(geneBits % 62), SeqAboveWorker: seqAbove, NoSignBit: noSign}
		sum := spec.TimeBits + spec.WorkerBits + spec.SeqBits + spec.GeneBits
		a, err := bits.New(spec)
		if noSign && sum != 64 || !noSign && sum > 63 {
			if !errors.Is(err, bits.ErrLayout) {
				t.Fatalf("New(%+v) = %v, %v; want ErrLayout", spec, a, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("New(%+v): %v", spec, err)
		}
		d, w, s, g = fold(d, a.MaxDelta()), fold(w, a.MaxWorkerID()), fold(s, a.MaxSequence()), fold(g, a.MaxGene())
		uid := a.Allocate(d, w, s) | g
		if uid < 0 || sum < 63 && uid >= 1<<sum {
			t.Fatalf("%v: UID %d is not in [0, 2^%d)", a, uid, sum)
		}
		if gd, gw, gs := a.Parse(uid); gd != d || gw != w || gs != s || a.Gene(uid) != g {
			t.Fatalf("%v: Parse(%d) = (%d, %d, %d), gene %d; want (%d, %d, %d), gene %d", a, uid, gd, gw, gs, a.Gene(uid), d, w, s, g)
		}
		if gb := spec.GeneBits; gb > 0 && uid%(1<<gb) != g {
			t.Fatalf("%v: %d %% 2^%d = %d, want the gene %d", a, uid, gb, uid%(1<<gb), g)
		}
	})
}
