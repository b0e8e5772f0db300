package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/segment"
)

// segmentTimeout bounds each segment process test.
const segmentTimeout = 2 * time.Minute

// segmentArgs returns the arguments of gen -segment for n numbers of a tag
// of the test's own, in a tag table of the test's own that no process has
// created yet.
func segmentArgs(t *testing.T, s dbtest.Server, n int, extra ...string) []string {
	t.Helper()
	table := dbtest.Table(t, s.Open(t), "leaf_alloc_")
	return append([]string{"gen", "-segment", "order", "-segment-table", table, "-dsn", s.DSN, "-n", strconv.Itoa(n)}, extra...)
}

// checkIncreasing fails the test unless ids increase.
func checkIncreasing(t *testing.T, who string, ids []int64) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("%s printed %d after %d", who, ids[i], ids[i-1])
		}
	}
}

// number names a number in a message.
func number(n int64) string { return "number " + strconv.FormatInt(n, 10) }

// TestSegmentFleet starts 12 processes at once on one tag of a table none
// of them has created: every number is unique, and each process's increase.
func TestSegmentFleet(t *testing.T) {
	const processes = 12
	perProcess := sizetest.Pick(200_000, 20_000)
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		ctx, cancel := context.WithTimeout(t.Context(), segmentTimeout)
		defer cancel()
		args := segmentArgs(t, s, perProcess, "-step", "1000")
		procs := make([]*fleettest.Process, processes)
		for i := range procs {
			p, err := fleettest.Start(ctx, args...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.End)
			procs[i] = p
		}
		lists := make([][]int64, processes)
		var wg sync.WaitGroup
		errs := make([]error, processes)
		for i, p := range procs {
			wg.Go(func() { errs[i] = p.Finish() })
		}
		wg.Wait()
		for i, p := range procs {
			if errs[i] != nil || len(p.IDs) != perProcess {
				t.Fatalf("process %d: %d numbers, %v: %s", i, len(p.IDs), errs[i], p.Stderr())
			}
			checkIncreasing(t, "process "+strconv.Itoa(i), p.IDs)
			lists[i] = p.IDs
		}
		n := fleettest.CheckUnique(t, number, lists...)
		t.Logf("%d processes, %d numbers, all unique", processes, n)
	})
}

// TestSegmentRestarts runs one process ten times in a row with -n 1000 on a
// new tag: together they print exactly 1 to 10,000, each giving back at
// exit what it claimed and did not print.
func TestSegmentRestarts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		args := segmentArgs(t, s, 1000)
		var all []string
		for i := range 10 {
			code, out, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("run %d: exit %d: %s", i, code, stderr)
			}
			all = append(all, strings.Fields(out)...)
		}
		for i, got := range all {
			if got != strconv.Itoa(i+1) {
				t.Fatalf("line %d of the ten runs is %s, want %d", i+1, got, i+1)
			}
		}
		table := args[slices.Index(args, "-segment-table")+1]
		code, out, stderr := runCLI(t, "segments", "-dsn", s.DSN, "-segment-table", table)
		if code != 0 || !strings.HasPrefix(out, "TAG    NEXT   STEP  GIVEN BACK  LAST CLAIM (UTC)") ||
			!strings.Contains(out, "\norder  10001  2000  -           ") || !strings.HasSuffix(out, "1 tags in "+table+"; NEXT is the first number of the next range claimed\n") {
			t.Errorf("segments: exit %d, stderr %q, printed\n%s", code, stderr, out)
		}
	})
}

// TestBenchSegment measures the segment generator beside the cached one.
func TestBenchSegment(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		args := segmentArgs(t, s, 0)
		table := args[slices.Index(args, "-segment-table")+1]
		code, out, stderr := runCLI(t, "bench", "-segment", "bench", "-segment-table", table, "-dsn", s.DSN, "-d", "200ms")
		var names []string
		for _, line := range strings.Split(out, "\n")[1:] {
			if f := strings.Fields(line); len(f) > 0 && (f[0] == "atomic" || f[0] == "cached" || f[0] == "segment" || f[0] == "default") {
				names = append(names, f[0])
			}
		}
		if code != 0 || !slices.Equal(names, []string{"atomic", "cached", "segment"}) || !strings.Contains(out, " claims of up to ") {
			t.Fatalf("exit %d, stderr %q, rows %v, printed\n%s", code, stderr, names, out)
		}
	})
}

func TestSegmentBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"gen", "-segment", "order", "-redis", "redis://127.0.0.1:1"}, "-redis does not go with -segment"},
		{[]string{"gen", "-segment", "order", "-dsn", "root@tcp(127.0.0.1:1)/test", "-json"}, "-json does not go with -segment"},
		{[]string{"gen", "-segment", "order", "-dsn", "root@tcp(127.0.0.1:1)/test", "-worker", "3"}, "-worker does not go with -segment"},
		{[]string{"gen", "-segment", "a b", "-dsn", "root@tcp(127.0.0.1:1)/test"}, `bad tag: "a b"`},
		{[]string{"gen", "-segment", "", "-n", "1"}, `-segment "": want a tag, as -segment order`},
		{[]string{"bench", "-segment", "", "-d", "1ms"}, `-segment "": want a tag, as -segment order`},
		{[]string{"gen", "-segment", "order", "-dsn", "root@tcp(127.0.0.1:1)/test", "-step", "-5"}, "Step -5"},
		{[]string{"gen", "-start", "5"}, "-start needs -segment"},
		{[]string{"bench", "-step", "5"}, "-step needs -segment"},
		{[]string{"bench", "-segment", "order", "-dsn", "root@tcp(127.0.0.1:1)/test", "-lease"}, "-lease does not go with -segment"},
		{[]string{"segments", "-db", "/nonexistent/uidgen.db"}, "SQLite file /nonexistent/uidgen.db does not exist: nothing has leased from it yet"},
		{[]string{"segments", "-dsn", "root@tcp(127.0.0.1:1)/test", "-segment-table", "a;b"}, `"a;b"`},
		{[]string{"schema", "-segment", "-table", "x"}, "-segment-table names the tag table"},
		{[]string{"schema", "-segment-table", "x"}, "-segment-table needs -segment"},
	})
}

