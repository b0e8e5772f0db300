package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestSegmentDenseProcesses is segment's density test with real processes
// and a real SIGKILL. Four gen -segment processes run on one tag at once,
// each five times in a row; then one is killed mid-run while it is the only
// process on the tag, so that what it claimed is known exactly: the runs it
// took from the table of numbers given back, and max_id's move; then four
// more run. No number was printed twice, each process's numbers increase,
// and every number below the final max_id was printed, or waits to be
// handed out again, or was claimed by the killed process above the last
// number it printed: the crash lost its own numbers and no other.
func TestSegmentDenseProcesses(t *testing.T) {
	const fleet, lifetimes = 4, 5
	perRun := sizetest.Pick(20_000, 5_000)
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		ctx, cancel := context.WithTimeout(t.Context(), segmentTimeout)
		defer cancel()
		tt := newTagTable(t, s, map[string]int64{"order": 1000})
		args := func(n int) []string {
			return []string{"gen", "-segment", "order", "-segment-table", tt.name, "-dsn", s.DSN, "-n", strconv.Itoa(n)}
		}
		var printed [][]int64
		var mu sync.Mutex
		// restarts runs fleet processes at once, each lifetimes times in a
		// row, every one printing perRun numbers and exiting cleanly.
		restarts := func(lifetimes int) {
			t.Helper()
			errs := make(chan error, fleet*lifetimes)
			var wg sync.WaitGroup
			for range fleet {
				wg.Go(func() {
					for range lifetimes {
						p, err := fleettest.Start(ctx, args(perRun)...)
						if err == nil {
							err = p.Finish()
							mu.Lock()
							printed = append(printed, p.IDs)
							mu.Unlock()
							if err == nil && len(p.IDs) != perRun {
								err = fmt.Errorf("printed %d numbers, want %d", len(p.IDs), perRun)
							}
							if err != nil {
								err = fmt.Errorf("%w: %s", err, p.Stderr())
							}
						}
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		}

		restarts(lifetimes)

		// The killed process is alone on the tag: what it claimed is the
		// runs that left the table of numbers given back while it ran, and
		// the numbers from max_id before it to max_id after it.
		waitingBefore, nextBefore := tt.waiting(t, "order"), tt.next(t, "order")
		dead, err := fleettest.Start(ctx, args(50_000_000)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dead.End)
		dead.KillAfter(t, "the process to kill", perRun)
		printed = append(printed, dead.IDs)
		waitingAfter, nextAfter := tt.settled(t, "order")
		claimed := []numberRun{{nextBefore, nextAfter}}
		for _, r := range waitingBefore {
			if !slices.Contains(waitingAfter, r) {
				claimed = append(claimed, r)
			}
		}

		afterKill := len(printed)
		restarts(1)
		// The first claim after the kill takes the lowest run waiting, so
		// a reuse that no longer worked shows here, not only as numbers
		// that wait for ever.
		if len(waitingAfter) > 0 && !slices.ContainsFunc(printed[afterKill:], func(ids []int64) bool {
			return slices.ContainsFunc(ids, func(v int64) bool { return v >= waitingAfter[0].start && v < waitingAfter[0].end })
		}) {
			t.Errorf("no process after the kill printed a number of the lowest run waiting, %v", waitingAfter[0])
		}

		for i, ids := range printed {
			checkIncreasing(t, "process "+strconv.Itoa(i), ids)
		}
		handed := fleettest.CheckUnique(t, number, printed...)
		// Every number below max_id is printed, waits, or was the killed
		// process's: the gaps between what was printed and what waits lie
		// in its claims, above the last number it printed.
		next, waiting := tt.next(t, "order"), tt.waiting(t, "order")
		covered := slices.Clone(waiting)
		for _, ids := range printed {
			for _, v := range ids {
				covered = append(covered, numberRun{v, v + 1})
			}
		}
		gaps, twice := gapsIn(covered, 1, next)
		if twice != nil {
			t.Fatalf("%s is printed and waits to be handed out again, or waits twice: %v", number(twice.start), waiting)
		}
		// A process's claims only go up, so what the killed process held
		// and never printed lies above the last number it printed.
		last := dead.IDs[len(dead.IDs)-1]
		var lost int64
		for _, g := range gaps {
			if notClaimed, _ := gapsIn(claimed, g.start, g.end); len(notClaimed) != 0 || g.start <= last {
				t.Fatalf("numbers %d to %d below max_id %d were never printed, do not wait to be handed out again, "+
					"and are not all among the killed process's claims %v above the last number it printed, %d", g.start, g.end-1, next, claimed, last)
			}
			lost += g.end - g.start
		}
		var waits int64
		for _, r := range waiting {
			waits += r.end - r.start
		}
		t.Logf("%d processes printed %d numbers; max_id went to %d; %d wait in %d runs to be handed out again; the killed process lost %d",
			len(printed), handed, next, waits, len(waiting), lost)
	})
}

// numberRun is the numbers from start up to, not including, end.
type numberRun struct{ start, end int64 }

// gapsIn returns the runs of numbers from..to-1 that none of runs holds,
// in order, and the first run it finds to overlap another, nil if none
// does.
func gapsIn(runs []numberRun, from, to int64) (gaps []numberRun, overlap *numberRun) {
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b numberRun) int { return cmp.Compare(a.start, b.start) })
	at, reach := from, int64(math.MinInt64)
	for _, r := range sorted {
		if r.start < reach && overlap == nil {
			overlap = &r
		}
		reach = max(reach, r.end)
		lo, hi := max(r.start, from), min(r.end, to)
		if lo >= hi {
			continue
		}
		if lo > at {
			gaps = append(gaps, numberRun{at, lo})
		}
		at = max(at, hi)
	}
	if at < to {
		gaps = append(gaps, numberRun{at, to})
	}
	return gaps, overlap
}
