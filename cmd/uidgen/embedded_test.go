package main

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// The embedded store: with no -dsn or store flag, gen and serve lease
// their worker ID from a SQLite file, so that a run restarted at once
// starts above every second the last one used, whether it names its
// worker ID (-worker) or not.

// genProcess runs gen with args as a process of its own, to its end, and
// returns its IDs.
func genProcess(t *testing.T, args ...string) []int64 {
	t.Helper()
	p, err := fleettest.Start(t.Context(), append([]string{"gen"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.End()
	if err := p.Finish(); err != nil {
		t.Fatalf("gen %v: %v: %s", args, err, p.Stderr())
	}
	return p.IDs
}

// TestEmbeddedRestart: a flat-out gen, which borrows minutes ahead of the
// clock, followed at once by another on the same file, with the default
// worker ID and with -worker 5: the second run's IDs are all above the
// first's, so none repeats. (Before the embedded store, -worker 5 was a
// static ID, and almost every ID of the second run repeated.)
func TestEmbeddedRestart(t *testing.T) {
	layout := uidgen.DefaultLayout()
	first := sizetest.Pick(3_000_000, 300_000)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"worker 5", []string{"-worker", "5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			isolateDB(t)
			start := time.Now()
			a := genProcess(t, append([]string{"-n", strconv.Itoa(first)}, tt.args...)...)
			b := genProcess(t, append([]string{"-n", "100000"}, tt.args...)...)
			if len(a) != first || len(b) != 100000 {
				t.Fatalf("printed %d and %d IDs, want %d and 100000", len(a), len(b), first)
			}
			// The test means something only if the first run borrowed ahead
			// of the clock by more than the second run took to start.
			ahead := layout.Parse(a[len(a)-1]).Time.Sub(start)
			if ahead < 10*time.Second {
				t.Fatalf("the first run's last ID is %v ahead of its start, want a run that borrows", ahead)
			}
			wa, wb := layout.Parse(a[0]).WorkerID, layout.Parse(b[0]).WorkerID
			idtest.Check(t, idtest.As(layout, wa), [][]int64{a})
			idtest.Check(t, idtest.As(layout, wb), [][]int64{b})
			if tt.args != nil && (wa != 5 || wb != 5) {
				t.Errorf("worker IDs %d and %d, want 5 and 5", wa, wb)
			}
			if wa == wb && b[0] <= a[len(a)-1] {
				t.Errorf("the restart's first ID %d is not above the last run's last %d (both worker %d)", b[0], a[len(a)-1], wa)
			}
			n := fleettest.CheckUnique(t, layout.ParseUID, a, b)
			t.Logf("worker IDs %d then %d; the first run borrowed %v ahead; %d IDs, none repeated", wa, wb, ahead.Round(time.Second), n)
		})
	}
}

// TestEmbeddedServeRestart: serve -worker 3 restarted right after a burst
// repeats none of the burst's IDs.
func TestEmbeddedServeRestart(t *testing.T) {
	layout := uidgen.DefaultLayout()
	bursts := sizetest.Pick(400, 100) // of 1,000 IDs each
	var lists [][]int64
	for run := range 2 {
		s := startServer(t, "-worker", "3")
		var ids []int64
		for range bursts {
			got, err := s.do(t, "GET", "/ids?n=1000").ids()
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, got...)
		}
		s.stop(t, syscall.SIGTERM)
		if w := layout.Parse(ids[0]).WorkerID; w != 3 {
			t.Fatalf("run %d served worker ID %d, want 3", run, w)
		}
		lists = append(lists, ids)
	}
	if first, second := lists[0], lists[1]; second[0] <= first[len(first)-1] {
		t.Errorf("after the restart the first ID %d is not above the last run's last %d", second[0], first[len(first)-1])
	}
	fleettest.CheckUnique(t, layout.ParseUID, lists...)
}

