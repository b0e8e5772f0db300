package redisworker

import (
	"testing"
	"time"
)

// TestList: List shows the fleet the same once the server is killed and
// restarted from its append-only file; the lease suite's List checks what
// it shows.
func TestList(t *testing.T) {
	f := newFleet(t)
	// Long enough that no renewal moves a reservation while the test
	// reads the fleet twice.
	l := f.leased(t, Config{LeaseTTL: 10 * time.Minute})
	_, b := mustLease(t, l, 7), mustLease(t, l, 7)
	ctx := testContext(t)
	if err := b.Release(ctx, b.First()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Client: f.c, Prefix: f.prefix}
	rows, err := List(ctx, cfg)
	if err != nil || len(rows) != 2 {
		t.Fatalf("List: %+v, %v; want IDs 1 and 2", rows, err)
	}

	f.s.Kill()
	f.s.Restart()
	again, err := List(ctx, cfg)
	if err != nil {
		t.Fatalf("List after a restart: %v", err)
	}
	if len(again) != len(rows) {
		t.Fatalf("List after a restart: %+v, want %+v", again, rows)
	}
	for i, r := range again {
		was := rows[i]
		// What the server's clock and this process's say moves on.
		if r.Held && (r.LeaseLeft <= 0 || r.LeaseLeft > was.LeaseLeft) {
			t.Errorf("ID %d has %v of its lease left after the restart, want more than 0 and at most the %v before", r.ID, r.LeaseLeft, was.LeaseLeft)
		}
		if !r.Since.Equal(was.Since) {
			t.Errorf("ID %d held since %v after the restart, want %v", r.ID, r.Since, was.Since)
		}
		r.LeaseLeft, was.LeaseLeft, r.ReservedAhead, was.ReservedAhead = 0, 0, 0, 0
		r.Since, was.Since = time.Time{}, time.Time{}
		if r != was {
			t.Errorf("row after the restart %+v, want %+v as before", r, was)
		}
	}
}
