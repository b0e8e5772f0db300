// Package idtest holds the checks every generator's tests make of the IDs it
// handed out: all positive, all unique, increasing within each goroutine, and
// all parseable back to this worker.
package idtest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// Layout returns the layout of s in seconds from the default layout's
// epoch, for a test that cares only for the widths, and fails t if s is
// not a layout.
func Layout(t testing.TB, s bits.Spec) uidgen.Layout {
	t.Helper()
	return LayoutFrom(t, s, uidgen.DefaultLayout().Epoch())
}

// LayoutFrom returns the layout of s in seconds from epoch, and fails t if
// s is not a layout.
func LayoutFrom(t testing.TB, s bits.Spec, epoch time.Time) uidgen.Layout {
	t.Helper()
	l, err := uidgen.NewLayout(s, time.Second, epoch)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Parser is what the checks need of a generator.
type Parser interface {
	WorkerID() int64
	Layout() uidgen.Layout
}

// Collect starts goroutines goroutines behind a gate, lets each call next n
// times, and returns each goroutine's IDs in the order it got them. The first
// error stops the goroutine that got it and is returned.
func Collect(goroutines, n int, next func() (int64, error)) ([][]int64, error) {
	return CollectFor(goroutines, n, func(int64) (int64, error) { return next() }, func(int, int) int64 { return 0 })
}

// CollectFor is Collect for NextIDFor: goroutine g's i-th call asks for
// key(g, i), so a test can tell which key each ID was made for.
func CollectFor(goroutines, n int, nextFor func(key int64) (int64, error), key func(g, i int) int64) ([][]int64, error) {
	out := make([][]int64, goroutines)
	errs := make([]error, goroutines)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range goroutines {
		out[i] = make([]int64, 0, n)
		wg.Go(func() {
			<-gate
			for j := range n {
				id, err := nextFor(key(i, j))
				if err != nil {
					errs[i] = fmt.Errorf("goroutine %d, ID %d: %w", i, len(out[i]), err)
					return
				}
				out[i] = append(out[i], id)
			}
		})
	}
	close(gate)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// Check fails t unless every ID in perGoroutine is positive, below
// 2^(the sum of p's layout's widths), and unique across all of them, each goroutine's
// IDs strictly increase (once the gene bits are shifted off), and every ID
// parses back to p's worker ID, in both the typed and Baidu's string form.
// It returns the number of IDs checked.
func Check(t testing.TB, p Parser, perGoroutine [][]int64) int {
	t.Helper()
	alloc := p.Layout().Bits()
	// A layout of all 64 bits, with no sign bit, keeps its IDs below 2^63.
	spec := alloc.Spec()
	used := min(spec.TimeBits+spec.WorkerBits+spec.SeqBits+spec.GeneBits, 63)
	gene, limit := spec.GeneBits, uint64(1)<<used
	var all []int64
	for g, ids := range perGoroutine {
		for i, id := range ids {
			if id <= 0 || uint64(id) >= limit {
				t.Fatalf("goroutine %d, ID %d: %d is not in [1, 2^%d)", g, i, id, used)
			}
			if i > 0 && id>>gene <= ids[i-1]>>gene {
				t.Fatalf("goroutine %d: ID %d (%d) is not above ID %d (%d) with %d gene bits shifted off", g, i, id, i-1, ids[i-1], gene)
			}
		}
		all = append(all, ids...)
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("ID %d handed out twice: %s", all[i], p.Layout().ParseUID(all[i]))
		}
	}
	// Parsing is slower than the rest: check a spread of IDs, always the
	// first and last.
	step := max(1, len(all)/10000)
	for i := 0; i < len(all); i += step {
		checkParse(t, p, all[i])
	}
	if len(all) > 0 {
		checkParse(t, p, all[len(all)-1])
	}
	return len(all)
}

func checkParse(t testing.TB, p Parser, uid int64) {
	t.Helper()
	id := p.Layout().Parse(uid)
	if id.UID != uid || id.WorkerID != p.WorkerID() {
		t.Fatalf("Parse(%d) = %+v, want worker ID %d", uid, id, p.WorkerID())
	}
	s := p.Layout().ParseUID(uid)
	gene := ""
	if p.Layout().Bits().Spec().GeneBits > 0 {
		gene = fmt.Sprintf(`,"gene":"%d"`, id.Gene)
	}
	format := "2006-01-02 15:04:05"
	if p.Layout().Tick() < time.Second {
		format += ".000"
	}
	want := fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"%d","sequence":"%d"%s}`,
		uid, id.Time.Format(format), p.WorkerID(), id.Sequence, gene)
	if s != want || !strings.HasPrefix(s, `{"UID":"`) {
		t.Fatalf("ParseUID(%d) = %s, want %s", uid, s, want)
	}
}

