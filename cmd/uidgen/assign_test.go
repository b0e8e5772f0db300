package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/mysqltest"
)

// TestGenTakesWorkerIDFromMySQL runs gen -dsn twice on a table that does not
// exist yet: the first run creates it, and each run is a new worker.
func TestGenTakesWorkerIDFromMySQL(t *testing.T) {
	cfg := mysqltest.Config(t)
	table := mysqltest.Table(t, mysqltest.Open(t, cfg))
	workerOf := func() string {
		code, out, stderr := runCLI(t, "gen", "-n", "3", "-json", "-dsn", cfg.FormatDSN(), "-table", table)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var first string
		for range 3 {
			var id struct{ WorkerID string }
			if err := dec.Decode(&id); err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = id.WorkerID
			}
			if id.WorkerID != first {
				t.Fatalf("worker ID changed within a run: %s then %s", first, id.WorkerID)
			}
		}
		return first
	}
	a, b := workerOf(), workerOf()
	if a == "0" || a == b {
		t.Fatalf("worker IDs %s then %s; want two distinct IDs from the table", a, b)
	}
}

func TestGenDSNErrors(t *testing.T) {
	code, _, stderr := runCLI(t, "gen", "-dsn", "root@tcp(127.0.0.1:1)/test")
	if code != 1 || !strings.Contains(stderr, "unreachable") || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("closed port: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "gen", "-dsn", "root@tcp(127.0.0.1:1)/test", "-worker", "3")
	if code != 2 || !strings.Contains(stderr, "-worker and -dsn both given") {
		t.Fatalf("-worker with -dsn: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "gen", "-dsn", "root@tcp(127.0.0.1:1)/test", "-table", "no such")
	if code != 2 || !strings.Contains(stderr, `"no such"`) {
		t.Fatalf("bad table: exit %d, %q", code, stderr)
	}
}
