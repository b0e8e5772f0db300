package main

import (
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
)

// TestGenTakesWorkerIDFromTheDatabase runs gen -dsn twice on a table that does not
// exist yet: the first run creates it, and each run is a new worker.
func TestGenTakesWorkerIDFromTheDatabase(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		table := dbtest.Table(t, s.Open(t), "WORKER_NODE_")
		workerOf := func() string {
			code, out, stderr := runCLI(t, "gen", "-n", "3", "-json", "-dsn", s.DSN, "-table", table)
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
	})
}

func TestGenDSNErrors(t *testing.T) {
	for _, dsn := range []string{"root@tcp(127.0.0.1:1)/test", "postgres://postgres@127.0.0.1:1/test"} {
		code, _, stderr := runCLI(t, "gen", "-dsn", dsn)
		if code != 1 || !strings.Contains(stderr, "unreachable") || !strings.Contains(stderr, "127.0.0.1") {
			t.Errorf("%s, a closed port: exit %d, %q", dsn, code, stderr)
		}
		code, _, stderr = runCLI(t, "gen", "-dsn", dsn, "-worker", "3")
		if code != 2 || !strings.Contains(stderr, "-worker and -dsn both given") {
			t.Errorf("-worker with -dsn %s: exit %d, %q", dsn, code, stderr)
		}
		code, _, stderr = runCLI(t, "gen", "-dsn", dsn, "-table", "no such")
		if code != 2 || !strings.Contains(stderr, `"no such"`) {
			t.Errorf("bad table with -dsn %s: exit %d, %q", dsn, code, stderr)
		}
	}
	for _, dsn := range []string{"postgres://postgres@127.0.0.1:notaport/test", "root@tcp(127.0.0.1:1/test"} {
		code, _, stderr := runCLI(t, "gen", "-dsn", dsn)
		if code != 2 || !strings.Contains(stderr, "-dsn: ") {
			t.Errorf("malformed -dsn %s: exit %d, %q; want 2 and the parser's complaint", dsn, code, stderr)
		}
	}
}

// TestLeaseFlagsHelp: the help of the flags that shape a lease names every
// way gen leases, the default -db file first, since each takes them.
func TestLeaseFlagsHelp(t *testing.T) {
	var w workerFlags
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	w.register(fs, newStores(io.Discard))
	for _, name := range []string{"worker-ids", "lease-ttl", "lease-horizon"} {
		if usage := fs.Lookup(name).Usage; !strings.HasPrefix(usage, "with the -db file, -lease or the lease store (") {
			t.Errorf("-%s: help %q, want it to start with the -db file, -lease or the lease store", name, usage)
		}
	}
}