// TestEmbeddedFleet: 8 processes started at once on one file that none
// has created get 8 worker IDs, and no ID repeats.
func TestEmbeddedFleet(t *testing.T) {
	isolateDB(t)
	const processes = 8
	perProcess := sizetest.Pick(200_000, 20_000)
	layout := uidgen.DefaultLayout()
	procs := make([]*fleettest.Process, processes)
	for i := range procs {
		p, err := fleettest.Start(t.Context(), "gen", "-n", strconv.Itoa(perProcess))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.End)
		procs[i] = p
	}
	// Each process prints its first IDs and blocks on its stdout, which
	// is read no further until all have: all 8 hold their IDs at once.
	for i, p := range procs {
		if err := p.Read(10); err != nil || len(p.IDs) != 10 {
			t.Fatalf("process %d: %v, %d IDs: %s", i, err, len(p.IDs), p.Stderr())
		}
	}
	var lists [][]int64
	workers := make(map[int64]bool)
	for i, p := range procs {
		if err := p.Finish(); err != nil || len(p.IDs) != perProcess {
			t.Fatalf("process %d: %v, %d IDs: %s", i, err, len(p.IDs), p.Stderr())
		}
		w := p.WorkerOf(t, layout)
		if workers[w] {
			t.Fatalf("two processes got worker ID %d", w)
		}
		workers[w] = true
		lists = append(lists, p.IDs)
	}
	n := fleettest.CheckUnique(t, layout.ParseUID, lists...)
	t.Logf("%d processes, %d worker IDs, %d IDs, all unique", processes, len(workers), n)
}

// TestEmbeddedPinned: a second process asking for a worker ID that a live
// one holds is refused, with the holder's process and host named; once the
// holder is killed, the ID comes back at once, not after the lease's TTL,
// and the new holder starts above the old one's IDs.
func TestEmbeddedPinned(t *testing.T) {
	isolateDB(t)
	layout := uidgen.DefaultLayout()
	holder, err := fleettest.Start(t.Context(), "gen", "-worker", "4", "-n", "1000000000", "-lease-ttl", "1h")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.End()
	if err := holder.Read(100_000); err != nil {
		t.Fatal(err)
	}
	p, err := fleettest.Start(t.Context(), "gen", "-worker", "4", "-n", "1")
	if err != nil {
		t.Fatal(err)
	}
	err = p.Finish()
	host, _ := os.Hostname()
	for _, want := range []string{"all 1 IDs from 4 to 4 are held", "worker ID 4 held by pid-" + strconv.Itoa(holder.Pid()) + " on host " + host + " since "} {
		if err == nil || !strings.Contains(p.Stderr(), want) {
			t.Fatalf("second process on worker ID 4: %v, %d IDs, stderr %q; want a failure saying %q", err, len(p.IDs), p.Stderr(), want)
		}
	}
	if len(p.IDs) != 0 {
		t.Fatalf("the refused process printed %d IDs", len(p.IDs))
	}

	holder.KillAfter(t, "the holder", len(holder.IDs)+1)
	start := time.Now()
	after := genProcess(t, "-worker", "4", "-n", "1000")
	if took := time.Since(start); took > time.Minute { // the TTL is an hour
		t.Errorf("the killed holder's ID took %v to come back", took)
	}
	if w := layout.Parse(after[0]).WorkerID; w != 4 || after[0] <= holder.IDs[len(holder.IDs)-1] {
		t.Errorf("after the kill: worker %d, first ID %d; want 4, above the killed holder's last %d", w, after[0], holder.IDs[len(holder.IDs)-1])
	}
	fleettest.CheckUnique(t, layout.ParseUID, holder.IDs, after)
}

