package redisworker

import (
	"errors"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestOutage: a cached generator taking IDs at a steady pace on a worker ID
// leased from Redis fails no take while the server is paused (SIGSTOP), or
// killed and restarted from its append-only file, for an outage within the
// lease's horizon and its TTL; once the server is back the lease renews,
// under the same held key, and the reservation is where it was.
func TestOutage(t *testing.T) {
	outage := time.Duration(sizetest.Pick(8, 3)) * time.Second
	for _, tt := range []struct {
		name     string
		down, up func(s *redistest.Server)
	}{
		{"paused", (*redistest.Server).Pause, (*redistest.Server).Resume},
		{"killed and restarted", (*redistest.Server).Kill, (*redistest.Server).Restart},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testOutage(t, newFleet(t), outage, tt.down, tt.up)
		})
	}
}

// testOutage runs TestOutage's steps on f, downing and upping f.s, the
// server that holds f's keys.
func testOutage(t *testing.T, f fleet, outage time.Duration, down, up func(s *redistest.Server)) {
	const (
		pace = 10 * time.Millisecond // 100 IDs a second: a steady load the clock keeps up with
		// The held key, renewed as the outage starts, outlives the outage,
		// a renewal that waits out the client's timeout in it, and the
		// retries after it.
		ttl     = 30 * time.Second
		horizon = time.Minute // well beyond the outage
	)
	leaser := &leasetest.Watched{Leaser: f.leased(t, Config{LeaseTTL: ttl, LeaseHorizon: horizon})}
	g, err := cached.New(testContext(t), cached.Config{Leaser: leaser})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	lease := leaser.Last().(*lease)
	id := lease.WorkerID()

	var ids []int64
	take := func(until time.Time) {
		t.Helper()
		idtest.TakeUntil(t, &ids, g.NextID, pace, until)
	}
	take(time.Now().Add(time.Second))
	renewNow(t, lease)
	value, reserved := f.held(t, id), lease.Reserved()

	down(f.s)
	take(time.Now().Add(outage))
	if err := lease.RenewNow(testContext(t)); err == nil || errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("a renewal while the server is down: %v, want the client's error", err)
	}
	up(f.s)
	back := time.Now()
	for {
		err := lease.RenewNow(testContext(t))
		if err == nil {
			break
		}
		if errors.Is(err, uidgen.ErrLeaseLost) || time.Since(back) > 20*time.Second {
			t.Fatalf("the server back for %v, and the lease does not renew: %v", time.Since(back), err)
		}
		take(time.Now().Add(100 * time.Millisecond))
	}
	t.Logf("server down for %v: %d IDs, none failed; the lease renewed %v after it came back",
		outage, len(ids), time.Since(back).Round(time.Millisecond))
	if got := f.held(t, id); got != value {
		t.Errorf("held:%d holds %q after the outage, want the holder's %q", id, got, value)
	}
	if got := f.reserved(t, id); got != lease.Reserved() || got <= reserved {
		t.Errorf("reserved:%d holds %d after the renewal, want the lease's Reserved() %d, above %d before the outage",
			id, got, lease.Reserved(), reserved)
	}
	take(time.Now().Add(time.Second))
	if s := g.Stats(); s.TakesFailed != 0 || s.Lease.Lost {
		t.Errorf("Stats %+v: want no failed take and the lease kept", s)
	}
	idtest.Check(t, g, [][]int64{ids})
	if err := g.Close(); err != nil {
		t.Errorf("Close after the outage: %v", err)
	}
}
