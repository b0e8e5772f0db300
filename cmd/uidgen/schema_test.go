package main

import (
	"strings"
	"testing"

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
