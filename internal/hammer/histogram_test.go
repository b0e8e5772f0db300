package hammer

import (
	"math"
	"testing"
	"time"
)

func TestBucketsCoverEveryDurationInOrder(t *testing.T) {
	prevUpper := time.Duration(-1)
	for i := range nBuckets {
		lo, hi := lower(i), upper(i)
		if lo != prevUpper+1 || hi < lo {
			t.Fatalf("bucket %d is [%d, %d] after one ending at %d", i, lo, hi, prevUpper)
		}
		if bucket(lo) != i || bucket(hi) != i {
			t.Fatalf("bucket %d = [%d, %d], but its edges map to %d and %d", i, lo, hi, bucket(lo), bucket(hi))
		}
		if lo >= exact && float64(hi-lo+1)/float64(lo) > 1.0/subCount {
			t.Fatalf("bucket %d = [%d, %d] is wider than 1/%d of its start", i, lo, hi, subCount)
		}
		prevUpper = hi
	}
	if prevUpper != math.MaxInt64 {
		t.Fatalf("last bucket ends at %d, want MaxInt64", prevUpper)
	}
}

func TestQuantiles(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.PowersOfTwo() != nil {
		t.Fatal("empty histogram is not all zero")
	}
	// 1..1000 ns once each, then one 1 ms outlier.
	for d := time.Duration(1); d <= 1000; d++ {
		h.Record(d)
	}
	h.Record(time.Millisecond)
	tests := []struct {
		q    float64
		want time.Duration // the true value; the answer may be up to 1/32 above it
	}{
		{0, 1}, {0.5, 501}, {0.99, 991}, {0.999, 1000}, {1, time.Millisecond},
	}
	for _, tt := range tests {
		got := h.Quantile(tt.q)
		if got < tt.want || float64(got) > float64(tt.want)*(1+1.0/subCount) {
			t.Errorf("Quantile(%v) = %d, want %d (+3%%)", tt.q, got, tt.want)
		}
	}
	if h.Count() != 1001 || h.Min() != 1 || h.Max() != time.Millisecond {
		t.Errorf("count %d, min %d, max %d", h.Count(), h.Min(), h.Max())
	}
}

func TestMergeAndPowersOfTwo(t *testing.T) {
	var a, b Histogram
	a.Record(3)
	a.Record(5)
	b.Record(100)
	b.Record(-7) // counts as 0
	a.Merge(&b)
	a.Merge(&Histogram{})
	if a.Count() != 4 || a.Min() != 0 || a.Max() != 100 {
		t.Fatalf("merged: count %d, min %d, max %d", a.Count(), a.Min(), a.Max())
	}
	// [0,1) [1,2) [2,4) [4,8) [8,16) [16,32) [32,64) [64,128)
	want := []uint64{1, 0, 1, 1, 0, 0, 0, 1}
	bars := a.PowersOfTwo()
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d: %+v", len(bars), len(want), bars)
	}
	for i, b := range bars {
		if b.Count != want[i] || b.To != 1<<i {
			t.Errorf("bar %d = %+v, want count %d up to %d", i, b, want[i], 1<<i)
		}
	}
}

func TestRound(t *testing.T) {
	tests := []struct{ in, want time.Duration }{
		{0, 0}, {64, 64}, {999, 999}, {1234, 1230}, {131072, 131000},
		{1073741824, 1070 * time.Millisecond}, {-1234, -1230},
		{math.MaxInt64, 9220000000000000000},
	}
	for _, tt := range tests {
		if got := Round(tt.in); got != tt.want {
			t.Errorf("Round(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
