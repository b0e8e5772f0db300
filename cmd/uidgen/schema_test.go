package main

import (
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/worker"
)

// TestSchemaPrintsBaidusDDL: schema prints what EnsureSchema makes, the
// table's DDL and then the lease columns: Baidu's DDL by default, and the
// PostgreSQL table with -dialect postgres.
func TestSchemaPrintsBaidusDDL(t *testing.T) {
	for _, dialect := range []string{"mysql", "postgres"} {
		ddl, err := worker.Schema(dialect, "")
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"schema", "-dialect", dialect}
		if dialect == "mysql" {
			args = args[:1] // the default
		}
		code, out, stderr := runCLI(t, args...)
		if code != 0 || out != ddl || !strings.Contains(out, "ALTER TABLE WORKER_NODE ADD COLUMN LEASED ") {
			t.Fatalf("%v: exit %d, stderr %q, printed\n%s\nwant\n%s", args, code, stderr, out, ddl)
		}
		code, out, _ = runCLI(t, "schema", "-dialect", dialect, "-table", "ORDER_WORKERS")
		if code != 0 || !strings.HasPrefix(out, "CREATE TABLE ORDER_WORKERS\n") {
			t.Fatalf("-dialect %s -table: exit %d, printed %q", dialect, code, out)
		}
	}
}

func TestSchemaBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"schema", "-table", "x; DROP TABLE y"}, `invalid config: Table "x; DROP TABLE y"`},
		{[]string{"schema", "extra"}, `unexpected argument "extra"`},
		{[]string{"schema", "-dialect", "oracle"}, `Dialect "oracle": want mysql, postgres or sqlite`},
	})
}

// TestGenRefusesAWorkerTableOfAnotherShape: gen on a database whose
// WORKER_NODE is another program's table, with or without -lease (or, on
// the -db file, -worker), exits 2 with one line naming the table, what
// differs and what to do in the database's dialect, and leaves the table as
// it was, its definition and its rows.
func TestGenRefusesAWorkerTableOfAnotherShape(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		s = s.Database(t) // where the table may be WORKER_NODE itself
		db := s.Open(t)
		s.Exec(t, db, "CREATE TABLE WORKER_NODE (id BIGINT PRIMARY KEY, name VARCHAR(32) NOT NULL, note VARCHAR(32))")
		s.Exec(t, db, "INSERT INTO WORKER_NODE VALUES (1, 'a', 'b')")
		before := s.Snapshot(t, db, "WORKER_NODE")
		// A -dsn database gives a fresh worker ID, or with -lease a leased
		// one; the -db file leases, with -worker the ID given.
		type run struct {
			args []string
			op   string // as cached names it
		}
		runs := []run{{[]string{"-dsn", s.DSN}, "assign"}, {[]string{"-dsn", s.DSN, "-lease"}, "lease"}}
		if s.Kind == "sqlite" {
			runs = []run{{[]string{"-db", s.Path}, "lease"}, {[]string{"-db", s.Path, "-worker", "5"}, "lease"}}
		}
		for _, r := range runs {
			args := append([]string{"gen", "-n", "1"}, r.args...)
			want := "uidgen gen: cached: " + r.op + " worker ID: worker: invalid config: table WORKER_NODE is not Baidu's WORKER_NODE" +
				" with or without the lease columns: no column HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED or CREATED;" +
				" its own columns name and note; it is left as it is" +
				" (name another table: Config.Table, uidgen's -table; `uidgen schema -dialect " + s.Kind + "` prints the one it makes)\n"
			code, out, stderr := runCLI(t, args...)
			if code != 2 || out != "" || stderr != want {
				t.Errorf("%v: exit %d, stdout %q, stderr\n%q\nwant exit 2 and\n%q", args, code, out, stderr, want)
			}
			if after := s.Snapshot(t, db, "WORKER_NODE"); after != before {
				t.Errorf("%v changed the table: it was\n%s\nand is\n%s", args, before, after)
			}
		}
	})
}