// As returns the Parser of IDs made with layout by worker: what a test that
// only has the IDs, such as those another process printed, checks them
// against.
func As(layout uidgen.Layout, worker int64) Parser { return layoutParser{layout, worker} }

type layoutParser struct {
	layout uidgen.Layout
	worker int64
}

func (p layoutParser) WorkerID() int64       { return p.worker }
func (p layoutParser) Layout() uidgen.Layout { return p.layout }

// CheckKeys fails t unless the gene bits of goroutine g's i-th ID are the
// low ones of key(g, i), the key CollectFor asked for it: for a key of 0 or
// more, id % 2^GeneBits == key % 2^GeneBits.
func CheckKeys(t testing.TB, p Parser, perGoroutine [][]int64, key func(g, i int) int64) {
	t.Helper()
	geneBits := p.Layout().Bits().Spec().GeneBits
	mask := int64(1)<<geneBits - 1
	for g, ids := range perGoroutine {
		for i, id := range ids {
			k := key(g, i)
			if id&mask != k&mask || p.Layout().Parse(id).Gene != k&mask {
				t.Fatalf("goroutine %d, ID %d: %d has gene %d, want key %d's low %d bits, %d", g, i, id, id&mask, k, geneBits, k&mask)
			}
			if k >= 0 && id%(mask+1) != k%(mask+1) {
				t.Fatalf("goroutine %d, ID %d: %d %% 2^%d = %d, key %d %% 2^%d = %d", g, i, id, geneBits, id%(mask+1), k, geneBits, k%(mask+1))
			}
		}
	}
}

// CheckSpread fails t unless ids spread evenly over the 2^k residues of
// id % 2^k: at least 900 in 1,024 of them occur, and none more than 3 times
// the mean: a shard router sends no shard three times its share.
func CheckSpread(t testing.TB, ids []int64, k int) {
	t.Helper()
	counts := make([]int, 1<<k)
	for _, id := range ids {
		counts[id&(1<<k-1)]++
	}
	seen, most := 0, 0
	for _, n := range counts {
		if n > 0 {
			seen++
		}
		most = max(most, n)
	}
	mean := float64(len(ids)) / float64(len(counts))
	if want := (len(counts)*900 + 1023) / 1024; seen < want || float64(most) > 3*max(mean, 1) {
		t.Fatalf("%d IDs over id %% 2^%d: %d of %d residues seen (want at least %d), the most on one %d (want at most 3 times the mean %.1f)",
			len(ids), k, seen, len(counts), want, most, mean)
	}
}

// TakeUntil calls next every pace until the clock passes until, appending
// each ID to ids: a steady load, as the outage tests put on a generator. It
// fails t at the first error, saying when.
func TakeUntil(t testing.TB, ids *[]int64, next func() (int64, error), pace time.Duration, until time.Time) {
	t.Helper()
	for time.Now().Before(until) {
		id, err := next()
		if err != nil {
			t.Fatalf("%v: %v", time.Now().Format(time.TimeOnly), err)
		}
		*ids = append(*ids, id)
		time.Sleep(pace)
	}
}
