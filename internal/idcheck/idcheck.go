// Package idcheck holds the checks every generator's tests make of the IDs it
// handed out: all positive, all unique, increasing within each goroutine, and
// all parseable back to this worker.
package idcheck

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

// Parser is what the checks need of a generator.
type Parser interface {
	WorkerID() int64
	Parse(uid int64) uidgen.ID
	ParseUID(uid int64) string
}

// Collect starts goroutines goroutines behind a gate, lets each call next n
// times, and returns each goroutine's IDs in the order it got them. The first
// error stops the goroutine that got it and is returned.
func Collect(goroutines, n int, next func() (int64, error)) ([][]int64, error) {
	out := make([][]int64, goroutines)
	errs := make([]error, goroutines)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range goroutines {
		out[i] = make([]int64, 0, n)
		wg.Go(func() {
			<-gate
			for range n {
				id, err := next()
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

// Check fails t unless every ID in perGoroutine is positive and unique across
// all of them, each goroutine's IDs strictly increase, and every ID parses
// back to p's worker ID, in both the typed and Baidu's string form. It returns
// the number of IDs checked.
func Check(t testing.TB, p Parser, perGoroutine [][]int64) int {
	t.Helper()
	var all []int64
	for g, ids := range perGoroutine {
		for i, id := range ids {
			if id <= 0 {
				t.Fatalf("goroutine %d, ID %d: %d is not positive", g, i, id)
			}
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("goroutine %d: ID %d (%d) is not above ID %d (%d)", g, i, id, i-1, ids[i-1])
			}
		}
		all = append(all, ids...)
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("ID %d handed out twice: %s", all[i], p.ParseUID(all[i]))
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
	id := p.Parse(uid)
	if id.UID != uid || id.WorkerID != p.WorkerID() {
		t.Fatalf("Parse(%d) = %+v, want worker ID %d", uid, id, p.WorkerID())
	}
	s := p.ParseUID(uid)
	want := fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"%d","sequence":"%d"}`,
		uid, id.Time.Format("2006-01-02 15:04:05"), p.WorkerID(), id.Sequence)
	if s != want || !strings.HasPrefix(s, `{"UID":"`) {
		t.Fatalf("ParseUID(%d) = %s, want %s", uid, s, want)
	}
}

// As returns the Parser of IDs made with layout by worker: what a test that
// only has the IDs, such as those another process printed, checks them
// against.
func As(layout uidgen.Layout, worker int64) Parser { return layoutParser{layout, worker} }

type layoutParser struct {
	uidgen.Layout
	worker int64
}

func (p layoutParser) WorkerID() int64 { return p.worker }
