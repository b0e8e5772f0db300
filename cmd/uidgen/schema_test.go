package main

import (
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/worker"
)

// TestSchemaPrintsBaidusDDL: schema prints what EnsureSchema makes, Baidu's
// DDL and then the lease columns.
func TestSchemaPrintsBaidusDDL(t *testing.T) {
	baidu, err := worker.Schema("")
	if err != nil {
		t.Fatal(err)
	}
	lease, err := worker.LeaseSchema("")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "schema")
	if code != 0 || !strings.HasPrefix(out, strings.TrimSuffix(baidu, "\n")+"\n\n-- ") || !strings.HasSuffix(out, "\n"+lease) {
		t.Fatalf("exit %d, stderr %q, printed\n%s\nwant\n%s\nthen a comment and\n%s", code, stderr, out, baidu, lease)
	}
	code, out, _ = runCLI(t, "schema", "-table", "ORDER_WORKERS")
	if code != 0 || !strings.HasPrefix(out, "CREATE TABLE ORDER_WORKERS\n") {
		t.Fatalf("-table: exit %d, printed %q", code, out)
	}
}

func TestSchemaBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"schema", "-table", "x; DROP TABLE y"}, "bad table name"},
		{[]string{"schema", "extra"}, `unexpected argument "extra"`},
	})
}
