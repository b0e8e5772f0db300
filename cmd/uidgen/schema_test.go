package main

import (
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/worker"
)

func TestSchemaPrintsBaidusDDL(t *testing.T) {
	want, err := worker.Schema("")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "schema")
	if code != 0 || strings.TrimSuffix(out, "\n") != strings.TrimSuffix(want, "\n") || !strings.HasSuffix(out, ";\n") {
		t.Fatalf("exit %d, stderr %q, printed\n%s\nwant\n%s", code, stderr, out, want)
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
