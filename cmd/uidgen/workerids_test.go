package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/etcdworker"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/worker"
)

// genInRange runs `gen -worker-ids 3-4` with the store's args while
// another lease holds 3, and checks every ID printed has worker ID 4.
func genInRange(t *testing.T, store []string, held uidgen.Leaser) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if s := leasetest.Must[uidgen.Lease](t, ctx, held, uidgen.DefaultLayout().Bits().MaxWorkerID()); s.WorkerID() != 3 {
		t.Fatalf("the lease held beside gen: worker ID %d, want 3", s.WorkerID())
	}
	code, out, stderr := runCLI(t, append([]string{"gen", "-n", "5", "-worker-ids", "3-4"}, store...)...)
	if code != 0 {
		t.Fatalf("gen -worker-ids 3-4: exit %d: %s", code, stderr)
	}
	ids := parseIDs(t, out)
	if len(ids) != 5 {
		t.Fatalf("printed %d IDs, want 5", len(ids))
	}
	for _, id := range ids {
		if w := uidgen.DefaultLayout().Parse(id).WorkerID; w != 4 {
			t.Errorf("ID %d has worker ID %d, want 4: in 3-4, and 3 is held", id, w)
		}
	}
}

// TestGenWorkerIDsEtcd: `gen -worker-ids 3-4 -etcd` leases inside 3-4, and
// a range above the layout's largest worker ID exits 2 naming it.
func TestGenWorkerIDsEtcd(t *testing.T) {
	c := etcdtest.Start(t, 1)
	const prefix = "/worker-ids/"
	held, err := etcdworker.NewLeased(etcdworker.Config{Client: c.Client(t), Prefix: prefix,
		WorkerIDs: uidgen.WorkerIDRange{Min: 3, Max: 3}})
	if err != nil {
		t.Fatal(err)
	}
	store := []string{"-etcd", strings.Join(c.Endpoints(), ","), "-etcd-prefix", prefix}
	genInRange(t, store, held)

	code, _, stderr := runCLI(t, append([]string{"gen", "-worker-ids", "1000000-2000000"}, store...)...)
	if want := "invalid config: WorkerIDs 1000000-2000000 ends above 1048575, the layout's largest worker ID: want Max at most 1048575"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("gen -worker-ids 1000000-2000000: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestGenWorkerIDsLease: `gen -lease -dsn ... -worker-ids 3-4` leases
// inside 3-4 from the worker table.
func TestGenWorkerIDsLease(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "WORKER_NODE_")
		if err := worker.EnsureSchema(t.Context(), worker.Config{DB: db, Table: table}); err != nil {
			t.Fatal(err)
		}
		held, err := worker.NewLeased(worker.Config{DB: db, Table: table, WorkerIDs: uidgen.WorkerIDRange{Min: 3, Max: 3}})
		if err != nil {
			t.Fatal(err)
		}
		genInRange(t, []string{"-lease", "-dsn", s.DSN, "-table", table}, held)
	})
}
