package redisworker

import (
	"testing"
	"time"
)

// TestList shows a held and a free ID as `uidgen workers -redis` prints
// them, and shows them the same once the server is killed and restarted
// from its append-only file.
func TestList(t *testing.T) {
	f := newFleet(t)
	// Long enough that no renewal moves a reservation while the test
	// reads the fleet twice.
	const ttl = 10 * time.Minute
	l := f.leased(t, Config{LeaseTTL: ttl})
	a, b := mustLease(t, l, 7), mustLease(t, l, 7)
	ctx := testContext(t)
	if err := b.Release(ctx, b.First()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Client: f.c, Prefix: f.prefix}
	rows, err := List(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("List: %+v, want IDs 1 and 2", rows)
	}
	held, free := rows[0], rows[1]
	if held.ID != 1 || !held.Leased || !held.Held || held.Host == "" || held.PID == 0 || held.Since.IsZero() ||
		held.LeaseLeft <= 0 || held.LeaseLeft > ttl || held.Reserved != a.Reserved() || held.ReservedAhead <= 0 {
		t.Errorf("held row %+v; want ID 1, leased, held, with its holder, lease left and reservation %d", held, a.Reserved())
	}
	if free.ID != 2 || !free.Leased || free.Held || free.Host != "" || free.PID != 0 || free.LeaseLeft != 0 || free.Reserved != b.First() {
		t.Errorf("free row %+v; want ID 2, leased, free, reserved to %d", free, b.First())
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
