package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/permtest"
	"github.com/seed4d941b13/uidgen/worker"
)

func TestPrintWorkers(t *testing.T) {
	rows := []worker.Row{
		{Type: worker.Container, Port: "orders-7d9f-x2", LeaseRow: uidgen.LeaseRow{ID: 1, Host: "10.0.0.5", Held: true,
			LeaseLeft: 28140 * time.Millisecond, Reserved: 1795400045, ReservedAhead: 609 * time.Second}},
		{Type: worker.Container, Port: "orders-7d9f-k8", LeaseRow: uidgen.LeaseRow{ID: 2, Host: "10.0.0.6", Reserved: 1795396402}},
		{Disposable: true, Type: worker.Actual, Port: "1700000000000-4242", LeaseRow: uidgen.LeaseRow{ID: 3, Host: "10.1.2.3"}},
	}
	var out bytes.Buffer
	if err := printWorkers(&out, "WORKER_NODE", rows); err != nil {
		t.Fatal(err)
	}
	want := `ID  KIND        TYPE       HOST      PORT                STATE  LEASE LEFT  RESERVED (UTC)       AHEAD
1   leased      CONTAINER  10.0.0.5  orders-7d9f-x2      held   28.1s       2026-11-23 02:14:05  10m9s
2   leased      CONTAINER  10.0.0.6  orders-7d9f-k8      free   -           2026-11-23 01:13:22  -
3   disposable  ACTUAL     10.1.2.3  1700000000000-4242  spent  -           -                    -
3 rows in WORKER_NODE: 2 leased (1 held, 1 free), 1 disposable
`
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

// TestWorkersShowsLeases leases through -lease on a table that does not
// exist yet, and looks at it with the workers command while it is held and
// after it is released.
func TestWorkersShowsLeases(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		table := dbtest.Table(t, s.Open(t), "WORKER_NODE_")
		dsn := s.DSN

		var w workerFlags
		fs := flag.NewFlagSet("gen", flag.ContinueOnError)
		w.register(fs, newStores(io.Discard))
		if err := fs.Parse([]string{"-dsn", dsn, "-table", table, "-lease"}); err != nil {
			t.Fatal(err)
		}
		src, release, err := w.source()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		leaser := src.leaser
		if leaser == nil || src.assigner != nil {
			t.Fatalf("-lease made %+v, want a uidgen.Leaser alone", src)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		lease, err := leaser.LeaseWorkerID(ctx, 7)
		if err != nil {
			t.Fatalf("LeaseWorkerID on a missing table: %v", err)
		}

		workers := func() string {
			t.Helper()
			code, out, stderr := runCLI(t, "workers", "-dsn", dsn, "-table", table)
			if code != 0 {
				t.Fatalf("workers: exit %d: %s", code, stderr)
			}
			return out
		}
		out := workers()
		if !strings.HasPrefix(out, "ID  KIND") || !strings.Contains(out, "\n1   leased  ") ||
			!strings.HasSuffix(out, "1 rows in "+table+": 1 leased (1 held, 0 free), 0 disposable\n") {
			t.Errorf("workers with worker ID %d held printed\n%s", lease.WorkerID(), out)
		}
		if err := lease.Release(ctx, lease.First()); err != nil {
			t.Fatal(err)
		}
		if out := workers(); !strings.HasSuffix(out, "1 leased (0 held, 1 free), 0 disposable\n") {
			t.Errorf("workers after the release printed\n%s", out)
		}
	})
}

// TestWorkersOtherShape: workers on a worker table of another shape says
// so, exit 2, naming the columns that differ, and leaves it as it was; only
// a table of Baidu's shape is told to add the lease columns it lacks.
func TestWorkersOtherShape(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		for _, tt := range []struct {
			name, columns string
			code          int
			says          string
		}{
			{"another program's", "ID INT, NAME TEXT", 2,
				" is not Baidu's WORKER_NODE with or without the lease columns: no column HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED or CREATED; its own column "},
			{"Baidu's without the lease columns", "ID BIGINT PRIMARY KEY, HOST_NAME VARCHAR(64) NOT NULL, PORT VARCHAR(64) NOT NULL," +
				" TYPE INT NOT NULL, LAUNCH_DATE DATE NOT NULL, MODIFIED TIMESTAMP NULL, CREATED TIMESTAMP NULL", 1,
				": worker table lacks the lease columns: "},
		} {
			t.Run(tt.name, func(t *testing.T) {
				table := dbtest.Table(t, db, "WORKER_NODE_")
				s.Exec(t, db, "CREATE TABLE "+table+" ("+tt.columns+")")
				before := s.Snapshot(t, db, table)
				code, out, stderr := runCLI(t, "workers", "-dsn", s.DSN, "-table", table)
				if code != tt.code || out != "" || !strings.Contains(stderr, tt.says) || strings.Contains(stderr, "add them") != (tt.code == 1) {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q, and the lease columns' ALTER TABLE only for Baidu's shape",
						code, out, stderr, tt.code, tt.says)
				}
				if after := s.Snapshot(t, db, table); after != before {
					t.Errorf("the table was\n%s\nand is\n%s", before, after)
				}
			})
		}
	})
}

func TestWorkersBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"workers", "-db", "/nonexistent/uidgen.db"}, "SQLite file /nonexistent/uidgen.db does not exist: nothing has leased from it yet"},
		{[]string{"workers", "-db", "x.db", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-db and -dsn both given"},
		{[]string{"workers", "-dsn", "root@tcp(127.0.0.1:1)/test", "-table", "no such"}, `"no such"`},
		{[]string{"workers", "-dsn", "root@tcp(127.0.0.1:1)/test", "extra"}, `unexpected argument "extra"`},
		{[]string{"gen", "-db", "x.db", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-db and -dsn both given"},
		{[]string{"gen", "-dsn", "mysql://root@127.0.0.1:3306/test"}, "want user:password@tcp(host:port)/database for MySQL, postgres://"},
		{[]string{"gen", "-dsn", "root@127.0.0.1:3306/test"}, "or file:PATH for SQLite"},
		{[]string{"gen", "-db", ":memory:"}, `SQLite ":memory:": the file is what remembers`},
		{[]string{"gen", "-dsn", "file::memory:", "-lease"}, `SQLite ":memory:": the file is what remembers`},
		{[]string{"gen", "-worker", "3", "-worker-ids", "1-5"}, "-worker and -worker-ids both given"},
		{[]string{"gen", "-worker", "0"}, "-worker 0: a leased worker ID is 1 or more"},
		{[]string{"gen", "-lease-ttl", "5s", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-lease-ttl needs -lease"},
		{[]string{"gen", "-lease-horizon", "5m", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-lease-horizon needs -lease"},
		{[]string{"gen", "-lease", "-lease-ttl", "soon", "-dsn", "root@tcp(127.0.0.1:1)/test"}, `invalid value "soon" for flag -lease-ttl`},
		{[]string{"gen", "-lease", "-lease-ttl", "500ms", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "invalid config: LeaseTTL 500ms: want 1s to 1h"},
		{[]string{"gen", "-lease", "-lease-ttl", "-1s", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "invalid config: LeaseTTL -1s"},
		{[]string{"gen", "-lease", "-lease-ttl", "2h", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "invalid config: LeaseTTL 2h"},
	})
}

// TestWorkersReadOnlyFile: workers lists a SQLite file this user may not
// write, in a directory it may not write, and gen says which file and
// which permission it lacks, never a server unreachable.
func TestWorkersReadOnlyFile(t *testing.T) {
	path := isolateDB(t)
	if code, _, stderr := runCLIShared(t, "gen", "-worker", "3", "-n", "1"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	dir := filepath.Dir(path)
	for _, tt := range []struct {
		name, denied, says string
	}{
		{"directory", dir, fmt.Sprintf("uidgen gen: SQLite file %s: this user may not create files in its directory %s, where SQLite keeps the file's write-ahead log (uidgen.db-wal, uidgen.db-shm): ", path, dir)},
		{"file", path, fmt.Sprintf("uidgen gen: SQLite file %s: this user may not write the file (", path)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			permtest.ReadOnly(t, tt.denied)
			code, out, stderr := runCLIShared(t, "workers")
			if code != 0 || !strings.HasSuffix(out, "1 rows in WORKER_NODE: 1 leased (0 held, 1 free), 0 disposable\n") {
				t.Errorf("workers: exit %d, %q, %s; want worker ID 3 listed", code, out, stderr)
			}
			code, _, stderr = runCLIShared(t, "gen", "-n", "1")
			if code != 1 || !strings.HasPrefix(stderr, tt.says) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("gen: exit %d, %q; want 1 and %q...", code, stderr, tt.says)
			}
		})
	}
}
