package segment

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestDenseAcrossRestarts: four generators on one tag take at a steady
// rate, and each is closed and replaced five times, so that almost every
// Close finds another generator's claim above its own and cannot give its
// numbers back through max_id; then one generator takes until it passes
// the max_id read before it started. The numbers below the final max_id
// that were never handed out are at most 1% of those handed out, and none
// is handed out twice: what a Close could not give back through max_id, a
// later claim handed out, lowest first.
func TestDenseAcrossRestarts(t *testing.T) {
	eachParallel(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		const fleet, lifetimes = 4, 6
		perLifetime := sizetest.Pick(4000, 1000)
		// Ranges sized to last a second at the rate: big enough that a
		// Close holds thousands of numbers, small enough that the last
		// generator hands out every one left in a second or two.
		cfg := Config{DB: db, Table: table, Tag: "dense", ClaimEvery: time.Second}

		var mu sync.Mutex
		var all []int64
		errs := make(chan error, fleet)
		var wg sync.WaitGroup
		for range fleet {
			wg.Go(func() {
				errs <- func() error {
					for range lifetimes {
						got, err := takeSteadily(cfg, perLifetime, func(int64) bool { return false })
						mu.Lock()
						all = append(all, got...)
						mu.Unlock()
						if err != nil {
							return err
						}
					}
					return nil
				}()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		before, after, last := passMaxID(t, cfg)
		all = append(all, last...)

		if before.ReturnedRuns == 0 || after.ReturnedRuns != 0 {
			t.Errorf("List says %d numbers in %d runs given back before the last generator, %d in %d after; want some, then none",
				before.Returned, before.ReturnedRuns, after.Returned, after.ReturnedRuns)
		}
		handed := checkUnique(t, all)
		slices.Sort(all)
		below := 0
		for _, n := range all {
			if n < after.Next {
				below++
			}
		}
		lost := int(after.Next-1) - below // numbers 1 .. Next-1 never handed out
		t.Logf("%d lifetimes handed out %d numbers; max_id went to %d; %d below it never handed out (%.3f%%), %d waiting in %d runs",
			fleet*lifetimes+1, handed, after.Next, lost, 100*float64(lost)/float64(handed), after.Returned, after.ReturnedRuns)
		if lost*100 > handed {
			t.Errorf("%d numbers below max_id %d never handed out: more than 1%% of the %d handed out", lost, after.Next, handed)
		}
	})
}

// takeSteadily opens a generator on cfg, takes from it steadily (see
// steadily) and closes it. It returns what it took, in order.
func takeSteadily(cfg Config, n int, done func(int64) bool) ([]int64, error) {
	g, err := New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	got, err := steadily(g, n, done)
	if err != nil {
		g.Close()
		return got, err
	}
	return got, g.Close()
}

// steadily takes n numbers from g at about ten thousand a second, or, when
// n is 0, until done says so of a number. It returns them in order.
func steadily(g *Generator, n int, done func(int64) bool) ([]int64, error) {
	var got []int64
	for len(got) < n || n == 0 && (len(got) == 0 || !done(got[len(got)-1])) {
		id, err := g.NextID()
		if err != nil {
			return got, err
		}
		got = append(got, id)
		if len(got)%100 == 0 {
			time.Sleep(10 * time.Millisecond) // a steady rate, which sizes the claims
		}
	}
	return got, nil
}

// crash stops g as a crash of its process would: its goroutines stop, and
// it gives nothing back. It returns the numbers g held: those left in its
// ring, and those of its ranges never put in it. A later Close does
// nothing.
func crash(g *Generator) map[int64]bool {
	g.closeOnce.Do(func() {})
	g.closed.Store(true)
	g.padder.Close()
	g.ring.Seal(uidgen.ErrClosed)
	g.src.stop()
	held := map[int64]bool{}
	var buf [512]int64
	for {
		n, err := g.ring.TakeN(buf[:])
		for _, v := range buf[:n] {
			held[v] = true
		}
		if err != nil {
			break
		}
	}
	unput := []span{g.src.cur}
	if g.src.spare != nil {
		unput = append(unput, *g.src.spare)
	}
	for _, s := range unput {
		for v := s.start; v < s.end; v++ {
			held[v] = true
		}
	}
	return held
}

// passMaxID has a generator take steadily until it passes the max_id of
// cfg's tag read before it starts. It returns the tag's row before and
// after, and what it took.
func passMaxID(t *testing.T, cfg Config) (before, after Row, took []int64) {
	t.Helper()
	before = tagRow(t, cfg)
	took, err := takeSteadily(cfg, 0, func(n int64) bool { return n >= before.Next })
	if err != nil {
		t.Fatal(err)
	}
	return before, tagRow(t, cfg), took
}

// tagRow returns the row of cfg's tag, as List shows it.
func tagRow(t *testing.T, cfg Config) Row {
	t.Helper()
	rows, err := List(testContext(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Tag == cfg.Tag {
			return r
		}
	}
	t.Fatalf("no tag %q in %v", cfg.Tag, rows)
	return Row{}
}

// TestDenseThroughACrash is TestDenseAcrossRestarts with one lifetime
// ending as a crash does: its generator stops without giving anything back.
// No number is handed out twice, and the numbers below the final max_id
// never handed out are exactly those the crashed generator held.
func TestDenseThroughACrash(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		cfg := Config{DB: db, Table: table, Tag: "crash", ClaimEvery: time.Second}
		n := sizetest.Pick(4000, 1000)
		var all []int64
		var crashed map[int64]bool
		for i := range 6 {
			if i != 3 {
				got, err := takeSteadily(cfg, n, nil)
				all = append(all, got...)
				if err != nil {
					t.Fatal(err)
				}
				continue
			}
			g := open(t, cfg)
			got, err := steadily(g, n, nil)
			all = append(all, got...)
			if err != nil {
				t.Fatal(err)
			}
			crashed = crash(g)
		}
		_, after, last := passMaxID(t, cfg)
		all = append(all, last...)
		checkUnique(t, all)
		// held is what the crash lost; every other number below max_id
		// was handed out.
		handed := make(map[int64]bool, len(all))
		for _, v := range all {
			handed[v] = true
		}
		lost := 0
		for v := int64(1); v < after.Next; v++ {
			if !handed[v] && !crashed[v] {
				t.Fatalf("number %d below max_id %d was never handed out, and the crashed generator did not hold it", v, after.Next)
			}
			if !handed[v] {
				lost++
			}
		}
		if lost != len(crashed) {
			t.Errorf("%d numbers below max_id lost, want the %d the crashed generator held", lost, len(crashed))
		}
		t.Logf("%d numbers handed out below max_id %d; %d lost, all held by the crashed generator", len(all), after.Next, lost)
	})
}