// TestEmbeddedChaos runs 40 lifetimes of gen on one file, up to 6 at once,
// on a layout of 7 worker IDs, ending cleanly, by SIGKILL, or paused past
// their TTL and then resumed or killed (TestLeaseChaos's lifetimes): every
// ID is unique, a later holder of a worker ID starts above every second of
// the earlier ones, and a process that failed failed at its reservation.
func TestEmbeddedChaos(t *testing.T) {
	const alive = 6
	lifetimes := sizetest.Pick(40, 16)
	perProcess := sizetest.Pick(100_000, 30_000)
	s := dbtest.Shared(t, "sqlite")
	f := fleettest.New(t, sqlStores(s)(t), fleettest.SevenWorkers)
	lease := fleettest.LeaseFlags(chaosTTL, chaosHorizon)
	args := func(d fate) []string {
		if d == resumed {
			return f.Args(10*perProcess, lease...)
		}
		return f.Args(perProcess, lease...)
	}
	runs := make([]lifetime, lifetimes)
	slots := make(chan struct{}, alive)
	var wg sync.WaitGroup
	for i := range runs {
		slots <- struct{}{}
		d := fate(i % int(fates))
		wg.Go(func() {
			defer func() { <-slots }()
			runs[i] = live(f.Context(), args(d), d, i)
		})
	}
	wg.Wait()

	byWorker, n, outcomes := judge(t, f.Layout, runs)
	t.Logf("%d lifetimes, %d worker IDs, %d IDs, all unique; outcomes %v", lifetimes, len(byWorker), n, outcomes)
}

// TestEmbeddedBadFiles: what gen says of a file it cannot use, naming it,
// and that workers and segments read a file they may not write. A file
// whose WORKER_NODE is another program's is a table to name differently
// (TestGenRefusesAWorkerTableOfAnotherShape).
func TestEmbeddedBadFiles(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		want       []string
	}{
		{"not a database", notDB, []string{"SQLite file " + notDB, "not a SQLite database"}},
		{"directory is a file", filepath.Join(blocker, "uidgen.db"), []string{"SQLite file " + filepath.Join(blocker, "uidgen.db"), "not a directory"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "gen", "-db", tt.path, "-n", "3")
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and nothing printed", code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}

	t.Run("locked past the deadline", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "locked.db")
		if code, _, stderr := runCLI(t, "gen", "-db", path, "-n", "1"); code != 0 {
			t.Fatalf("first gen: exit %d: %s", code, stderr)
		}
		lock := lockFile(t, path)
		start := time.Now()
		code, _, stderr := runCLI(t, "gen", "-db", path, "-n", "1")
		took := time.Since(start)
		lock()
		if code != 1 || !strings.Contains(stderr, "held the SQLite file's write lock until the context ended") {
			t.Errorf("exit %d, stderr %q; want 1 and the lock named", code, stderr)
		}
		if took > assignTimeout+5*time.Second {
			t.Errorf("returned after %v, want within the %v it waits", took, assignTimeout)
		}
	})

	t.Run("read-only listing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "uidgen.db")
		for _, args := range [][]string{{"gen", "-n", "1"}, {"gen", "-segment", "order", "-n", "1"}} {
			if code, _, stderr := runCLI(t, append(args, "-db", path)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		lock := lockFile(t, path) // a writer holds the file: reading goes on
		defer lock()
		before, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct{ cmd, want string }{
			{"workers", "1 rows in WORKER_NODE: 1 leased (0 held, 1 free)"},
			{"segments", "1 tags in leaf_alloc"},
		} {
			code, out, stderr := runCLI(t, tt.cmd, "-db", path)
			if code != 0 || !strings.Contains(out, tt.want) {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tt.cmd, code, out, stderr, tt.want)
			}
		}
		if after, err := os.Stat(path); err != nil || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("listing changed the file: %v", err)
		}
	})
}

// lockFile takes the write lock of the SQLite file at path on a
// connection of its own, and returns the func that lets it go.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err == nil {
		_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	}
	if err != nil {
		db.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	var once sync.Once
	unlock := func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
}

// TestGenNone: gen -n 0 prints nothing and takes no worker ID: the file
// is not even made, and a database's table gets no row.
func TestGenNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uidgen.db")
	for _, args := range [][]string{{"-db", path}, {"-dsn", "file:" + path}, {"-segment", "order", "-db", path}} {
		code, out, stderr := runCLI(t, append([]string{"gen", "-n", "0"}, args...)...)
		if code != 0 || out != "" || stderr != "" {
			t.Errorf("gen -n 0 %v: exit %d, stdout %q, stderr %q; want 0 and nothing", args, code, out, stderr)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gen -n 0 made %s (%v): it took a worker ID or claimed numbers it had no use for", path, err)
	}
}