// TestSegmentKill kills a process mid-run (SIGKILL, so it gives nothing
// back), then runs another on the tag: no number is printed twice, and the
// second's numbers are above everything the first claimed.
func TestSegmentKill(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		ctx, cancel := context.WithTimeout(t.Context(), segmentTimeout)
		defer cancel()
		args := segmentArgs(t, s, 50_000_000, "-step", "1000")
		dead, err := fleettest.Start(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dead.End)
		dead.KillAfter(t, "the first process", 100_000)
		next := append(slices.Clone(args[:len(args)-4]), "-n", "100000", "-step", "1000")
		code, out, stderr := runCLI(t, next...)
		if code != 0 {
			t.Fatalf("the next process: exit %d: %s", code, stderr)
		}
		later := parseIDs(t, out)
		checkIncreasing(t, "the first process", dead.IDs)
		checkIncreasing(t, "the next process", later)
		fleettest.CheckUnique(t, number, dead.IDs, later)
		if last := dead.IDs[len(dead.IDs)-1]; later[0] <= last {
			t.Errorf("the next process started at %d, not above the killed one's %d", later[0], last)
		}
		t.Logf("the killed process printed %d numbers, up to %d; the next started at %d",
			len(dead.IDs), dead.IDs[len(dead.IDs)-1], later[0])
	})
}

// TestSegmentCrashLoss kills `gen -segment` processes taking as fast as the
// test reads them, far above MaxStep per ClaimEvery, and counts what each
// crash lost: the numbers claimed above the last one printed, max_id - 1 -
// last. With the defaults that is at most 5,000,000 (the bound
// the default MaxStep keeps: 1.5 × MaxStep, the ring and the pipe);
// -max-step and -claim-every each reach the generator and shrink it to the
// ring and a few small claims.
func TestSegmentCrashLoss(t *testing.T) {
	read := sizetest.Pick(6_000_000, 1_000_000)
	for _, tt := range []struct {
		name  string
		flags []string
		most  int64
	}{
		{"defaults", nil, 5_000_000},
		{"max-step", []string{"-max-step", "5000"}, 200_000},
		{"claim-every", []string{"-claim-every", "1ms"}, 200_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eachFleet(t, func(t *testing.T, s dbtest.Server) {
				ctx, cancel := context.WithTimeout(t.Context(), segmentTimeout)
				defer cancel()
				args := segmentArgs(t, s, 1<<40, tt.flags...)
				table := args[slices.Index(args, "-segment-table")+1]
				p, err := fleettest.Start(ctx, args...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(p.End)
				p.KillAfter(t, "the flat-out process", read)
				rows, err := segment.List(ctx, segment.Config{DB: s.Open(t), Table: table})
				if err != nil || len(rows) != 1 {
					t.Fatalf("the tag table holds %+v, %v; want the one tag", rows, err)
				}
				last := p.IDs[len(p.IDs)-1]
				lost := rows[0].Next - 1 - last
				if lost < 0 || lost > tt.most {
					t.Errorf("killed after printing %d numbers up to %d, with max_id %d: lost %d, want 0 to %d",
						len(p.IDs), last, rows[0].Next, lost, tt.most)
				}
				t.Logf("%s: killed after printing %d numbers; lost %d", tt.name, len(p.IDs), lost)
			})
		})
	}
}

// TestSegmentOtherShape: every command on a tag table of another shape,
// another program's or one whose max_id is 32 bits, refuses it up front,
// exit 2, naming the columns that differ, and leaves it as it was.
func TestSegmentOtherShape(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		for _, tt := range []struct {
			name, columns, says string
		}{
			{"another program's", "biz_tag VARCHAR(128), foo INT", "no column max_id, step, description or update_time; its own column foo"},
			{"32-bit max_id", "biz_tag VARCHAR(128) PRIMARY KEY, max_id INT NOT NULL, step INT NOT NULL," +
				" description VARCHAR(256), update_time TIMESTAMP", "column max_id is int"},
		} {
			if s.Kind == "sqlite" && tt.name == "32-bit max_id" {
				continue // every SQLite integer is 64 bits
			}
			table := dbtest.Table(t, db, "leaf_alloc_")
			s.Exec(t, db, "CREATE TABLE "+table+" ("+tt.columns+")")
			before := s.Snapshot(t, db, table)
			for _, args := range [][]string{
				{"gen", "-segment", "x", "-n", "1"},
				{"bench", "-segment", "x", "-d", "100ms"},
				{"segments"},
				{"serve", "-addr", "127.0.0.1:0", "-table", dbtest.Table(t, db, "WORKER_NODE_")},
			} {
				t.Run(tt.name+"/"+args[0], func(t *testing.T) {
					code, out, stderr := runCLI(t, append(args, "-dsn", s.DSN, "-segment-table", table)...)
					if want := "table " + table + " is not Leaf's leaf_alloc: " + tt.says; code != 2 || out != "" || !strings.Contains(stderr, want) {
						t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, stderr, want)
					}
					if after := s.Snapshot(t, db, table); after != before {
						t.Errorf("the table was\n%s\nand is\n%s", before, after)
					}
				})
			}
		}
	})
}
